"""The bots' numbers in words (src/cradle/web/measure.js), read by Node: with two players a
chance to win, with more the expected share of opponents beaten, never "win chance" (issue 56:
a 3-player chart titled "win chance" plotted the share). The module is what hints, the analysis
and the end screen all say."""

from __future__ import annotations

from pathlib import Path

from tests.helpers.web import node_json

WEB = Path(__file__).resolve().parents[2] / "src/cradle/web"

SCRIPT = """
const { readFileSync } = await import("node:fs");
const i18n = await import(new URL("i18n.js", process.argv[1]).href);
const read = (tag) => JSON.parse(readFileSync(new URL(`i18n/${tag}.json`, process.argv[1]), "utf8"));
i18n.useCatalogues(process.argv[2], [read(process.argv[2]), read("en")]);
const m = await import(process.argv[1]);
const out = {};
for (const n of [2, 3, 4]) {
  out[n] = [m.measureName(n), m.measured(n, 0.42), m.costWords(n, 0.21), m.chartNote(n)];
}
out.review = m.reviewNote();
console.log(JSON.stringify(out));
"""


def words(tag: str = "en") -> dict[str, list[str] | str]:
    found: dict[str, list[str] | str] = node_json(SCRIPT, (WEB / "measure.js").as_uri(), tag)
    return found


def test_two_players_see_a_chance_to_win_more_see_the_share_beaten() -> None:
    found = words()
    assert found["2"] == [
        "win chance",
        "win chance 42%",
        "costs 21% of win chance",
        found["2"][3],
    ]
    assert "chance to win" in found["2"][3]
    for players in ("3", "4"):
        texts = found[players]
        assert all("win" not in text for text in texts), texts
        assert "share of opponents beaten" in texts[0]
        assert "42%" in texts[1] and "21%" in texts[2]


def test_the_chart_and_the_review_say_what_each_knew() -> None:
    found = words()
    assert "every tile known" in found["2"][3]
    assert "own tiles" in str(found["review"]) and "every tile known" not in str(found["review"])
