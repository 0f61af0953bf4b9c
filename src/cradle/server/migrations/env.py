"""Alembic's entry: runs the revisions on the connection cradle.server.migrations passes in."""

from __future__ import annotations

from alembic import context
from sqlalchemy.engine import Connection

connection = context.config.attributes.get("connection")
if not isinstance(connection, Connection):
    raise RuntimeError("run the migrations through `cradle db upgrade` (or the server's start)")
context.configure(connection=connection, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
