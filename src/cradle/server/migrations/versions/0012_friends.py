"""Accounts people trust, and friends: a verified address (no mail but its check goes to an
address before), the invitation mails' opt-in, when an account was last online, why a session
ended (a device is told), mailed one-time codes to reset a password or check an address,
friendships, blocks, and friends' invitations to seats."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision, down_revision = "0012_friends", "0011_moderation"


def _account(name: str, primary_key: bool = False, nullable: bool = False) -> sa.Column[str]:
    """A column naming an account, whose rows go with the account."""
    return sa.Column(
        name,
        sa.String(16),
        sa.ForeignKey("accounts.id", ondelete="CASCADE"),
        primary_key=primary_key,
        nullable=nullable,
    )


def upgrade() -> None:
    # Addresses stored before were never checked: no mail goes to them until their person opens
    # the link of a check (the account page sends one).
    for column in ("email_verified", "invite_mail"):
        op.add_column(
            "accounts", sa.Column(column, sa.Boolean, nullable=False, server_default=sa.false())
        )
    op.add_column("accounts", sa.Column("seen", sa.Float, nullable=True))
    op.add_column("sessions", sa.Column("ended", sa.String(16), nullable=True))
    for table in ("password_resets", "email_checks"):
        columns = [
            sa.Column("code", sa.String(64), primary_key=True),
            _account("account_id"),
        ]
        if table == "email_checks":
            columns.append(sa.Column("email", sa.String(254), nullable=False))
        op.create_table(
            table,
            *columns,
            sa.Column("created", sa.Float, nullable=False),
            sa.Column("expires", sa.Float, nullable=False),
        )
        op.create_index(f"ix_{table}_account_id", table, ["account_id"])
        op.create_index(f"ix_{table}_expires", table, ["expires"])
    op.create_table(
        "friendships",
        _account("asker", primary_key=True),
        _account("asked", primary_key=True),
        sa.Column("accepted", sa.Boolean, nullable=False),
        sa.Column("created", sa.Float, nullable=False),
    )
    op.create_index("ix_friendships_asked", "friendships", ["asked"])
    op.create_table(
        "blocks",
        _account("blocker", primary_key=True),
        _account("blocked", primary_key=True),
        sa.Column("created", sa.Float, nullable=False),
    )
    op.create_index("ix_blocks_blocked", "blocks", ["blocked"])
    op.create_table(
        "invitations",
        sa.Column("id", sa.String(16), primary_key=True),
        sa.Column(
            "game_id",
            sa.String(40),
            sa.ForeignKey("games.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("seat", sa.Integer, nullable=False),
        _account("account_id"),
        _account("sender"),
        sa.Column("created", sa.Float, nullable=False),
    )
    op.create_index("ix_invitations_game_id", "invitations", ["game_id"])
    op.create_index("ix_invitations_account_id", "invitations", ["account_id"])
