"""Every size and count a client sends is bounded before anything is built from it.

The models of cradle.server.models are enumerated, not listed: a field added without a bound
fails ``test_every_field_of_every_model_is_bounded``, and a model no route below sends fails
``test_every_model_is_sent_here``. Then each field is sent hostile values (huge, negative,
2^70, floats, numbers JSON cannot hold, long strings, lists and objects: a fixed list with every
kind in `make test`, Hypothesis's random draws in `make test-long`) through the real app: each answer is a 4xx with a reason or an acceptance within bounds, never a 5xx, never
a large allocation or a long wait, and a refusal changes nothing.
"""

from __future__ import annotations

import contextlib
import inspect
import json
import resource
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from fastapi.testclient import TestClient

from cradle.games import get_game
from cradle.server import models
from cradle.server.app import create_app
from cradle.server.limits import UNLIMITED_CLIENTS, Limits
from tests.helpers.server import GAMES, auth, token_of

pytestmark = pytest.mark.skipif("tigris" not in GAMES, reason="needs the Tigris engine")

LONG = 500  # examples Hypothesis draws per field in make test-long
MEMORY_MARGIN = 256 * 1024 * 1024  # bytes the process may grow by over all of one field's inputs
SLOW = 20.0  # seconds one answer may take on a loaded machine (a frozen loop takes far longer)

MODELS: list[type[BaseModel]] = [
    model
    for _name, model in inspect.getmembers(models, inspect.isclass)
    if issubclass(model, BaseModel) and model.__module__ == models.__name__
]


# -- the bounds, read from the JSON schemas -------------------------------------------------


def unbounded(schema: Any, where: str, defs: dict[str, Any] | None = None) -> list[str]:
    """The places in a JSON schema where a value has no bound (a number without a range, a
    string, list or object without a length, a value of any kind); a nested model (``$ref``)
    is read in ``defs`` (the schema's own ``$defs``, or the published schema's components)."""
    if defs is None and isinstance(schema, dict):
        defs = schema.get("$defs", {})
    if isinstance(schema, dict) and "$ref" in schema:
        name = str(schema["$ref"]).rsplit("/", 1)[-1]
        if defs is None or name not in defs:
            return [f"{where}: a model not found ({name})"]
        return unbounded(defs[name], where, defs)
    if schema is True or schema == {}:
        return [f"{where}: any value"]
    if not isinstance(schema, dict):
        return [f"{where}: not a schema"]
    if "enum" in schema or "const" in schema:
        return []
    for key in ("anyOf", "oneOf", "allOf"):
        if key in schema:
            found = []
            for number, branch in enumerate(schema[key]):
                found += unbounded(branch, f"{where}|{number}", defs)
            return found
    kind = schema.get("type")
    if kind in ("integer", "number"):
        low = "minimum" in schema or "exclusiveMinimum" in schema
        high = "maximum" in schema or "exclusiveMaximum" in schema
        return [] if low and high else [f"{where}: a number without a range"]
    if kind == "string":
        return [] if "maxLength" in schema else [f"{where}: a string without a length"]
    if kind == "array":
        found = [] if "maxItems" in schema else [f"{where}: a list without a length"]
        return found + unbounded(schema.get("items", True), f"{where}[]", defs)
    if kind == "object":
        found = []
        extra = schema.get("additionalProperties", True)
        if extra is not False:
            if "maxProperties" not in schema:
                found.append(f"{where}: an object without a size")
            names = schema.get("propertyNames", {})
            if "maxLength" not in names:
                found.append(f"{where}: an object whose names have no length")
            found += unbounded(extra, f"{where}{{}}", defs)
        for name, inner in schema.get("properties", {}).items():
            found += unbounded(inner, f"{where}.{name}", defs)
        return found
    if kind in ("boolean", "null"):
        return []
    return [f"{where}: a value of any kind"]


