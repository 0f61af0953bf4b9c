"""Turn notices owed by the database, and stand-ins that stay: the seats whose person is away
(their stand-in bot plays each of their turns whose deadline passes, until they return), and
the e-mail notices due (a row per game, seat and turn, written with the move that began the
turn and claimed by whichever server process sends it).
"""

import sqlalchemy as sa
from alembic import op

from cradle.server.migrations import of_game

revision, down_revision = "0006_turns_due", "0005_ratings"


def upgrade() -> None:
    # The games stored before have nobody away (a stand-in then played one turn at a time).
    op.add_column("games", sa.Column("away", sa.Integer, nullable=False, server_default="0"))
    op.create_table(
        "due_notices",
        of_game(),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("turn", sa.Integer, primary_key=True),
        sa.Column("due", sa.Float, nullable=False),
    )
    op.create_index("ix_due_notices_due", "due_notices", ["due"])
