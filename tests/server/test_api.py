"""The HTTP API of docs/contract.md, against the real app on a real SQLite file."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from cradle.core.record import GameRecord
from cradle.server.app import create_app
from cradle.server.limits import Limits
from cradle.server.store import Store
from tests.helpers.app import view
from tests.helpers.server import GAMES, auth, create, token_of

pytestmark = pytest.mark.skipif("tigris" not in GAMES, reason="needs the Tigris engine")


def act(client: TestClient, game_id: str, token: str | None, action: Any) -> Any:
    return client.post(
        f"/api/games/{game_id}/actions", json={"action": action}, headers=auth(token)
    )


def undo(client: TestClient, game_id: str, token: str | None) -> Any:
    return client.post(f"/api/games/{game_id}/undo", headers=auth(token))


def test_create_gives_tokens_to_human_seats_only(client: TestClient) -> None:
    created = create(client, players=3, seats=["human", "bot:random", "human"])
    assert sorted(s["seat"] for s in created["seats"]) == [0, 2]
    # An invite for the other human seat; none for the creator's own (they hold its token).
    assert [s["invite"] is None for s in created["seats"]] == [True, False]
    tokens = [s["token"] for s in created["seats"]] + [created["seats"][1]["invite"]]
    assert len(set(tokens)) == 3 and all(len(t) >= 24 for t in tokens)
    assert "seed" not in created
    assert len(created["players"]) == 3
    # The creator's seats are taken from the start: the table is running, not open.
    seen = view(client, created["id"])["table"]
    assert seen["status"] == "running" and seen["claimed"] == [True, True, True]
    assert seen["open"] == [] and seen["version"] == seen["moves"]  # (the bot may have moved)


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ({"game": "chess"}, "unknown game"),
        ({"game": "tigris", "players": 5}, "2 to 4 players"),
        ({"game": "tigris", "players": "two"}, "players: Input should be a valid integer"),
        ({"game": "tigris", "players": True}, "players: Input should be a valid integer"),
        ({"game": "tigris", "players": 2, "seats": ["human"]}, "must list 2 seats"),
        ({"game": "tigris", "players": 2, "seats": ["human", "bot:nobody"]}, "unknown bot"),
        ({"game": "tigris", "players": 2, "seats": ["human", "alien"]}, "unknown seat"),
        ({"game": "tigris", "players": 2, "seats": "human"}, "seats: Input should be a valid list"),
        ({"game": "tigris", "options": {"board": "moon"}}, "bad options"),
        ({"game": "tigris", "options": ["wonder"]}, "options: Input should be a valid dict"),
        ({"game": "tigris", "hotseat": "yes"}, "hotseat: Input should be a valid boolean"),
        ({"game": "tigris", "player": 2}, "player: Extra inputs are not permitted"),
        ({"game": "tigris", "seats": ["human", "open"], "hotseat": True}, "no open seats"),
        ({"game": "tigris", "seats": ["human", "open"], "listed": False}, "no open seats"),
        ({"game": "tigris", "bot_seconds": 0}, "bot_seconds: Input should be greater than 0"),
        ([1, 2], "JSON object"),
    ],
)
def test_create_refuses_bad_tables(client: TestClient, body: Any, reason: str) -> None:
    answer = client.post("/api/games", json=body)
    assert answer.status_code == 400
    assert reason in answer.json()["error"]
    assert client.get("/api/games").json()["games"] == []


def test_create_needs_a_json_body(client: TestClient) -> None:
    # A form or text POST from another site's page is refused before it is read.
    for kind in ("application/x-www-form-urlencoded", "text/plain", None):
        headers = {"content-type": kind} if kind else {}
        answer = client.post("/api/games", content=b'{"game": "tigris"}', headers=headers)
        assert answer.status_code == 415 and "JSON" in answer.json()["error"]
    broken = client.post(
        "/api/games", content=b"{not json", headers={"content-type": "application/json"}
    )
    assert broken.status_code == 400 and "not valid JSON" in broken.json()["error"]
    assert client.get("/api/games").json()["games"] == []


def test_every_variant_option_reaches_the_game(client: TestClient) -> None:
    options = {
        "board": "advanced",
        "buildings": True,
        "english": True,
        "wonder": True,
        "open_scoring": True,
    }
    created = create(client, players=4, options=options)
    seen = view(client, created["id"], token_of(created, 0))
    assert seen["options"] == options
    # Open scoring: every player's points are on the table.
    assert set(seen["points"]) == set(created["players"])


def test_seat_view_spectator_view_and_tokens(client: TestClient) -> None:
    created = create(client)
    game_id = created["id"]
    first = view(client, game_id)["to_move"]
    mine = view(client, game_id, token_of(created, first))
    other = view(client, game_id, token_of(created, 1 - first))
    spectator = view(client, game_id)
    assert mine["to_move"] == first and mine["legal_actions"]
    assert other["legal_actions"] == [] and spectator["legal_actions"] == []
    assert len(mine["hand"]) == 6 and mine["table"]["seat"] == first
    assert not spectator.get("hand") and spectator["table"]["seat"] is None
    assert set(mine["points"]) == {created["players"][first]}
    assert not spectator.get("points")
    wrong = client.get(f"/api/games/{game_id}", headers=auth("not-a-token"))
    assert wrong.status_code == 403
    assert client.get("/api/games/nosuchgame").status_code == 404


def test_tokens_in_urls_are_refused(client: TestClient) -> None:
    created = create(client)
    token = token_of(created, 0)
    for url in (
        f"/api/games/{created['id']}?token={token}",
        f"/api/games/{created['id']}/record?token={token}",
        f"/api/games?token={token}",
    ):
        answer = client.get(url)
        assert answer.status_code == 400 and "never travel in URLs" in answer.json()["error"]
    moved = client.post(
        f"/api/games/{created['id']}/actions?token={token}", json={"action": "pass"}
    )
    assert moved.status_code == 400
    # A token in the body is ignored (not a way around the header).
    assert (
        client.post(
            f"/api/games/{created['id']}/actions", json={"action": "pass", "token": token}
        ).status_code
        == 403
    )
    malformed = client.get(f"/api/games/{created['id']}", headers={"Authorization": token})
    assert malformed.status_code == 400 and "Bearer" in malformed.json()["error"]
    assert view(client, created["id"])["table"]["moves"] == 0


def test_moves_need_the_deciding_seats_token(client: TestClient) -> None:
    created = create(client)
    game_id = created["id"]
    first = view(client, game_id)["to_move"]
    action = view(client, game_id, token_of(created, first))["legal_actions"][0]
    assert act(client, game_id, None, action).status_code == 403
    assert act(client, game_id, "forged", action).status_code == 403
    assert act(client, game_id, token_of(created, 1 - first), action).status_code == 403
    assert view(client, game_id)["table"]["moves"] == 0
    answer = act(client, game_id, token_of(created, first), action)
    assert answer.status_code == 200
    assert answer.json()["table"]["moves"] == 1
    assert answer.json()["table"]["last"] == {"seat": first, "action": action, "standin": None}


@pytest.mark.parametrize("action", ["tile purple Z99", "fly away", "", 42, None, "x" * 300])
def test_bad_actions_are_400_and_change_nothing(client: TestClient, action: Any) -> None:
    created = create(client)
    game_id = created["id"]
    first = view(client, game_id)["to_move"]
    token = token_of(created, first)
    before = view(client, game_id, token)
    answer = act(client, game_id, token, action)
    assert answer.status_code == 400
    assert answer.json()["error"]
    after = view(client, game_id, token)
    assert after["hand"] == before["hand"] and after["board"] == before["board"]
    assert after["table"]["moves"] == 0


def test_oversized_and_malformed_bodies_are_refused(client: TestClient) -> None:
    created = create(client)
    url = f"/api/games/{created['id']}/actions"
    headers = {"content-type": "application/json", **auth(token_of(created, 0))}
    big = client.post(url, content=b'{"action": "' + b"x" * 40000 + b'"}', headers=headers)
    assert big.status_code == 413 and "larger than" in big.json()["error"]
    for content in (b"{'action': pass}", b'["pass"]', b"[" * 1500, b'{"action": NaN}'):
        broken = client.post(url, content=content, headers=headers)
        assert broken.status_code == 400 and broken.json()["error"], content
    deep = client.post(url, content=b'{"a":' * 40 + b"1" + b"}" * 40, headers=headers)
    assert deep.status_code == 400 and "nests deeper" in deep.json()["error"]
    assert view(client, created["id"])["table"]["moves"] == 0


def test_record_is_secret_until_the_end(client: TestClient) -> None:
    created = create(client)
    game_id = created["id"]
    assert client.get(f"/api/games/{game_id}/record").status_code == 403
    own = client.get(f"/api/games/{game_id}/record", headers=auth(token_of(created, 0)))
    assert own.status_code == 200
    assert "seed" not in own.json() and own.json()["actions"] == []
    assert client.get(f"/api/games/{game_id}/replay").status_code == 403


def wait_until_over(client: TestClient, game_id: str, seconds: float = 60) -> dict[str, Any]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        seen = view(client, game_id)
        if seen["table"]["status"] == "over":
            return seen
        time.sleep(0.05)
    raise AssertionError(f"game {game_id} did not end within {seconds} s")


def test_bots_play_to_the_end_and_the_record_replays(client: TestClient) -> None:
    created = create(client, seats=["bot:random", "bot:random"])
    assert created["seats"] == []
    final = wait_until_over(client, created["id"])
    assert final["table"]["result"] and final["to_move"] is None
    record = GameRecord.from_dict(client.get(f"/api/games/{created['id']}/record").json())
    assert len(record.actions) == final["table"]["moves"]
    replayed = record.replay()
    assert replayed.is_over and replayed.result() == final["table"]["result"]
    replay = client.get(f"/api/games/{created['id']}/replay?seat=0").json()
    assert len(replay["steps"]) == len(record.actions) + 1
    # Each step's action as seat 0 knew it: the other seat's swaps show only their size.
    for step, action in zip(replay["steps"][1:], record.actions, strict=True):
        if step["seat"] == 0 or not action.startswith("swap"):
            assert step["action"] == action
        else:
            assert step["action"] == f"swap {len(action.split()) - 1}"
    assert replay["steps"][-1]["view"]["is_over"]
    lobby = client.get("/api/games").json()["games"]
    assert [(g["id"], g["status"]) for g in lobby] == [(created["id"], "over")]


def test_lobby_offers_only_the_seats_the_creator_opened(client: TestClient) -> None:
    opened = create(client, players=3, seats=["human", "open", "bot:random"])
    mine = create(client, seats=["human", "human"])  # both seats the creator's: not offered
    create(client, seats=["human", "human"], listed=False)
    lobby = client.get("/api/games").json()["games"]
    assert sorted(g["id"] for g in lobby) == sorted([opened["id"], mine["id"]])
    shown = {g["id"]: g for g in lobby}
    assert shown[opened["id"]]["status"] == "open" and shown[opened["id"]]["open"] == [1]
    assert shown[mine["id"]]["status"] == "running" and "seed" not in shown[mine["id"]]
    assert [s["seat"] for s in opened["seats"]] == [0]  # no token for the open seat
    # Nobody can take the creator's own seats from the lobby.
    refused = client.post(f"/api/games/{mine['id']}/join", json={})
    assert refused.status_code == 403 and "no open seat" in refused.json()["error"]
    before = view(client, opened["id"])["table"]
    joined = client.post(f"/api/games/{opened['id']}/join").json()
    assert joined["seat"] == 1
    seen = view(client, opened["id"], joined["token"])["table"]
    # The join is one change, each bot move another: the bot (seat 2) may have moved before the
    # join or after it, when the deal made it first (a game is made at version 0).
    assert seen["seat"] == 1 and seen["status"] == "running"
    assert before["version"] == before["moves"] and seen["version"] == 1 + seen["moves"]
    assert client.post(f"/api/games/{opened['id']}/join").status_code == 403
    assert view(client, opened["id"], token_of(opened, 0))["table"]["seat"] == 0


def test_the_lobby_names_the_people_at_a_table_this_process_has_not_loaded(db_url: str) -> None:
    """A guest's seat is named alike in the lobby and at the table, whether or not the process
    answering the lobby holds the table (another process's, or one after a restart)."""
    with TestClient(create_app(db_url, bot_delay=0)) as first:
        made = first.post(
            "/api/games",
            json={"game": GAMES[0], "seats": ["human", "open"], "name": "Guest 3868"},
        ).json()
        first.post(f"/api/games/{made['id']}/join", json={"name": "Guest 4242"})
        loaded = first.get("/api/games").json()["games"]
    with TestClient(create_app(db_url, bot_delay=0)) as second:
        assert made["id"] not in second.app.state.hub.served.loaded
        listed = second.get("/api/games").json()["games"]
    assert [g["names"] for g in listed] == [g["names"] for g in loaded]
    assert listed[0]["names"] == ["Guest 3868", "Guest 4242"]


def test_an_invite_code_is_exchanged_once_for_the_seat(client: TestClient) -> None:
    created = create(client, seats=["human", "human"], listed=False)
    game_id = created["id"]
    invite = created["seats"][1]["invite"]
    before = view(client, game_id)["table"]
    assert before["invites"] == [1]
    wrong = client.post(f"/api/games/{game_id}/join", json={"invite": "forged"})
    assert wrong.status_code == 403 and view(client, game_id)["table"] == before
    joined = client.post(f"/api/games/{game_id}/join", json={"invite": invite}).json()
    assert joined["seat"] == 1 and joined["token"] != token_of(created, 1)
    assert view(client, game_id, joined["token"])["table"]["seat"] == 1
    after = view(client, game_id)["table"]
    assert after["invites"] == [] and after["version"] == before["version"] + 1
    # Used up, and the seat's old token went with it.
    again = client.post(f"/api/games/{game_id}/join", json={"invite": invite})
    assert again.status_code == 403 and "works once" in again.json()["error"]
    assert (
        client.get(f"/api/games/{game_id}", headers=auth(token_of(created, 1))).status_code == 403
    )


def test_a_refused_request_changes_nothing(client: TestClient) -> None:
    created = create(client, players=3, seats=["human", "open", "human"])
    game_id = created["id"]
    before = view(client, game_id)
    mover = before["to_move"]
    holder = next(s for s in (0, 2) if s != mover)
    token = token_of(created, holder)
    # Valid tokens on refused requests: a move out of turn, an undo with nothing to take back,
    # an illegal move, a join with a bad invite. None claims a seat or counts as a change.
    assert act(client, game_id, token, "pass").status_code == 403
    assert undo(client, game_id, token).status_code == 403
    if mover != 1:
        assert act(client, game_id, token_of(created, mover), "fly away").status_code == 400
    assert client.post(f"/api/games/{game_id}/join", json={"invite": "x"}).status_code == 403
    assert view(client, game_id, token)["table"]["seat"] == holder
    after = view(client, game_id)
    assert after["table"]["version"] == before["table"]["version"]
    assert after["table"]["claimed"] == [True, False, True]
    assert after == before


def first_move_that_draws_nothing(actions: list[str]) -> str:
    return next(a for a in actions if a.startswith("leader "))


def test_undo_within_a_turn(client: TestClient) -> None:
    created = create(client)
    game_id = created["id"]
    seat = view(client, game_id)["to_move"]
    token = token_of(created, seat)
    before = view(client, game_id, token)
    assert before["table"]["can_undo"] is False
    moved = act(client, game_id, token, first_move_that_draws_nothing(before["legal_actions"]))
    assert moved.json()["table"]["can_undo"] is True
    # The other seat cannot take it back, the mover can.
    other = token_of(created, 1 - seat)
    assert undo(client, game_id, other).status_code == 403
    undone = undo(client, game_id, token)
    assert undone.status_code == 200, undone.text
    after = undone.json()
    assert after["board"] == before["board"] and after["hand"] == before["hand"]
    assert after["table"]["moves"] == 0 and after["legal_actions"] == before["legal_actions"]
    assert after["table"]["version"] == 2  # the move and its undo: the counter never goes back
    record = client.get(f"/api/games/{game_id}/record", headers=auth(token)).json()
    assert record["actions"] == []
    # Nothing is left to take back.
    assert undo(client, game_id, token).status_code == 403


def test_no_undo_once_tiles_were_drawn(client: TestClient) -> None:
    created = create(client)
    game_id = created["id"]
    seat = view(client, game_id)["to_move"]
    token = token_of(created, seat)
    swap = next(a for a in view(client, game_id, token)["legal_actions"] if a.startswith("swap"))
    answer = act(client, game_id, token, swap)
    assert answer.json()["table"]["can_undo"] is False
    refused = undo(client, game_id, token)
    assert refused.status_code == 403 and "drew" in refused.json()["error"]
    assert view(client, game_id)["table"]["moves"] == 1


def test_no_undo_after_the_turn_passed(client: TestClient) -> None:
    created = create(client)
    game_id = created["id"]
    seat = view(client, game_id)["to_move"]
    token = token_of(created, seat)
    act(client, game_id, token, "pass")
    assert view(client, game_id)["to_move"] != seat
    refused = undo(client, game_id, token)
    assert refused.status_code == 403


def test_hotseat_screen_follows_the_deciding_human(client: TestClient) -> None:
    created = create(client, seats=["human", "human"], hotseat=True)
    table_token = created["table_token"]
    game_id = created["id"]
    screen = view(client, game_id, table_token)
    seat = screen["to_move"]
    assert screen["table"]["seat"] == seat and screen["table"]["screen"] == "hotseat"
    assert screen["hand"] == view(client, game_id, token_of(created, seat))["hand"]
    answer = act(client, game_id, table_token, "pass")
    assert answer.status_code == 200
    assert answer.json()["table"]["seat"] == 1 - seat
    assert answer.json()["hand"] == view(client, game_id, token_of(created, 1 - seat))["hand"]
    assert client.get("/api/games").json()["games"][0]["status"] == "running"


def test_meta_lists_games_and_bots(client: TestClient, tmp_path: Path) -> None:
    db_url = f"sqlite:///{tmp_path / 'other.sqlite3'}"
    meta = client.get("/api/meta").json()
    assert "random" in meta["bots"]
    tigris = next(g for g in meta["games"] if g["name"] == "tigris")
    assert tigris["min_players"] == 2 and tigris["max_players"] == 4
    assert set(tigris["options"]) >= {"board", "buildings", "english", "wonder", "open_scoring"}
    # The end screen says the bots analyse the game only where they do (`cradle serve
    # --no-analyse`: here the client fixture's Limits(analyse_finished=False, password_kib=64)).
    assert meta["analyse_finished"] is False
    with TestClient(create_app(db_url, bot_delay=0)) as analysing:
        assert analysing.get("/api/meta").json()["analyse_finished"] is True
    board = client.get("/api/boards/tigris?board=standard").json()
    assert len(board["temples"]) == 10 and board["river"]


def test_stored_before_acknowledged(client: TestClient, db_url: str) -> None:
    created = create(client)
    game_id = created["id"]
    seat = view(client, game_id)["to_move"]
    act(client, game_id, token_of(created, seat), "pass")
    storage = Store(db_url)
    try:
        stored = storage.games.load(game_id)
        assert stored is not None
        assert stored.actions == ["pass"] and stored.action_seats == [seat]
    finally:
        storage.close()


@pytest.mark.skipif("gheos" not in GAMES, reason="needs the Gheos engine")
def test_gheos_undo_of_a_placed_tile_but_not_of_the_draw(client: TestClient) -> None:
    created = create(client, "gheos")
    game_id = created["id"]
    seat = view(client, game_id)["to_move"]
    token = token_of(created, seat)
    before = view(client, game_id, token)
    place = next(a for a in before["legal_actions"] if a.startswith("place "))
    placed = act(client, game_id, token, place).json()
    assert placed["to_move"] == seat and placed["table"]["can_undo"] is True
    undone = undo(client, game_id, token).json()
    assert undone["map"] == before["map"] and undone["hand"] == before["hand"]
    # Play the turn to its end: the draw that ends it cannot be taken back.
    act(client, game_id, token, place)
    while (seen := view(client, game_id, token))["to_move"] == seat:
        act(client, game_id, token, seen["legal_actions"][-1])
    refused = undo(client, game_id, token)
    assert refused.status_code == 403


def test_an_undo_reads_its_body_and_refuses_anything_but_nothing(client: TestClient) -> None:
    created = create(client)
    game_id = created["id"]
    seat = view(client, game_id)["to_move"]
    token = token_of(created, seat)
    act(
        client,
        game_id,
        token,
        first_move_that_draws_nothing(view(client, game_id, token)["legal_actions"]),
    )
    before = view(client, game_id, token)
    assert before["table"]["can_undo"] is True
    headers = {"content-type": "application/json", **auth(token)}
    for body, reason in [
        (b"{not json", "not valid JSON"),
        (b"[1, 2]", "must be a JSON object"),
        (b'{"undo": true}', "Extra inputs are not permitted"),
    ]:
        answer = client.post(f"/api/games/{game_id}/undo", content=body, headers=headers)
        assert answer.status_code == 400 and reason in answer.json()["error"], answer.text
        assert view(client, game_id, token) == before
    for body in (b"{}", b""):
        assert (
            client.post(f"/api/games/{game_id}/undo", content=body, headers=headers).status_code
            == 200
        )
        act(
            client,
            game_id,
            token,
            first_move_that_draws_nothing(view(client, game_id, token)["legal_actions"]),
        )


def test_every_post_route_reads_and_validates_its_body(client: TestClient) -> None:
    created = create(client)
    game_id = created["id"]
    token = token_of(created, view(client, game_id)["to_move"])
    posts = sorted(
        route.path  # type: ignore[attr-defined]
        for route in client.app.routes  # type: ignore[attr-defined]
        if "POST" in getattr(route, "methods", ())
    )
    # /api/lessons, /chat, /mute, /return and the two reports among them; the friends', blocks',
    # invitations' and resets' too.
    assert len(posts) == 30, posts
    before = view(client, game_id, token)
    headers = {"content-type": "application/json", **auth(token)}
    for path in posts:
        url = re.sub(r"\{\w+\}", "x", path.replace("{game_id}", game_id))
        for body in (b"{not json", b"[1, 2]", b'{"action": "pass", "surprise": 1}'):
            answer = client.post(url, content=body, headers=headers)
            assert answer.status_code == 400, (path, body, answer.text)
            assert answer.json()["error"]
    assert view(client, game_id, token) == before


def test_unused_invites_expire(db_url: str) -> None:
    limits = Limits(analyse_finished=False, password_kib=64, invite_days=3 / 86400)  # three seconds
    with TestClient(create_app(db_url, bot_delay=0, limits=limits)) as client:
        began = time.time()
        created = create(client, players=3, seats=["human", "human", "human"], listed=False)
        game_id = created["id"]
        invites = [s["invite"] for s in created["seats"]]
        assert invites[0] is None and all(invites[1:])
        assert began + 3 <= created["invites_expire"] <= time.time() + 3
        joined = client.post(f"/api/games/{game_id}/join", json={"invite": invites[1]})
        assert joined.status_code == 200
        deadline = time.monotonic() + 120
        while view(client, game_id)["table"]["invites"] == [2]:
            assert time.monotonic() < deadline
            time.sleep(0.1)
        before = view(client, game_id)
        assert before["table"]["invites"] == []  # no longer offered
        late = client.post(f"/api/games/{game_id}/join", json={"invite": invites[2]})
        assert late.status_code == 403 and late.json()["error"] == "this invite expired"
        assert view(client, game_id) == before  # nothing changed
        assert (
            client.get(f"/api/games/{game_id}", headers=auth(token_of(created, 2))).status_code
            == 200
        )
    # The expiry is stored with the invite: a restarted server (with longer invites) keeps it.
    with TestClient(
        create_app(db_url, bot_delay=0, limits=Limits(analyse_finished=False, password_kib=64))
    ) as client:
        late = client.post(f"/api/games/{game_id}/join", json={"invite": invites[2]})
        assert late.status_code == 403 and late.json()["error"] == "this invite expired"