def test_the_models_are_found() -> None:
    names = {model.__name__ for model in MODELS}
    assert {"CreateBody", "ActionBody", "JoinBody", "EmptyBody", "Hello", "ClientMessage"} <= names


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__name__)
def test_every_field_of_every_model_is_bounded(model: type[BaseModel]) -> None:
    assert unbounded(model.model_json_schema(), model.__name__) == []


def test_the_bound_finder_finds_what_is_unbounded() -> None:
    class Loose(BaseModel):
        count: int
        name: str
        names: list[str]
        table: dict[str, int]

    assert set(unbounded(Loose.model_json_schema(), "Loose")) == {
        "Loose: an object whose names have no length",  # any extra field, of any size
        "Loose: an object without a size",
        "Loose.count: a number without a range",
        "Loose.name: a string without a length",
        "Loose.names: a list without a length",
        "Loose.names[]: a string without a length",
        "Loose.table: an object whose names have no length",
        "Loose.table: an object without a size",
        "Loose.table{}: a number without a range",
        "Loose{}: any value",
    }


def test_every_parameter_and_body_of_the_published_schema_is_bounded(tmp_path: Any) -> None:
    schema = create_app(f"sqlite:///{tmp_path / 'games.sqlite3'}").openapi()
    models = schema.get("components", {}).get("schemas", {})
    posts = 0
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            for parameter in operation.get("parameters", []):
                where = f"{method} {path} {parameter['name']}"
                assert unbounded(parameter["schema"], where) == []
            if method == "post":
                posts += 1
                body = operation["requestBody"]["content"]["application/json"]["schema"]
                defs = {**models, **body.get("$defs", {})}
                assert unbounded(body, f"{method} {path}", defs) == []
    assert (
        posts == 30
    )  # /return and the two reports among them; the friends', blocks' and resets' too


# -- hostile values through the real app ----------------------------------------------------


class Raw(str):
    """JSON text put into a body as it is (a number JSON parsers cannot hold, say)."""


MARK = "\x00raw\x00"
NUMBERS = [2**70, -(2**70), 400_000_000, 2**63, 2**31, -1, 0, 10**19]
FLOATS = [1e308, -1e308, 5e-324, 0.5, 3600.0001]
RAWS = ["1e999", "-1e999", "9" * 30, "1" * 5000, "NaN", "Infinity", "-0", "1e-400"]
# Each kind of hostile value: what Hypothesis draws in `make test-long` (LONG per field), and
# the values `make test` sends every field, once each: one of every kind at least, and of the
# strategy's own lists one on each side of every bound and each way JSON text is refused (the
# rest are refused by the same checks: 2^31 and 10^19 as 2^63, -1e999 and Infinity as 1e999
# and NaN), with the edges a random draw seldom meets (a count and a seat a table takes, a
# name of three letters, a line one character too long, text that is only blanks, seats too
# few and just enough, an unmute).
KINDS: list[tuple[st.SearchStrategy[Any], list[Any]]] = [
    (st.integers(min_value=-(2**80), max_value=2**80), [2**80, 2]),
    (st.sampled_from(NUMBERS), [-(2**70), 400_000_000, 2**63, -1, 0]),
    (st.floats(allow_nan=False, allow_infinity=False), [1.5]),
    (st.sampled_from(FLOATS), [-1e308, 5e-324, 3600.0001]),
    (st.booleans(), [True, False]),
    (st.none(), [None]),
    (
        st.integers(min_value=0, max_value=20_000).map(lambda n: "x" * n),
        ["", "xxx", "x" * 501, "x" * 20_000],
    ),
    (st.text(max_size=30), ["\x00\u202e é 日本 🎲", " \t "]),
    (
        st.integers(min_value=0, max_value=5_000).map(lambda n: ["human"] * n),
        [["human"], ["human"] * 2, ["human"] * 5_000],
    ),
    (
        st.lists(st.integers(-(2**70), 2**70) | st.text(max_size=3) | st.none(), max_size=50),
        [[2**70, "ab", None]],
    ),
    (
        st.integers(min_value=0, max_value=2_000).map(lambda n: {f"k{i}": i for i in range(n)}),
        [{f"k{i}": i for i in range(2_000)}],
    ),
    (
        st.dictionaries(st.text(max_size=50), st.integers() | st.text(max_size=20), max_size=20),
        [{"": 0, "x" * 50: "y" * 20}],
    ),
    (
        st.sampled_from(RAWS).map(Raw),
        [Raw(text) for text in ("1e999", "9" * 30, "1" * 5000, "NaN")],
    ),
]
hostile = st.one_of(*(strategy for strategy, _values in KINDS))
HOSTILE = [value for _strategy, values in KINDS for value in values]


