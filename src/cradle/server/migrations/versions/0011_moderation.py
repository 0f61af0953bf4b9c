"""Moderation: an operator's mutes and suspensions of accounts, people's reports of chat lines
and players, and the log of every operator's action (``cradle admin``)."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision, down_revision = "0011_moderation", "0010_notice_retries"


def upgrade() -> None:
    no = sa.false()
    op.add_column("accounts", sa.Column("muted", sa.Boolean(), nullable=False, server_default=no))
    op.add_column(
        "accounts", sa.Column("suspended", sa.Boolean(), nullable=False, server_default=no)
    )
    op.create_table(
        "reports",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("created", sa.Float(), nullable=False),
        sa.Column("game_id", sa.String(40), nullable=True),
        sa.Column("line_id", sa.Integer(), nullable=True),
        sa.Column("target", sa.String(16), nullable=True),
        sa.Column("name", sa.String(80), nullable=False),
        sa.Column("quoted", sa.Text(), nullable=True),
        sa.Column("reporter", sa.String(80), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("closed", sa.Boolean(), nullable=False, server_default=no),
    )
    op.create_index("ix_reports_created", "reports", ["created"])
    op.create_table(
        "moderation_log",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("at", sa.Float(), nullable=False),
        sa.Column("operator", sa.String(80), nullable=False),
        sa.Column("action", sa.String(20), nullable=False),
        sa.Column("target", sa.String(200), nullable=False),
        sa.Column("why", sa.Text(), nullable=False),
    )
    op.create_index("ix_moderation_log_at", "moderation_log", ["at"])
