"""`make lint`: the Python translation catalogues are current (docs/translating.md).

Fails, saying what to run, when the template (src/cradle/locale/cradle.pot) no longer holds
exactly the messages the sources mark, when a language's catalogue holds other messages than
the template or a fuzzy one, when a compiled .mo is not what its .po compiles to, or when the
web client's reasons (src/cradle/web/i18n/reasons, packaging/web_reasons.py) are not what the
catalogues make. Headers (dates, versions) are not compared: only the messages.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from io import BytesIO
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parents[1]
LOCALES = ROOT / "src/cradle/locale"
TEMPLATE = LOCALES / "cradle.pot"
EXTRACT = ["-F", "babel.cfg", "-k", "NP_:1c,2", "--no-location", "--sort-output"]
FIX = "run `make catalogues`, translate what it added, and commit the catalogues"


def keys(catalog: Catalog) -> set[tuple[object, str | None]]:
    return {(message.id, message.context) for message in catalog if message.id}


def read(path: Path, locale: str | None = None) -> Catalog:
    with path.open("rb") as handle:
        return read_po(handle, locale=locale)


def main() -> int:
    problems: list[str] = []
    pybabel = Path(sys.executable).with_name("pybabel")
    with tempfile.TemporaryDirectory() as tmp:
        fresh = Path(tmp) / "cradle.pot"
        subprocess.run(
            [str(pybabel), "extract", *EXTRACT, "-o", str(fresh), "."],
            cwd=ROOT,
            check=True,
            capture_output=True,
        )
        wanted = keys(read(fresh))
    if not TEMPLATE.exists() or keys(read(TEMPLATE)) != wanted:
        problems.append(f"{TEMPLATE.relative_to(ROOT)} is stale against the sources")
    for po in sorted(LOCALES.glob("*/LC_MESSAGES/cradle.po")):
        language = po.parent.parent.name
        catalog = read(po, language)
        if keys(catalog) != wanted:
            problems.append(f"{po.relative_to(ROOT)} does not hold the template's messages")
        fuzzy = [m.id for m in catalog if m.id and m.fuzzy]
        if fuzzy:
            problems.append(f"{po.relative_to(ROOT)} has fuzzy messages: {fuzzy[:3]}")
        compiled = BytesIO()
        write_mo(compiled, catalog)
        mo = po.with_suffix(".mo")
        if not mo.exists() or mo.read_bytes() != compiled.getvalue():
            problems.append(f"{mo.relative_to(ROOT)} is not its .po compiled")
    for problem in problems:
        print(f"catalogues: {problem}; {FIX}", file=sys.stderr)
    web = subprocess.run([sys.executable, str(ROOT / "packaging/web_reasons.py"), "--check"])
    return 1 if problems or web.returncode else 0


if __name__ == "__main__":
    sys.exit(main())