def encode(body: dict[str, Any]) -> str:
    """``body`` as JSON, with any Raw value put in as it is."""
    raws = {name: value for name, value in body.items() if isinstance(value, Raw)}
    text = json.dumps({name: MARK if name in raws else value for name, value in body.items()})
    for value in raws.values():
        text = text.replace(json.dumps(MARK), value, 1)
    return text


def peak_memory() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux: kilobytes


@contextmanager
def memory_ceiling(extra: int = 2 * 1024**3) -> Iterator[None]:
    """While inside, the process's address space may grow by ``extra`` bytes at most: an
    allocation sized by a client then fails here as a MemoryError (a 5xx the test sees)
    instead of taking the machine's memory from everything else running on it."""
    mapped = 0
    with contextlib.suppress(OSError):
        mapped = int(Path("/proc/self/statm").read_text().split()[0]) * resource.getpagesize()
    if not mapped:
        yield
        return
    before = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (mapped + extra, before[1]))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, before)


@pytest.fixture(scope="module")
def hostile_client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    db = tmp_path_factory.mktemp("bounds") / "games.sqlite3"
    # No rate here: each field's examples are sent as fast as the machine goes, and a test
    # must not depend on how many a bucket refilled for meanwhile (test_limits has the rates).
    unlimited = {**UNLIMITED_CLIENTS, "signins_per_minute": 1e9, "signins_burst": 10**9}
    limits = Limits(**unlimited, password_kib=64)  # type: ignore[arg-type]
    with TestClient(create_app(f"sqlite:///{db}", bot_delay=600, limits=limits)) as client:
        yield client


@pytest.fixture(scope="module")
def table(hostile_client: TestClient) -> dict[str, Any]:
    answer = hostile_client.post(
        "/api/games", json={"game": "tigris", "players": 2, "seats": ["human", "human"]}
    )
    assert answer.status_code == 200, answer.text
    created: dict[str, Any] = answer.json()
    return created


def games_stored(client: TestClient) -> int:
    count: int = client.app.state.hub.store.games.count_games()  # type: ignore[attr-defined]
    return count


def refused_with_reason(answer: Any) -> bool:
    assert answer.status_code < 500, (answer.status_code, answer.text[:300])
    data = answer.json()
    if answer.status_code >= 400:
        assert answer.status_code in (400, 403, 404, 413, 415, 429), answer.status_code
        assert isinstance(data.get("error"), str) and data["error"], data
        return True
    return False


def make_table(
    route: str, made: Callable[[dict[str, Any], dict[str, Any]], bool]
) -> Callable[[TestClient, dict[str, Any], dict[str, Any]], None]:
    """A sender of bodies to ``route``, which makes a table: a refused body stores no game,
    and what it makes is what ``made(body, answer)`` accepts."""

    def send(client: TestClient, table: dict[str, Any], body: dict[str, Any]) -> None:
        before = games_stored(client)
        answer = client.post(
            route, content=encode(body), headers={"content-type": "application/json"}
        )
        if refused_with_reason(answer):
            assert games_stored(client) == before
        else:
            assert made(body, answer.json())

    return send


send_create = make_table(
    "/api/games", lambda _body, answer: 1 <= len(answer["players"]) <= models.MAX_SEATS
)
# Only a name from the game's own list makes a table.
send_lesson = make_table(
    "/api/lessons",
    lambda body, _answer: body["lesson"] in {one.name for one in get_game(body["game"]).LESSONS},
)


