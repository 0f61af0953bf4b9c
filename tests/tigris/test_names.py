"""The colours' one name: COLOURS; the old COLORS still answers, with a DeprecationWarning."""

from __future__ import annotations

import pytest

from cradle import tigris


def test_the_old_colours_name_still_answers_with_a_warning() -> None:
    with pytest.warns(DeprecationWarning, match="COLOURS"):
        old = tigris.COLORS  # type: ignore[attr-defined]
    assert old is tigris.COLOURS
    with pytest.raises(AttributeError):
        _ = tigris.NO_SUCH_NAME  # type: ignore[attr-defined]
