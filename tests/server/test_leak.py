"""Full games over WebSockets: every frame to every seat and to a spectator, and every seat's
record before the end, must be the same in every world that seat cannot tell from the real one.

After each move, for each receiver (a seat, or a spectator):
- the frame holds no seed, token, bag or other seat's hand, its view is exactly the engine's
  ``view(seat)`` and it lists legal actions only when the seat decides;
- **the hidden parts are dealt again**: the state before the move is re-dealt
  (``sample_hidden``) in everything the receiver cannot see, and the mover's action is replaced
  by one that leads, in that world, to the very view the receiver has now (another swap of the
  same size, say). The server's frame for that world, every field of it ``table.*`` included
  (the last action, the events, the undo flag...), and the receiver's record so far must equal
  the real ones. Anything that differs is hidden information leaking.

A move that draws for the receiver itself, or turns over hidden tiles for all (an epoch tile
in Gheos), rightly shows different things in another world: those frames find no indistinguishable
world and are only checked by the first rule; the tests count how many were re-dealt.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
from fastapi.testclient import TestClient

from cradle.core.record import GameRecord
from cradle.server.app import create_app
from cradle.server.archive import record_for
from cradle.server.history import Step, history_for, replay_steps, step_of
from cradle.server.hub import Hub
from cradle.server.limits import UNLIMITED_CLIENTS, Limits
from cradle.server.table import Table
from tests.helpers.server import GAMES, auth, create, token_of

# (Gheos calls its scoring tokens "tokens": that key is public; seat tokens are checked by value.)
FORBIDDEN_KEYS = {"bag", "seed", "hands", "table_token", "stacks", "stack", "discards"}
WRAPPER_KEYS = {"type", "to_move", "legal_actions", "table"}
WORLDS = 4  # re-dealt worlds tried per frame before it counts as a reveal
CANDIDATES = 30  # alternative actions tried per world
PILE = {"tigris": "bag", "gheos": "stack"}
RECORD_EVERY = 10  # compared frames between two reads of the record endpoint itself


@pytest.fixture
def client(db_url: str) -> Iterator[TestClient]:
    # Every request here comes from one test client, as fast as the machine goes: the read
    # and move limits (tested in their own tests) would answer 429 on a quick run.
    limits = Limits.from_dict(UNLIMITED_CLIENTS)
    with TestClient(create_app(db_url, bot_delay=0, limits=limits)) as test_client:
        yield test_client


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


def check_frame(table: Table, seat: int | None, frame: dict[str, Any], secrets: list[str]) -> None:
    text = json.dumps(frame)
    state = table.state
    assert str(table.record.seed) not in text
    assert not any(secret in text for secret in secrets)
    assert not keys_in(frame) & FORBIDDEN_KEYS
    view = {k: v for k, v in frame.items() if k not in WRAPPER_KEYS}
    engine_view = {k: v for k, v in state.view(seat).items() if k not in WRAPPER_KEYS}
    assert view == json.loads(json.dumps(engine_view))
    deciding = seat is not None and not state.is_over and state.to_move == seat
    assert frame["legal_actions"] == (state.legal_actions() if deciding else [])


def other_world(table: Table, seat: int | None, rng: random.Random) -> Table | None:
    """The table in a world the receiver cannot tell from this one, or None if the last move
    revealed something (no such world found)."""
    before = table.previous
    if before is None or not table.record.actions:
        return None
    mover = table.action_seats[-1]
    if seat == mover:
        return None  # the receiver's own move: it may have drawn, which it rightly sees
    players = len(table.seats)
    knower = seat if seat is not None else (mover + 1) % players  # a spectator knows less
    real_action = table.record.actions[-1]
    seen = table.state.view(knower)
    for _world in range(WORLDS):
        world = holding(before.sample_hidden(knower, rng), table, mover, knower, real_action, rng)
        kind = real_action.split()[0]
        legal = [a for a in world.legal_actions() if a.split()[0] == kind]
        rng.shuffle(legal)
        if real_action in legal:  # most actions show on the table: try the same one first
            legal.remove(real_action)
            legal.insert(0, real_action)
        for action in legal[:CANDIDATES]:
            after = world.clone()
            events = after.apply(action)
            if after.view(knower) != seen or after.to_move != table.state.to_move:
                continue
            record = GameRecord(
                game=table.record.game,
                players=list(table.record.players),
                seed=table.record.seed,
                options=dict(table.record.options),
                actions=[*table.record.actions[:-1], action],
            )
            return replace(
                table,
                state=after,
                previous=world,
                record=record,
                events=list(events or []),
                connections=set(),
                undo_cache=(-1, {}),
            )
    return None


def last_step(table: Table) -> Step:
    """The history step of the table's last move (its state before and after it)."""
    assert table.previous is not None
    return step_of(
        table.game,
        table.previous,
        table.state,
        table.action_seats[-1],
        table.record.actions[-1],
        table.events,
    )


def holding(
    world: Any, table: Table, mover: int, knower: int, action: str, rng: random.Random
) -> Any:
    """``world`` with the tile the action shows (``place t27 ...``, ``tile red K2``) in the
    mover's hand, where the re-deal may have put it elsewhere: the move says the mover held it.
    Only what the knower cannot see moves (``with_hidden``)."""
    words = action.split()
    if len(words) < 2:
        return world
    piece = words[1]
    hands = [list(world.hand(s)) for s in range(len(table.seats))]
    if piece in hands[mover] or not hands[mover]:
        return world
    pile = list(world.to_position()[PILE[table.record.game]])
    places = [hands[s] for s in range(len(hands)) if s not in (mover, knower)] + [pile]
    for place in places:
        if piece in place:
            given = rng.randrange(len(hands[mover]))
            place[place.index(piece)], hands[mover][given] = hands[mover][given], piece
            try:
                return world.with_hidden(hands, pile)
            except ValueError:
                return world
    return world


