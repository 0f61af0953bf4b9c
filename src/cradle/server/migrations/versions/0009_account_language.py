"""An account's language: the catalogue its pages and mails speak (a BCP 47 tag: "es",
"pt-BR"), set from its browser's languages when it signs up or in, and in the account screen.

Revision ID: 0009_account_language
Revises: 0008_names_devices
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009_account_language"
down_revision: str | None = "0008_names_devices"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # The accounts made before have none: their next sign-in sets it from their browser's.
    op.add_column("accounts", sa.Column("language", sa.String(16), nullable=True))


def downgrade() -> None:
    raise NotImplementedError("cradle's databases only move forward (restore a backup instead)")
