"""An account's language: the catalogue its pages and mails speak (a BCP 47 tag: "es",
"pt-BR"), set from its browser's languages when it signs up or in, and in the account screen."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision, down_revision = "0009_account_language", "0008_names_devices"


def upgrade() -> None:
    # The accounts made before have none: their next sign-in sets it from their browser's.
    op.add_column("accounts", sa.Column("language", sa.String(16), nullable=True))
