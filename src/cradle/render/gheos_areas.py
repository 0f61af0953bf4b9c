"""What both Gheos pictures (SVG and text) colour an area by: its civilization where one
stands on it, else its kind (a free continent, an island, other land)."""

from __future__ import annotations

from collections.abc import Mapping

from cradle.gheos import GheosView


def area_looks(
    view: GheosView,
    civs: Mapping[str, str],
    unknown_civ: str,
    continent: str,
    island: str,
    land: str,
) -> dict[int, str]:
    """Each area's look (a fill, a style) by its index: its civilization's in ``civs``
    (``unknown_civ`` for a colour not there), else its kind's."""
    looks = {}
    for area in view["areas"]:
        if area["civ"]:
            look = civs.get(area["civ"], unknown_civ)
        elif area["kind"] == "continent":
            look = continent
        elif area["kind"] == "island":
            look = island
        else:
            look = land
        looks[area["area"]] = look
    return looks