def play_and_scan(
    client: TestClient, game: str, players: int, options: dict[str, Any], rng: random.Random
) -> tuple[int, int]:
    """Play one game to its end at random; (frames scanned, frames compared in another world)."""
    created = create(client, game, players=players, options=options)
    game_id = created["id"]
    hub: Hub = client.app.state.hub  # type: ignore[attr-defined]
    tokens = [token_of(created, s) for s in range(players)]
    secrets = tokens + [s["invite"] for s in created["seats"] if s["invite"]]
    receivers: list[int | None] = [*range(players), None]
    sockets = [client.websocket_connect(f"/ws/games/{game_id}").__enter__() for _ in receivers]
    scanned = compared = 0
    steps: list[Step] = []  # the history so far, step by step as the moves come
    try:
        for ws, seat in zip(sockets, receivers, strict=True):
            ws.send_json({"token": tokens[seat]} if seat is not None else {})
        frames = [ws.receive_json() for ws in sockets]
        table = hub.tables[game_id]
        while True:
            if table.record.actions and len(steps) < table.ply:
                assert table.previous is not None
                steps.append(last_step(table))
            for seat, frame in zip(receivers, frames, strict=True):
                assert frame["table"]["version"] == table.version
                check_frame(table, seat, frame, secrets)
                scanned += 1
                world = other_world(table, seat, rng)
                if world is None:
                    continue
                compared += 1
                shadow = hub.frame(world, seat).model_dump(mode="json", exclude_unset=True)
                shadow["type"] = "view"
                assert shadow == frame, f"seat {seat} frame leaks"
                # The history (the game log) a receiver gets is the same in that world too.
                history = history_for(game, steps, seat)
                shadow_steps = [*steps[:-1], last_step(world)]
                assert history_for(game, shadow_steps, seat) == history, f"{seat} history leaks"
                if compared % RECORD_EVERY == 0:  # and it is what the endpoint answers
                    answer = client.get(
                        f"/api/games/{game_id}/history",
                        headers=auth(tokens[seat]) if seat is not None else {},
                    ).json()
                    assert answer["steps"] == json.loads(json.dumps(history["steps"]))
                    assert answer["pieces"] == history["pieces"]
                if seat is not None and not table.is_over:
                    known = record_for(table, seat)
                    assert known == record_for(world, seat), f"seat {seat} record leaks"
                    if compared % RECORD_EVERY == 0:  # and it is what the endpoint answers
                        url = f"/api/games/{game_id}/record"
                        assert client.get(url, headers=auth(tokens[seat])).json() == known
            if frames[0]["table"]["status"] == "over":
                break
            mover = frames[0]["to_move"]
            actions = frames[mover]["legal_actions"]
            sockets[mover].send_json({"action": rng.choice(actions)})
            frames = [ws.receive_json() for ws in sockets]
        assert table.is_over
        assert replay_steps(table.record, table.action_seats) == steps  # the endpoint's way
        for seat in range(players):
            answer = client.get(f"/api/games/{game_id}", headers=auth(tokens[seat]))
            assert str(table.record.seed) not in answer.text
            assert not any(secret in answer.text for secret in secrets)
    finally:
        for ws in sockets:
            ws.__exit__(None, None, None)
    return scanned, compared


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
    scanned, compared = play_and_scan(client, "tigris", players, options, random.Random(players))
    assert scanned > 100 and compared > scanned // 3


@pytest.mark.skipif("gheos" not in GAMES, reason="needs the Gheos engine")
@pytest.mark.parametrize("players", [2, 3, 4])
def test_gheos_frames_hold_no_secrets(client: TestClient, players: int) -> None:
    # A Gheos game can be short (it ends once every scoring token is played): play two.
    rng = random.Random(players)
    scanned = compared = 0
    for _ in range(2):
        found = play_and_scan(client, "gheos", players, {}, rng)
        scanned, compared = scanned + found[0], compared + found[1]
    assert scanned > 20 * (players + 1) and compared > scanned // 3


@pytest.mark.skipif("tigris" not in GAMES, reason="needs the Tigris engine")
def test_the_redealt_world_catches_a_shown_swap(client: TestClient) -> None:
    """The check above can fail: a frame that showed another seat's swapped tiles (as the
    server once did) differs from its re-dealt world."""
    created = create(client)
    game_id = created["id"]
    hub: Hub = client.app.state.hub  # type: ignore[attr-defined]
    table = hub.tables[game_id]
    mover = table.to_move()
    assert mover is not None
    swap = max(
        (a for a in table.state.legal_actions() if a.startswith("swap")), key=lambda a: len(a)
    )
    moved = client.post(
        f"/api/games/{game_id}/actions",
        json={"action": swap},
        headers=auth(token_of(created, mover)),
    )
    assert moved.status_code == 200
    other = 1 - mover
    worlds = (other_world(table, other, random.Random(n)) for n in range(100))
    world = next(w for w in worlds if w is not None and w.record.actions[-1] != swap)
    frame = hub.frame(table, other).model_dump(exclude_unset=True)
    assert frame["table"]["last"]["action"] == f"swap {len(swap.split()) - 1}"
    leaky = dict(frame["table"], last={"seat": mover, "action": swap})
    assert leaky != hub.frame(world, other).model_dump(exclude_unset=True)["table"]
