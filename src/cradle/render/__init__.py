"""Pictures of a game from a view (``state.view(seat)``): rich text for terminals and SVG.

They read only views, so a picture shows exactly what that seat may know, and the games'
analysis API for the board's geometry. The CLI and the research adapters use them.
"""
