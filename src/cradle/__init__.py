"""cradle: Tigris & Euphrates and Gheos, exact engines for play, study and AI research."""

__version__ = "0.1.0"
# The distribution's name (the name cradle is another project's on PyPI); it installs `cradle`.
DISTRIBUTION = "cradle-games"


def extra_hint(extra: str) -> str:
    """Where an optional dependency comes from, for an error message."""
    return f"the '{extra}' extra of {DISTRIBUTION} (in a checkout: pip install -e '.[{extra}]')"
