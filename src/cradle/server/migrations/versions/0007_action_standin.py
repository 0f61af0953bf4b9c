"""Who really made each move: the stand-in bot level that played an action for its seat's
person (NULL: the seat's own player, a person or the seat's bot), so that the log names the
stand-in, not the person.
"""

import sqlalchemy as sa
from alembic import op

revision, down_revision = "0007_action_standin", "0006_turns_due"


def upgrade() -> None:
    # The moves stored before do not say: they read as their seat's own.
    op.add_column("actions", sa.Column("standin", sa.String(40), nullable=True))
