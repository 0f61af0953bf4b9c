"""Turn notices that are not lost: an owed notice counts the tries that found the SMTP server
down (``tries``), and is owed again from ``due`` (a later time after each such try).

Revision ID: 0010_notice_retries
Revises: 0009_account_language
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010_notice_retries"
down_revision: str | None = "0009_account_language"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # The notices owed before were never tried.
    op.add_column(
        "due_notices",
        sa.Column("tries", sa.Integer(), nullable=False, server_default=sa.text("0")),
    )


def downgrade() -> None:
    raise NotImplementedError("cradle's databases only move forward (restore a backup instead)")
