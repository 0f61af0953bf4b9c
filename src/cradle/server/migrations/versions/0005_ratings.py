"""People's ratings: rated games, each account's rating per game and number of players, and
what each rated game changed (the profile's chart).
"""

import sqlalchemy as sa
from alembic import op

from cradle.server.migrations import of_account, of_game

revision, down_revision = "0005_ratings", "0004_chat"


def upgrade() -> None:
    op.add_column(
        "games", sa.Column("rated", sa.Boolean, nullable=False, server_default=sa.false())
    )
    op.create_table(
        "ratings",
        of_account(key=True),
        sa.Column("game", sa.String(20), primary_key=True),
        sa.Column("players", sa.Integer, primary_key=True),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("updated", sa.Float, nullable=False),
    )
    op.create_table(
        "rating_changes",
        of_game(),
        of_account(key=True),
        sa.Column("game", sa.String(20), nullable=False),
        sa.Column("players", sa.Integer, nullable=False),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("place", sa.Integer, nullable=False),
        sa.Column("mu_before", sa.Float, nullable=False),
        sa.Column("sigma_before", sa.Float, nullable=False),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("at", sa.Float, nullable=False),
    )
    op.create_index("ix_rating_changes_account_id", "rating_changes", ["account_id"])
    op.create_index("ix_rating_changes_at", "rating_changes", ["at"])
