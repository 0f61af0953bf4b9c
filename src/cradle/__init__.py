"""cradle: Tigris & Euphrates and Gheos, exact engines for play, study and AI research."""

__version__ = "0.1.0"
