"""The tables' chat: its lines, each viewer's mutes, and whether spectators take part."""

import sqlalchemy as sa
from alembic import op

from cradle.server.migrations import of_game

revision, down_revision = "0004_chat", "0003_turns"


def upgrade() -> None:
    op.create_table(
        "chat_lines",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        of_game(key=False),
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
