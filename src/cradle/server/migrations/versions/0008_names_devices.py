"""Names that cannot pass for another's, and devices that are never locked out: each account's
name skeletons (UTS #39, cradle.server.text.name_skeletons; unique), each browser an account
signed in on, and every account's ``name_key`` made again under the NFKC rule.

An older database may hold two accounts whose names now look alike (or fold to one key): the
older account keeps the skeleton (and the key); the later one keeps its name and its old key,
and gives up only the skeleton it shares, so nobody can take a third name like theirs.

Revision ID: 0008_names_devices
Revises: 0007_action_standin
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008_names_devices"
down_revision: str | None = "0007_action_standin"
branch_labels = None
depends_on = None


def upgrade() -> None:
    from cradle.server.text import name_key, name_skeletons

    op.create_table(
        "name_skeletons",
        sa.Column("skeleton", sa.String(64), primary_key=True),
        sa.Column(
            "account_id",
            sa.String(16),
            sa.ForeignKey("accounts.id", ondelete="CASCADE"),
            nullable=False,
        ),
    )
    op.create_index("ix_name_skeletons_account_id", "name_skeletons", ["account_id"])
    op.create_table(
        "devices",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column(
            "account_id",
            sa.String(16),
            sa.ForeignKey("accounts.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("used", sa.Float, nullable=False),
    )
    op.create_index("ix_devices_account_id", "devices", ["account_id"])
    op.create_index("ix_devices_used", "devices", ["used"])
    connection = op.get_bind()
    accounts = sa.table(
        "accounts",
        sa.column("id", sa.String),
        sa.column("name", sa.String),
        sa.column("name_key", sa.String),
        sa.column("created", sa.Float),
    )
    skeletons = sa.table(
        "name_skeletons", sa.column("skeleton", sa.String), sa.column("account_id", sa.String)
    )
    rows = connection.execute(
        sa.select(accounts.c.id, accounts.c.name, accounts.c.name_key).order_by(
            accounts.c.created, accounts.c.id
        )
    ).all()
    keys = {str(row.name_key) for row in rows}
    taken: set[str] = set()
    for row in rows:
        name = str(row.name)
        key = name_key(name)
        if key != row.name_key and key not in keys:
            connection.execute(
                sa.update(accounts).where(accounts.c.id == row.id).values(name_key=key)
            )
            keys.add(key)
        for skeleton in sorted(name_skeletons(name) - taken):
            connection.execute(sa.insert(skeletons).values(skeleton=skeleton, account_id=row.id))
            taken.add(skeleton)


def downgrade() -> None:
    raise NotImplementedError("cradle's databases only move forward (restore a backup instead)")