def post_on_table(route: str) -> Callable[[TestClient, dict[str, Any], dict[str, Any]], None]:
    def send(client: TestClient, table: dict[str, Any], body: dict[str, Any]) -> None:
        game_id = table["id"]
        before = client.get(f"/api/games/{game_id}").json()
        mover = before["to_move"]
        headers = {"content-type": "application/json", **auth(token_of(table, mover))}
        answer = client.post(f"/api/games/{game_id}/{route}", content=encode(body), headers=headers)
        # No hostile value is a legal move, nor an invite, so every one is refused.
        assert refused_with_reason(answer) or route == "explain"
        assert client.get(f"/api/games/{game_id}").json() == before

    return send


def send_hello(client: TestClient, table: dict[str, Any], body: dict[str, Any]) -> None:
    with client.websocket_connect(f"/ws/games/{table['id']}") as ws:
        ws.send_text(encode(body))
        reply = ws.receive_json()
        if reply["type"] == "error":
            assert reply["status"] in (400, 403) and reply["error"]
        else:
            assert reply["type"] == "view" and not body.get("token")  # a spectator


def send_frame(client: TestClient, table: dict[str, Any], body: dict[str, Any]) -> None:
    before = client.get(f"/api/games/{table['id']}").json()
    with client.websocket_connect(f"/ws/games/{table['id']}") as ws:
        ws.send_text("{}")  # a spectator: nothing it sends can change the game
        assert ws.receive_json()["type"] == "view"
        ws.send_text(encode(body))
        reply = ws.receive_json()
        assert reply["type"] in ("error", "pong"), reply
        if reply["type"] == "error":
            assert reply["status"] in (400, 403) and reply["error"]
        ws.send_text('{"type": "ping"}')
        assert ws.receive_json() == {"type": "pong"}  # still open
    assert client.get(f"/api/games/{table['id']}").json() == before


PASSWORD = "the bounds test's password"
SIGNED: dict[int, tuple[TestClient, dict[str, str]]] = {}


def signed_in(client: TestClient) -> tuple[TestClient, dict[str, str]]:
    """A second browser on the same app, signed in (its own cookies), and its CSRF header
    (kept up to date by ``send_signed_in``, which reads ``/api/me`` after each request)."""
    found = SIGNED.get(id(client.app))
    if found is None:
        browser = TestClient(client.app)
        made = browser.post("/api/accounts", json={"name": "Bounds tester", "password": PASSWORD})
        assert made.status_code == 200, made.text
        csrf = browser.get("/api/me").json()["csrf"]
        found = SIGNED[id(client.app)] = (
            browser,
            {"content-type": "application/json", "X-CSRF-Token": csrf},
        )
    return found


def refused_or_denied(answer: Any) -> bool:
    """As refused_with_reason, with a wrong password's 401 and a taken name's 409 among the
    refusals."""
    if answer.status_code in (401, 409):
        assert answer.json()["error"]
        return True
    return refused_with_reason(answer)


def send_credentials(route: str) -> Sender:
    def send(client: TestClient, table: dict[str, Any], body: dict[str, Any]) -> None:
        guest = TestClient(client.app)
        answer = guest.post(
            route, content=encode(body), headers={"content-type": "application/json"}
        )
        if not refused_or_denied(answer):
            assert 3 <= len(answer.json()["account"]["name"]) <= 24

    return send


def send_chat(route: str) -> Callable[[TestClient, dict[str, Any], dict[str, Any]], None]:
    def send(client: TestClient, table: dict[str, Any], body: dict[str, Any]) -> None:
        game_id = table["id"]
        headers = {"content-type": "application/json", **auth(token_of(table, 0))}
        before = client.get(f"/api/games/{game_id}/chat", headers=headers).json()
        answer = client.post(f"/api/games/{game_id}/{route}", content=encode(body), headers=headers)
        after = client.get(f"/api/games/{game_id}/chat", headers=headers).json()
        if refused_with_reason(answer):
            assert after == before
        elif route == "chat":
            assert 0 < len(answer.json()["text"]) <= 500 and after["lines"][-1] == answer.json()

    return send


