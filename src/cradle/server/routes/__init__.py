"""The HTTP and WebSocket routes of the play server, one module per area (:mod:`.lobby`,
:mod:`.play`, :mod:`.reading`, :mod:`.live`). Each adds its routes to the application's own
router, for one application's :class:`~cradle.server.routes.common.Context`
(:func:`cradle.server.app.create_app` calls them).
"""
