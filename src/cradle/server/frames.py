"""The frame of a table: what a seat (a spectator, a hot-seat screen) is shown of it, over HTTP
and in the WebSocket's ``view`` messages, built as the response models say (cradle.server.answers).

Version 2 of the API (docs/server.md, "Versions") sends the game's view and the table's state
side by side, ``{"view", "legal_actions", "table"}``: the view is the game's own, its
``to_move`` included, and ``table.to_move`` says who decides at the table (nobody once the game
is over, however it ended). Version 1, the default, sends the same merged into one object, the
view's keys beside ``to_move`` (the table's), ``legal_actions`` and ``table``."""

from __future__ import annotations

from cradle.server import answers
from cradle.server.redact import public_action, public_events
from cradle.server.table import Table


def table_state(
    table: Table, seat: int | None, hotseat: bool, can_undo: bool, hints: bool
) -> answers.FrameTable:
    """The table part of a frame, as ``seat`` (None: spectators; ``hotseat``: the hot-seat
    screen, showing ``seat``) may know it."""
    last = None
    if table.record.actions:
        mover = table.action_seats[-1]
        action = public_action(table.game, table.record.actions[-1], mover, seat)
        last = answers.LastAction(seat=mover, action=action, standin=table.action_standins[-1])
    return answers.FrameTable.model_validate(
        {
            **table.summary(),
            "version": table.version,
            "seat": seat,
            "screen": "hotseat" if hotseat else ("seat" if seat is not None else "spectator"),
            "events": public_events(table.game, table.events, seat),
            "last": last,
            "can_undo": can_undo,
            "hints": hints,
            "spectator_chat": table.spectator_chat,
            "result": table.result() if table.is_over else None,
        }
    )


def frame(
    table: Table,
    seat: int | None,
    hotseat: bool,
    can_undo: bool,
    hints: bool,
    api: int,
    message: bool = False,
) -> answers.Frame | answers.TableFrame:
    """What ``seat`` may see (a spectator: None; a hot-seat screen: the seat it shows), with
    its legal actions when it decides, in the shape of version ``api`` of the API; with
    ``message``, as the WebSocket's ``{"type": "view", ...}``."""
    to_move = table.to_move()
    view = dict(table.state.view(seat))
    deciding = seat is not None and to_move == seat
    legal = list(table.state.legal_actions()) if deciding else []
    state = table_state(table, seat, hotseat, can_undo, hints)
    typed = {"type": "view"} if message else {}
    if api >= 2:
        shape = answers.ViewMessage if message else answers.TableFrame
        return shape.model_validate({"view": view, "legal_actions": legal, "table": state, **typed})
    merged = answers.MergedViewMessage if message else answers.Frame
    return merged.model_validate(
        {**view, "to_move": to_move, "legal_actions": legal, "table": state, **typed}
    )
