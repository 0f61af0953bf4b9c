"""Turn notices that are not lost: an owed notice counts the tries that found the SMTP server
down (``tries``), and is owed again from ``due`` (a later time after each such try)."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision, down_revision = "0010_notice_retries", "0009_account_language"


def upgrade() -> None:
    # The notices owed before were never tried.
    op.add_column(
        "due_notices",
        sa.Column("tries", sa.Integer(), nullable=False, server_default=sa.text("0")),
    )