def send_signed_in(method: str, route: str) -> Sender:
    def send(client: TestClient, table: dict[str, Any], body: dict[str, Any]) -> None:
        browser, headers = signed_in(client)
        url = route.replace("{id}", table["id"])
        answer = browser.request(method, url, content=encode(body), headers=headers)
        if not refused_or_denied(answer) and route == "/api/me/password":
            # A hostile new password was taken: set the known one again.
            back = {"password": body["new_password"], "new_password": PASSWORD}
            assert browser.post(route, json=back, headers=headers).status_code == 200
        me = browser.get("/api/me").json()
        assert me["account"]["name"] == "Bounds tester"
        headers["X-CSRF-Token"] = me["csrf"]

    return send


def send_continue(client: TestClient, table: dict[str, Any], body: dict[str, Any]) -> None:
    before = client.get(f"/api/games/{table['id']}").json()
    answer = TestClient(client.app).post(
        f"/api/games/{table['id']}/continue",
        content=encode(body),
        headers={"content-type": "application/json"},
    )
    assert refused_with_reason(answer)  # no hostile value is a live code
    assert client.get(f"/api/games/{table['id']}").json() == before


def send_stop_mail(client: TestClient, table: dict[str, Any], body: dict[str, Any]) -> None:
    answer = client.post(
        "/api/mail/stop", content=encode(body), headers={"content-type": "application/json"}
    )
    assert refused_with_reason(answer)  # no hostile value is a code ever given out


def send_clock(client: TestClient, table: dict[str, Any], body: dict[str, Any]) -> None:
    """A live table's clock, in a new table's body."""
    send_create(client, table, {"game": "tigris", "clock": body})


def send_reset(client: TestClient, table: dict[str, Any], body: dict[str, Any]) -> None:
    answer = TestClient(client.app).post(
        "/api/password-reset", content=encode(body), headers={"content-type": "application/json"}
    )
    if not refused_with_reason(answer):
        assert answer.json() == {"asked": True}  # whoever it names, the same answer


def send_new_password(client: TestClient, table: dict[str, Any], body: dict[str, Any]) -> None:
    answer = TestClient(client.app).post(
        "/api/password-reset/no-such-code",
        content=encode(body),
        headers={"content-type": "application/json"},
    )
    assert refused_with_reason(answer)  # no hostile value makes a code that was never mailed


Sender = Callable[[TestClient, dict[str, Any], dict[str, Any]], None]
# Each model, the body it is sent in (besides the field under test), and the routes that read it.
ROUTES: dict[str, tuple[dict[str, Any], list[Sender]]] = {
    "CreateBody": ({"game": "tigris"}, [send_create]),  # seats by default: one per player
    "ClockBody": ({"base_s": 60}, [send_clock]),
    "LessonBody": ({"game": "tigris", "lesson": "tiles"}, [send_lesson]),
    "ActionBody": (
        {"action": "no such move"},
        [post_on_table("actions"), post_on_table("explain")],
    ),
    "JoinBody": ({}, [post_on_table("join")]),
    "EmptyBody": (
        {},
        [post_on_table("undo"), post_on_table("hint"), post_on_table("analysis")],
    ),
    # The mover's own deadline, at a live table: every value is refused.
    "TimeoutBody": ({"choice": "bot"}, [post_on_table("timeout")]),
    "StopMailBody": ({"code": "x"}, [send_stop_mail]),
    "Hello": ({}, [send_hello]),
    "ClientMessage": ({}, [send_frame]),
    "Credentials": (
        {"name": "Hostile tester", "password": "long enough secret"},
        [send_credentials("/api/session")],
    ),
    "SignUp": (
        {"name": "Hostile tester", "password": "long enough secret"},
        [send_credentials("/api/accounts")],
    ),
    "ResetRequest": ({"name": "Nobody here"}, [send_reset]),
    "NewPassword": ({"password": "long enough secret"}, [send_new_password]),
    "NameBody": (
        {"name": "Nobody here"},
        [
            send_signed_in("POST", "/api/friends"),
            send_signed_in("POST", "/api/blocks"),
            send_signed_in("POST", "/api/games/{id}/invite"),
        ],
    ),
    "PasswordChange": (
        {"password": PASSWORD, "new_password": "another long secret"},
        [send_signed_in("POST", "/api/me/password")],
    ),
    "AccountDeletion": ({"password": "not the password"}, [send_signed_in("DELETE", "/api/me")]),
    "AccountSettings": ({}, [send_signed_in("PATCH", "/api/me")]),
    "SeatBody": ({}, [send_signed_in("POST", "/api/games/{id}/seat")]),
    "ContinueBody": ({"code": "no such code"}, [send_continue]),
    "ChatBody": ({"text": "hello"}, [send_chat("chat")]),
    "MuteBody": ({"speaker": "s:1"}, [send_chat("mute")]),
    "ReportBody": (
        {"reason": "rude"},
        [send_signed_in("POST", "/api/players/Bounds%20tester/report")],
    ),
}
FIELDS = [
    pytest.param(model, name, id=f"{model.__name__}.{name}")
    for model in MODELS
    for name in model.model_fields
]


