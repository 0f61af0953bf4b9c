"""The tables' chat: its lines, each viewer's mutes, and whether spectators take part.

Revision ID: 0004_chat
Revises: 0003_turns
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004_chat"
down_revision: str | None = "0003_turns"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "chat_lines",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column(
            "game_id",
            sa.String(40),
            sa.ForeignKey("games.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("seat", sa.Integer, nullable=True),
        sa.Column("speaker", sa.String(80), nullable=False),
        sa.Column("name", sa.String(80), nullable=False),
        sa.Column("client", sa.String(32), nullable=True),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("created", sa.Float, nullable=False),
    )
    op.create_index("ix_chat_lines_game_id", "chat_lines", ["game_id"])
    op.create_table(
        "chat_mutes",
        sa.Column("viewer", sa.String(100), primary_key=True),
        sa.Column("muted", sa.String(100), primary_key=True),
        sa.Column("created", sa.Float, nullable=False),
    )
    op.add_column(
        "games",
        sa.Column("spectator_chat", sa.Boolean, nullable=False, server_default=sa.false()),
    )


def downgrade() -> None:
    raise NotImplementedError("cradle's databases only move forward (restore a backup instead)")
