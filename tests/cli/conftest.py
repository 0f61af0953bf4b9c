"""Shared helpers for the CLI tests: run `cradle` in-process on the real engines."""

from __future__ import annotations
