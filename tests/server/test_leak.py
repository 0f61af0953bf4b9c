"""Full games over WebSockets, every frame to every seat scanned for what it must not hold.

For each frame sent to a seat, while the game stands still at that frame:
- the seed, the bag and other seats' secrets never appear (no such key, no seed digits);
- the view part is exactly the engine's ``view(seat)`` and the legal actions are the seat's own
  only when it decides: the server adds nothing of its own beyond public table facts;
- every few frames, the view and legal actions are rebuilt from a state that differs only in
  what the seat cannot know (``sample_hidden``): they must not change.
(Events are not resampled: a draw rightly makes public what was hidden a moment before, like
an epoch tile turned over; the contract keeps events to public information.)
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from fastapi.testclient import TestClient

from cradle.server.hub import Hub, Table
from tests.server.conftest import GAMES, create, token_of

# (Gheos calls its scoring tokens "tokens": that key is public; seat tokens are checked by value.)
FORBIDDEN_KEYS = {"bag", "seed", "hands", "table_token", "stacks", "stack"}
WRAPPER_KEYS = {"type", "to_move", "legal_actions", "table"}
SAMPLE_EVERY = 5


def keys_in(value: Any) -> set[str]:
    found: set[str] = set()
    if isinstance(value, dict):
        for key, inner in value.items():
            found.add(str(key))
            found |= keys_in(inner)
    elif isinstance(value, list):
        for inner in value:
            found |= keys_in(inner)
    return found


def check_frame(
    hub: Hub, table: Table, seat: int | None, text: str, number: int, secrets: list[str]
) -> None:
    frame = json.loads(text)
    state = table.state
    assert str(table.record.seed) not in text
    assert not any(secret in text for secret in secrets)
    assert not keys_in(frame) & FORBIDDEN_KEYS
    view = {k: v for k, v in frame.items() if k not in WRAPPER_KEYS}
    engine_view = {k: v for k, v in state.view(seat).items() if k not in WRAPPER_KEYS}
    assert view == json.loads(json.dumps(engine_view))
    deciding = seat is not None and not state.is_over and state.to_move == seat
    assert frame["legal_actions"] == (state.legal_actions() if deciding else [])
    assert set(frame["table"]) <= {
        *table.summary(),
        "version",
        "seat",
        "screen",
        "events",
        "last",
        "can_undo",
        "result",
    }
    if table.record.game == "tigris":
        check_tigris(state, seat, frame)
    if seat is None or number % SAMPLE_EVERY:
        return
    rng = random.Random(number)
    sample = state.sample_hidden(seat, rng)
    assert sample.view(seat) == state.view(seat)
    assert (sample.legal_actions() if deciding else []) == frame["legal_actions"]


def check_tigris(state: Any, seat: int | None, frame: dict[str, Any]) -> None:
    position = state.to_position()
    players = list(state.players)
    if seat is None:
        assert not frame.get("hand")
    else:
        assert frame["hand"] == position["hands"][players[seat]]
    if not position["options"]["open_scoring"] and not state.is_over:
        shown = set(frame.get("points") or {})
        assert shown <= ({players[seat]} if seat is not None else set())


def play_and_scan(client: TestClient, game: str, players: int, options: dict[str, Any]) -> int:
    created = create(client, game, players=players, options=options)
    game_id = created["id"]
    hub: Hub = client.app.state.hub  # type: ignore[attr-defined]
    rng = random.Random(f"{game}{players}")
    tokens = [token_of(created, s) for s in range(players)]
    urls = [f"/ws/games/{game_id}?token={token}" for token in tokens]
    urls.append(f"/ws/games/{game_id}")  # a spectator
    sockets = [client.websocket_connect(url).__enter__() for url in urls]
    seats: list[int | None] = [*range(players), None]
    scanned = 0
    try:
        texts = [ws.receive_text() for ws in sockets]
        # Arrivals of later seats reach the earlier ones: drain until all agree.
        table = hub.tables.get(game_id) or hub.finished[game_id]
        for ws, index in zip(sockets, range(len(sockets)), strict=True):
            while json.loads(texts[index])["table"]["version"] < table.version:
                texts[index] = ws.receive_text()
        while True:
            for seat, text in zip(seats, texts, strict=True):
                check_frame(hub, table, seat, text, scanned, tokens)
                scanned += 1
            first = json.loads(texts[0])
            if first["table"]["status"] == "over":
                break
            mover = first["to_move"]
            actions = json.loads(texts[mover])["legal_actions"]
            sockets[mover].send_json({"action": rng.choice(actions)})
            texts = [ws.receive_text() for ws in sockets]
        assert table.is_over
        for seat in range(players):
            answer = client.get(f"/api/games/{game_id}?token={token_of(created, seat)}")
            assert str(table.record.seed) not in answer.text
            assert not any(token in answer.text for token in tokens)
    finally:
        for ws in sockets:
            ws.__exit__(None, None, None)
    return scanned


TIGRIS_TABLES = [
    (2, {}),
    (3, {"board": "advanced", "buildings": True, "wonder": True, "english": True}),
    (4, {"open_scoring": True}),
]


@pytest.mark.skipif("tigris" not in GAMES, reason="needs the Tigris engine")
@pytest.mark.parametrize(("players", "options"), TIGRIS_TABLES)
def test_tigris_frames_hold_no_secrets(
    client: TestClient, players: int, options: dict[str, Any]
) -> None:
    assert play_and_scan(client, "tigris", players, options) > 100


@pytest.mark.skipif("gheos" not in GAMES, reason="needs the Gheos engine")
@pytest.mark.parametrize("players", [2, 3, 4])
def test_gheos_frames_hold_no_secrets(client: TestClient, players: int) -> None:
    # A Gheos game can be short (it ends once every scoring token is played): play two.
    scanned = play_and_scan(client, "gheos", players, {})
    scanned += play_and_scan(client, "gheos", players, {})
    assert scanned > 20 * (players + 1)
