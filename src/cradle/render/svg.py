"""What the SVG renderers share: elements built with escaped text and attributes."""

from __future__ import annotations

import xml.etree.ElementTree as ET


def add(parent: ET.Element, tag: str, text: str | None = None, **attributes: object) -> ET.Element:
    """A child ``tag`` of ``parent``; an attribute's name written with dashes (``font_size`` is
    ``font-size``, ``class_`` is ``class``)."""
    element = ET.SubElement(
        parent, tag, {key.rstrip("_").replace("_", "-"): str(v) for key, v in attributes.items()}
    )
    if text is not None:
        element.text = text
    return element
