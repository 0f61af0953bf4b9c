"""The play server (`cradle serve`): HTTP and WebSocket API, storage, bots and the web client.

Needs the ``server`` extra (of the distribution ``cradle-games``); nothing here is imported by the
rest of the package, so the engines and the terminal work without it.
"""
