"""Hypothesis throws generated input at every entry point, HTTP and WebSocket.

Whatever arrives: the answer is JSON with a 2xx/4xx status (never a 5xx), a refusal carries a
reason, a refused request changes nothing, and a WebSocket answers every frame and stays open.
``make test`` runs a short round; ``make test-long`` (``-m long``) a long one. Each test counts
the inputs it tried (``-s`` prints them).
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from fastapi.testclient import TestClient

from cradle.server.app import create_app
from cradle.server.limits import UNLIMITED_CLIENTS, Limits
from tests.helpers.server import GAMES, auth, create, token_of

pytestmark = pytest.mark.skipif("tigris" not in GAMES, reason="needs the Tigris engine")

SHORT, LONG = 60, 1500  # examples per test in make test / make test-long
ALLOWED = {200, 400, 403, 404, 413, 415, 429}
TRIED: dict[str, int] = {}

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=40)
    | st.sampled_from(["pass", "tigris", "gheos", "human", "open", "bot:random", "standard"])
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=12), inner, max_size=5)
    ),
    max_leaves=25,
)
create_bodies = (
    st.fixed_dictionaries(
        {},
        optional={
            "game": st.sampled_from(["tigris", "gheos", "chess", ""]) | values,
            "players": st.integers(min_value=-3, max_value=9) | values,
            "options": st.dictionaries(
                st.sampled_from(["board", "buildings", "wonder", "tiles", "english", "x"]), values
            )
            | values,
            # Bots only of the kind that costs nothing: the fuzzer is not a load test.
            "seats": st.lists(
                st.sampled_from(["human", "open", "bot:random", "bot:x", "alien"]) | values,
                max_size=6,
            ),
            "hotseat": values,
            "listed": values,
            "bot_seconds": values,
        },
    )
    | values
)
raw_bodies = (
    st.binary(max_size=200)
    | st.integers(min_value=1, max_value=3000).map(lambda n: b"[" * n)
    | st.integers(min_value=1, max_value=100).map(lambda n: b'{"a":' * n + b"1" + b"}" * n)
    | st.sampled_from([b"NaN", b'{"action": Infinity}', b"1" * 5000, b'"\\ud800"', b"\xff\xfe"])
)


@pytest.fixture(scope="module")
def fuzz_client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    db = tmp_path_factory.mktemp("fuzz") / "games.sqlite3"
    # Generous client limits (one test client sends everything) and sleepy bots.
    limits = Limits(**UNLIMITED_CLIENTS, max_bot_seats=10**6)  # type: ignore[arg-type]
    with TestClient(create_app(f"sqlite:///{db}", bot_delay=600, limits=limits)) as client:
        yield client
    if TRIED:
        print("\nfuzz inputs tried:", json.dumps(TRIED, sort_keys=True))


def counted(name: str) -> None:
    TRIED[name] = TRIED.get(name, 0) + 1


def check(answer: Any) -> dict[str, Any]:
    assert answer.status_code in ALLOWED, (answer.status_code, answer.text[:300])
    data: dict[str, Any] = answer.json()
    if answer.status_code >= 400:
        assert isinstance(data.get("error"), str) and data["error"]
    return data


@pytest.fixture(scope="module")
def table(fuzz_client: TestClient) -> dict[str, Any]:
    return create(fuzz_client)


def fuzz_create(client: TestClient, body: Any, raw: bytes | None) -> None:
    counted("POST /api/games")
    if raw is None:
        answer = client.post("/api/games", json=body)
    else:
        answer = client.post(
            "/api/games", content=raw, headers={"content-type": "application/json"}
        )
    data = check(answer)
    if answer.status_code == 200:
        assert isinstance(data["id"], str) and all(len(s["token"]) >= 24 for s in data["seats"])


def fuzz_action(client: TestClient, table: dict[str, Any], body: Any, raw: bytes | None) -> None:
    counted("POST /api/games/{id}/actions")
    game_id = table["id"]
    before = client.get(f"/api/games/{game_id}").json()
    token = token_of(table, before["to_move"]) if before["to_move"] is not None else None
    url = f"/api/games/{game_id}/actions"
    if raw is None:
        answer = client.post(url, json=body, headers=auth(token))
    else:
        headers = {"content-type": "application/json", **auth(token)}
        answer = client.post(url, content=raw, headers=headers)
    check(answer)
    after = client.get(f"/api/games/{game_id}").json()
    if answer.status_code != 200:
        assert after == before  # refused: nothing changed, not even the version


def fuzz_join(client: TestClient, table: dict[str, Any], body: Any) -> None:
    counted("POST /api/games/{id}/join")
    before = client.get(f"/api/games/{table['id']}").json()
    answer = client.post(f"/api/games/{table['id']}/join", json=body)
    check(answer)
    assert answer.status_code != 200  # no open seat, and no invite guessed
    assert client.get(f"/api/games/{table['id']}").json() == before


def fuzz_reads(client: TestClient, table: dict[str, Any], text: str, token: str) -> None:
    counted("GET with query and Authorization")
    for url in (
        f"/api/games/{table['id']}/replay",
        f"/api/games/{table['id']}/record",
        "/api/games",
        f"/api/boards/{quote(text, safe='') or 'x'}",
    ):
        check(client.get(url, params={"seat": text, "before": text, "limit": text, "board": text}))
    check(client.get(f"/api/games/{table['id']}", headers={"Authorization": token}))


def fuzz_frames(client: TestClient, table: dict[str, Any], frames: list[Any]) -> None:
    counted("WebSocket connections")
    game_id = table["id"]
    before = client.get(f"/api/games/{game_id}").json()
    mover = before["to_move"]
    with client.websocket_connect(f"/ws/games/{game_id}") as ws:
        ws.send_json({"token": token_of(table, 1 - mover)})  # a seat that does not decide
        assert ws.receive_json()["type"] == "view"
        for frame in frames:
            counted("WebSocket frames")
            if isinstance(frame, bytes):
                ws.send_bytes(frame)
            elif isinstance(frame, str):
                ws.send_text(frame)
            else:
                ws.send_text(json.dumps(frame))
            reply = ws.receive_json()
            assert reply["type"] in ("error", "pong"), reply
            if reply["type"] == "error":
                assert reply["error"] and reply["status"] in (400, 403)
        ws.send_json({"type": "ping"})
        assert ws.receive_json() == {"type": "pong"}  # still open
    assert client.get(f"/api/games/{game_id}").json() == before


frame_inputs = st.lists(
    values
    | st.fixed_dictionaries({"action": values})
    | st.fixed_dictionaries({"undo": values})
    | st.text(max_size=100)
    | st.binary(max_size=100)
    | st.integers(min_value=1, max_value=3000).map(lambda n: "[" * n)
    | st.just("x" * 5000),
    max_size=8,
)


def run_all(examples: int) -> Any:
    return settings(
        max_examples=examples,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
        derandomize=examples == SHORT,  # the short round is the same in every run
        database=None,
    )


@pytest.mark.parametrize("examples", [SHORT, pytest.param(LONG, marks=pytest.mark.long)])
def test_fuzz_http(fuzz_client: TestClient, table: dict[str, Any], examples: int) -> None:
    @run_all(examples)
    @given(
        body=create_bodies,
        raw=st.none() | raw_bodies,
        action=values | st.fixed_dictionaries({"action": values}),
        text=st.text(max_size=30),
        token=st.text(alphabet=st.characters(min_codepoint=33, max_codepoint=126), max_size=40),
    )
    def inner(body: Any, raw: bytes | None, action: Any, text: str, token: str) -> None:
        fuzz_create(fuzz_client, body, raw)
        fuzz_action(fuzz_client, table, action, raw)
        fuzz_join(fuzz_client, table, action)
        fuzz_reads(fuzz_client, table, text, token)

    inner()


@pytest.mark.parametrize("examples", [SHORT, pytest.param(LONG, marks=pytest.mark.long)])
def test_fuzz_websocket(fuzz_client: TestClient, table: dict[str, Any], examples: int) -> None:
    @run_all(examples)
    @given(frames=frame_inputs)
    def inner(frames: list[Any]) -> None:
        fuzz_frames(fuzz_client, table, frames)

    inner()


def test_the_fuzzed_table_still_plays(fuzz_client: TestClient, table: dict[str, Any]) -> None:
    seen = fuzz_client.get(f"/api/games/{table['id']}").json()
    token = token_of(table, seen["to_move"])
    moved = fuzz_client.post(
        f"/api/games/{table['id']}/actions", json={"action": "pass"}, headers=auth(token)
    )
    assert (
        moved.status_code == 200
        and moved.json()["table"]["version"] == seen["table"]["version"] + 1
    )