def test_every_model_is_sent_here() -> None:
    assert {model.__name__ for model in MODELS} == set(ROUTES)


def send_every_route(
    client: TestClient, table: dict[str, Any], model: type[BaseModel], name: str, value: Any
) -> None:
    base, senders = ROUTES[model.__name__]
    for send in senders:
        began = time.monotonic()
        send(client, table, {**base, name: value})
        assert time.monotonic() - began < SLOW


@pytest.mark.parametrize(("model", "name"), FIELDS)
def test_hostile_values_of_every_field_are_refused_or_bounded(
    hostile_client: TestClient, table: dict[str, Any], model: type[BaseModel], name: str
) -> None:
    start = peak_memory()
    with memory_ceiling():
        for value in HOSTILE:
            send_every_route(hostile_client, table, model, name, value)
            assert peak_memory() - start < MEMORY_MARGIN, repr(value)[:80]


@pytest.mark.long
@pytest.mark.parametrize(("model", "name"), FIELDS)
def test_hostile_values_drawn_at_random_are_refused_or_bounded(
    hostile_client: TestClient, table: dict[str, Any], model: type[BaseModel], name: str
) -> None:
    start = peak_memory()

    @settings(
        max_examples=LONG,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
        database=None,
    )
    @given(value=hostile)
    def inner(value: Any) -> None:
        send_every_route(hostile_client, table, model, name, value)
        assert peak_memory() - start < MEMORY_MARGIN

    with memory_ceiling():
        inner()


@pytest.mark.parametrize("players", [400_000_000, 2**70, -(2**70), 2**63])
def test_an_absurd_count_of_players_is_refused_at_once(
    hostile_client: TestClient, players: int
) -> None:
    before, start = games_stored(hostile_client), peak_memory()
    began = time.monotonic()
    with memory_ceiling():
        answer = hostile_client.post("/api/games", json={"game": "tigris", "players": players})
    assert time.monotonic() - began < SLOW
    assert answer.status_code == 400, answer.text
    assert answer.json()["field"] == "players" and "players" in answer.json()["error"]
    assert peak_memory() - start < MEMORY_MARGIN
    assert games_stored(hostile_client) == before


def test_numbers_json_cannot_hold_are_refused(hostile_client: TestClient) -> None:
    for text, reason in [
        ('{"game": "tigris", "bot_seconds": 1e999}', "out of range"),
        ('{"game": "tigris", "players": ' + "9" * 4000 + "}", "at most 40 digits"),
        ('{"game": "tigris", "players": NaN}', "not a JSON number"),
    ]:
        answer = hostile_client.post(
            "/api/games", content=text, headers={"content-type": "application/json"}
        )
        assert answer.status_code == 400 and reason in answer.json()["error"], answer.text
