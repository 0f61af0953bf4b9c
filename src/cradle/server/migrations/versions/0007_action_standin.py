"""Who really made each move: the stand-in bot level that played an action for its seat's
person (NULL: the seat's own player, a person or the seat's bot), so that the log names the
stand-in, not the person.

Revision ID: 0007_action_standin
Revises: 0006_turns_due
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007_action_standin"
down_revision: str | None = "0006_turns_due"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # The moves stored before do not say: they read as their seat's own.
    op.add_column("actions", sa.Column("standin", sa.String(40), nullable=True))


def downgrade() -> None:
    raise NotImplementedError("cradle's databases only move forward (restore a backup instead)")
