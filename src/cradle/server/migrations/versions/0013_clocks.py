"""Clocks for live tables: each person's base time and increment, each seat's time left, and
since when a seat's person has had no page open."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision, down_revision = "0013_clocks", "0012_friends"


def upgrade() -> None:
    op.add_column("games", sa.Column("clock_base_s", sa.Float, nullable=True))
    op.add_column("games", sa.Column("clock_increment_s", sa.Float, nullable=True))
    op.add_column("games", sa.Column("clock_left", sa.JSON, nullable=True))
    op.add_column("seats", sa.Column("gone", sa.Float, nullable=True))
