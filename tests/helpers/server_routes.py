"""Imported by the tests' fork server (tests/helpers/server.py, SERVER_PRELOAD): the server's
routes, which every server process makes once (cradle.server.app.api_routes), are made there
once, and each PlayServer forked from it finds them made."""

from cradle.server.app import api_routes

api_routes()
