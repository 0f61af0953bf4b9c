"""The mutation score per file of a finished `make mutation` run (docs/testing.md).

Reads mutmut's results (mutants/**/*.py.meta) and the equivalent mutants named in
docs/testing.md, and prints killed / total / equivalent per mutated file. A mutant that timed
out counts as killed (the tests stopped it); equivalent mutants count as neither killed nor
failed. Exits 1 when a mutant was not checked, so that a partial run is never taken for a score.

    python tests/mutation_score.py [--survivors]
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KILLED = {1: "killed", 3: "killed", 36: "timeout", -24: "timeout", 24: "timeout", 152: "timeout"}
# A table row of docs/testing.md naming an equivalent mutant: | `name` | reason |
EQUIVALENT_ROW = re.compile(r"^\| `(cradle\.[\w.ǁ]+__mutmut_\d+)` \|")


def equivalent_mutants(doc: Path) -> set[str]:
    return {
        m.group(1) for line in doc.read_text().splitlines() if (m := EQUIVALENT_ROW.match(line))
    }


def main(argv: list[str]) -> int:
    equivalent = equivalent_mutants(ROOT / "docs" / "testing.md")
    metas = sorted((ROOT / "mutants").glob("**/*.py.meta"))
    if not metas:
        print("no mutmut results: run `make mutation` first", file=sys.stderr)
        return 2
    unchecked = 0
    for meta in metas:
        results: dict[str, int | None] = json.loads(meta.read_text())["exit_code_by_key"]
        if not results:
            continue
        tally: Counter[str] = Counter()
        survivors = []
        for name, code in sorted(results.items()):
            if name in equivalent:
                tally["equivalent"] += 1
            elif code in KILLED:
                tally["killed"] += 1
                tally["timeout"] += KILLED[code] == "timeout"
            elif code is None:
                tally["not checked"] += 1
            else:
                tally["not killed"] += 1
                survivors.append(name)
        unchecked += tally["not checked"]
        counted = len(results) - tally["equivalent"]
        score = 100 * tally["killed"] / counted if counted else 100.0
        name = meta.relative_to(ROOT / "mutants").with_suffix("")
        print(
            f"{name}: {tally['killed']} killed of {counted} ({score:.1f}%; "
            f"{tally['timeout']} by timeout), {tally['not killed']} not killed, "
            f"{tally['equivalent']} equivalent of {len(results)} mutants"
            + (f", {tally['not checked']} NOT CHECKED" if tally["not checked"] else "")
        )
        if "--survivors" in argv:
            for survivor in survivors:
                print(f"    {survivor} ({results[survivor]})")
    return 1 if unchecked else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
