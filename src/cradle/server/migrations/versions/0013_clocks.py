"""Clocks for live tables: each person's base time and increment, each seat's time left, and
since when a seat's person has had no page open.

Revision ID: 0013_clocks
Revises: 0012_friends
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013_clocks"
down_revision: str | None = "0012_friends"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("games", sa.Column("clock_base_s", sa.Float, nullable=True))
    op.add_column("games", sa.Column("clock_increment_s", sa.Float, nullable=True))
    op.add_column("games", sa.Column("clock_left", sa.JSON, nullable=True))
    op.add_column("seats", sa.Column("gone", sa.Float, nullable=True))


def downgrade() -> None:
    raise NotImplementedError("cradle's databases only move forward (restore a backup instead)")
