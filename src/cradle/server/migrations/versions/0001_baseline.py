"""The schema of the last server before Alembic, reached from nothing or from any older file.

A database made before Alembic has some of these tables and columns already: the ones it lacks
are added, with the values older servers' rows get (what the server's hand-written list of
added columns did), and the indexes are made where missing. On an empty database this simply
creates the schema.
"""

import sqlalchemy as sa
from alembic import op

from cradle.server.migrations import of_game

revision, down_revision = "0001_baseline", None


def _tables() -> list[sa.Table]:
    meta = sa.MetaData()
    games = sa.Table(
        "games",
        meta,
        sa.Column("id", sa.String(40), primary_key=True),
        sa.Column("game", sa.String(20), nullable=False),
        sa.Column("players", sa.JSON, nullable=False),
        sa.Column("seed", sa.BigInteger, nullable=False),
        sa.Column("options", sa.JSON, nullable=False),
        sa.Column("seats", sa.JSON, nullable=False),
        sa.Column("hotseat", sa.Boolean, nullable=False),
        sa.Column("listed", sa.Boolean, nullable=False),
        sa.Column("table_token", sa.String(64), nullable=True),
        sa.Column("status", sa.String(10), nullable=False, index=True),
        sa.Column("moves", sa.Integer, nullable=False),
        sa.Column("result", sa.JSON, nullable=True),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("updated", sa.Float, nullable=False, index=True),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("bot_turn", sa.Boolean, nullable=False, index=True),
        sa.Column("bot_seats", sa.Integer, nullable=False),
        sa.Column("bot_seconds", sa.Float, nullable=True),
        sa.Column("client", sa.String(32), nullable=True, index=True),
        sa.Column("played", sa.Boolean, nullable=False, server_default=sa.false()),
    )

    return [
        games,
        sa.Table(
            "seats",
            meta,
            of_game(),
            sa.Column("seat", sa.Integer, primary_key=True),
            sa.Column("token", sa.String(64), nullable=False),
            sa.Column("claimed", sa.Boolean, nullable=False),
        ),
        sa.Table(
            "invites",
            meta,
            of_game(),
            sa.Column("seat", sa.Integer, primary_key=True),
            sa.Column("code", sa.String(64), nullable=False),
            sa.Column("expires", sa.Float, nullable=True),
        ),
        sa.Table(
            "actions",
            meta,
            of_game(),
            sa.Column("ply", sa.Integer, primary_key=True),
            sa.Column("seat", sa.Integer, nullable=False),
            sa.Column("action", sa.String(200), nullable=False),
        ),
        sa.Table(
            "analyses",
            meta,
            of_game(),
            sa.Column("status", sa.String(10), nullable=False, index=True),
            sa.Column("done", sa.Integer, nullable=False),
            sa.Column("total", sa.Integer, nullable=False),
            sa.Column("data", sa.JSON, nullable=True),
            sa.Column("owner", sa.String(16), nullable=True),
            sa.Column("updated", sa.Float, nullable=False),
        ),
        sa.Table(
            "bot_jobs",
            meta,
            of_game(),
            sa.Column("version", sa.Integer, nullable=False),
            sa.Column("client", sa.String(32), nullable=False),
            sa.Column("cost", sa.Float, nullable=False),
            sa.Column("ready", sa.Float, nullable=False, index=True),
            sa.Column("owner", sa.String(64), nullable=True),
            sa.Column("lease", sa.Float, nullable=False),
        ),
        sa.Table(
            "bot_clients",
            meta,
            sa.Column("client", sa.String(32), primary_key=True),
            sa.Column("load", sa.Float, nullable=False),
        ),
        sa.Table(
            "rates",
            meta,
            sa.Column("bucket", sa.String(16), primary_key=True),
            sa.Column("client", sa.String(32), primary_key=True),
            sa.Column("tokens", sa.Float, nullable=False),
            sa.Column("stamp", sa.Float, nullable=False, index=True),
        ),
        sa.Table(
            "bot_clocks",
            meta,
            of_game(),
            sa.Column("seat", sa.Integer, primary_key=True),
            sa.Column("spent", sa.Float, nullable=False),
        ),
    ]


# The columns older servers added one by one: (table, name, SQL type, value for the rows there).
ADDED = (
    # Old servers showed at most the moves plus one change per seat taken: start above that.
    ("games", "version", "INTEGER NOT NULL DEFAULT 0", "moves + 8"),
    ("games", "bot_turn", "BOOLEAN NOT NULL DEFAULT FALSE", "status <> 'over'"),  # found on load
    ("games", "bot_seats", "INTEGER NOT NULL DEFAULT 0", None),
    ("games", "bot_seconds", "FLOAT", None),
    # Invites made before expiries existed expire a week after their game was created.
    (
        "invites",
        "expires",
        "FLOAT",
        "(SELECT games.created FROM games WHERE games.id = invites.game_id) + 604800",
    ),
    ("games", "client", "VARCHAR(32)", None),
    ("games", "played", "BOOLEAN NOT NULL DEFAULT FALSE", "moves > 0"),  # never expire those
)


def upgrade() -> None:
    bind = op.get_bind()
    present = set(sa.inspect(bind).get_table_names())
    for table in _tables():
        if table.name not in present:
            table.create(bind)
    for where, name, kind, value in ADDED:
        columns = {column["name"] for column in sa.inspect(bind).get_columns(where)}
        if name in columns:
            continue
        op.execute(f"ALTER TABLE {where} ADD COLUMN {name} {kind}")
        if value is not None:
            op.execute(f"UPDATE {where} SET {name} = {value}")
    for table in _tables():
        made = {index["name"] for index in sa.inspect(bind).get_indexes(table.name)}
        for index in table.indexes:
            if index.name not in made:
                index.create(bind)
