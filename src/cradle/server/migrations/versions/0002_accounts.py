"""Accounts, their sessions, the account and name at each seat, and the one-time links that
move a guest's seat to another device.
"""

import sqlalchemy as sa
from alembic import op

from cradle.server.migrations import of_account, of_game

revision, down_revision = "0002_accounts", "0001_baseline"


def upgrade() -> None:
    op.create_table(
        "accounts",
        sa.Column("id", sa.String(16), primary_key=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("name_key", sa.String(128), nullable=False),
        sa.Column("password", sa.String(256), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("email", sa.String(254), nullable=True),
        sa.Column("turn_mail", sa.Boolean, nullable=False, server_default=sa.false()),
    )
    op.create_index("ix_accounts_name_key", "accounts", ["name_key"], unique=True)
    op.create_table(
        "sessions",
        sa.Column("id", sa.String(64), primary_key=True),
        of_account(),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("expires", sa.Float, nullable=False),
    )
    op.create_index("ix_sessions_account_id", "sessions", ["account_id"])
    op.create_index("ix_sessions_expires", "sessions", ["expires"])
    op.create_table(
        "transfers",
        sa.Column("code", sa.String(64), primary_key=True),
        of_game(key=False),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("expires", sa.Float, nullable=False),
    )
    # A seat's account (none: a guest's, a bot's, a hot-seat's) and the name shown at it. No
    # foreign key: deleting an account clears it by hand and keeps "former player" as the name.
    op.add_column("seats", sa.Column("account_id", sa.String(16), nullable=True))
    op.add_column("seats", sa.Column("name", sa.String(64), nullable=True))
    op.create_index("ix_seats_account_id", "seats", ["account_id"])
