"""Turn-based tables (the time per move, the deadline of the person deciding, the seat a
stand-in bot plays for and each seat's stand-in level), games ended early (how), the creator's
seat (who may remove an unstarted table), and the e-mail turn notices: the turns claimed and
the one-time "no more mails" codes.
"""

import sqlalchemy as sa
from alembic import op

from cradle.server.migrations import of_game

revision, down_revision = "0003_turns", "0002_accounts"


def upgrade() -> None:
    # The games stored before are live tables, and none ended early.
    op.add_column("games", sa.Column("mode", sa.String(5), nullable=False, server_default="live"))
    op.add_column("games", sa.Column("deadline_s", sa.Float, nullable=True))
    op.add_column("games", sa.Column("deadline", sa.Float, nullable=True))
    op.add_column("games", sa.Column("standin", sa.Integer, nullable=True))
    op.add_column("games", sa.Column("ended_by", sa.String(10), nullable=True))
    op.add_column("games", sa.Column("creator", sa.Integer, nullable=True))
    op.add_column("seats", sa.Column("standin", sa.String(40), nullable=True))
    op.create_table(
        "turn_notices",
        of_game(),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("turn", sa.Integer, primary_key=True),
        sa.Column("sent", sa.Float, nullable=False),
    )
    op.create_table(
        "mail_stops",
        sa.Column("code", sa.String(64), primary_key=True),
        sa.Column("account_id", sa.String(16), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
    )
    op.create_index("ix_mail_stops_account_id", "mail_stops", ["account_id"])
    op.create_index("ix_mail_stops_created", "mail_stops", ["created"])
