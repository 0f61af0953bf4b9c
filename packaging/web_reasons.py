"""The rules engines' reasons for the web client: src/cradle/web/i18n/reasons/<tag>.json, made
from the Python catalogues (the one source of their translations; docs/translating.md).

The play server answers "why is this move not allowed?" with the engine's English sentence; the
client finds which message it is by the English templates (their named placeholders read back
the params), then shows the message of its language with the game's words among the params
translated too. Written by `make catalogues`; `make lint` (check_catalogues.py) fails when a
file is not what this script writes from the catalogues.

    python packaging/web_reasons.py [--check]
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parents[1]
LOCALES = ROOT / "src/cradle/locale"
OUT = ROOT / "src/cradle/web/i18n/reasons"
# The engines' refusals, the bots' reasons in hints and analyses (cradle.ai.knowledge), and the
# server's reasons.
ENGINES = [
    "src/cradle/core",
    "src/cradle/tigris",
    "src/cradle/gheos",
    "src/cradle/i18n.py",
    "src/cradle/ai/knowledge",
    "src/cradle/ai/hints.py",
    "src/cradle/server",  # the server's reasons for a refused request (cradle.server.errors)
]
WORD_KINDS = ("leader", "colour", "player", "kind")
# The gettext catalogue each web catalogue reads its reasons from, and what it falls back on.
TAGS = {"es": ("es", None), "pt-BR": ("pt_BR", None), "pt-PT": ("pt_PT", "pt_BR")}


def read(path: Path) -> Catalog:
    with path.open("rb") as handle:
        return read_po(handle)


def engine_messages() -> set[tuple[str, str | None]]:
    """The messages the engines give (and the words cradle.i18n lists), from their sources."""
    pybabel = Path(sys.executable).with_name("pybabel")
    with tempfile.TemporaryDirectory() as tmp:
        pot = Path(tmp) / "engines.pot"
        subprocess.run(
            [str(pybabel), "extract", "-k", "NP_:1c,2", "--no-location", "-o", str(pot), *ENGINES],
            cwd=ROOT,
            check=True,
            capture_output=True,
        )
        return {(str(m.id), m.context) for m in read(pot) if m.id and isinstance(m.id, str)}


def strings(language: str) -> dict[tuple[str, str | None], str]:
    found = read(LOCALES / language / "LC_MESSAGES/cradle.po")
    return {(str(m.id), m.context): str(m.string) for m in found if m.id and m.string}


def reasons(tag: str, wanted: set[tuple[str, str | None]]) -> dict[str, object]:
    language, fallback = TAGS[tag]
    translated = strings(fallback) if fallback else {}
    translated.update(strings(language))
    messages = {
        key[0]: translated[key] for key in sorted(wanted) if key[1] is None and key in translated
    }
    words = {
        kind: {
            key[0]: translated[key]
            for key in sorted(wanted)
            if key[1] == kind and key in translated
        }
        for kind in WORD_KINDS
    }
    return {"messages": messages, "words": words}


def written(tag: str, wanted: set[tuple[str, str | None]]) -> str:
    return json.dumps(reasons(tag, wanted), ensure_ascii=False, indent=1, sort_keys=True) + "\n"


def main(check: bool) -> int:
    wanted = engine_messages()
    stale = []
    for tag in TAGS:
        path = OUT / f"{tag}.json"
        text = written(tag, wanted)
        if check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                stale.append(str(path.relative_to(ROOT)))
        else:
            OUT.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    for path in stale:
        print(f"catalogues: {path} is stale; run `make catalogues`", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main("--check" in sys.argv[1:]))
