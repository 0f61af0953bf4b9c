"""Turn notices owed by the database, and stand-ins that stay: the seats whose person is away
(their stand-in bot plays each of their turns whose deadline passes, until they return), and
the e-mail notices due (a row per game, seat and turn, written with the move that began the
turn and claimed by whichever server process sends it).

Revision ID: 0006_turns_due
Revises: 0005_ratings
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006_turns_due"
down_revision: str | None = "0005_ratings"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # The games stored before have nobody away (a stand-in then played one turn at a time).
    op.add_column("games", sa.Column("away", sa.Integer, nullable=False, server_default="0"))
    op.create_table(
        "due_notices",
        sa.Column(
            "game_id",
            sa.String(40),
            sa.ForeignKey("games.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("turn", sa.Integer, primary_key=True),
        sa.Column("due", sa.Float, nullable=False),
    )
    op.create_index("ix_due_notices_due", "due_notices", ["due"])


def downgrade() -> None:
    raise NotImplementedError("cradle's databases only move forward (restore a backup instead)")
