"""Sign-ins strangers cannot block (cradle.server.signins, docs/server.md "Signing in"): the
probe's lockout attack and hash flood, asserted on the mechanism (who is refused at once, what
reaches the hasher, in which order), never on the wall clock; the timed runs are in the long
tier (test_signins_timed.py) and ``python -m lab signin_flood``."""

from __future__ import annotations

import asyncio
import threading
import warnings
from collections.abc import Iterator
from concurrent.futures import Executor, Future
from typing import Any

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from fastapi.testclient import TestClient

from cradle.server.app import create_app
from cradle.server.errors import ApiError
from cradle.server.limits import Limits
from cradle.server.signins import CLEAN, KNOWN, SUSPECT, PasswordQueue
from tests.helpers.server import run_async

PASSWORD = "correct horse battery"
VICTIM = "Victim"


@pytest.fixture
def app(any_db_url: str) -> Iterator[Any]:
    # The buckets of sign-ins and failures refill too slowly to matter within a test, however
    # slowly the machine runs: each test asserts what their bursts allow (at the default 6 a
    # minute, a run at load 20 took over 10 s for 11 sign-ins and got a failure back).
    limits = Limits(
        analyse_finished=False,
        password_kib=64,
        signins_per_minute=0.01,
        signin_failures_per_minute=0.01,
    )
    application = create_app(any_db_url, bot_delay=0, limits=limits)
    with TestClient(application):
        yield application


def at(app: Any, address: str) -> TestClient:
    """A browser of its own (its own cookies) at ``address``."""
    return TestClient(app, client=(address, 40000))


def sign_in(client: TestClient, name: str = VICTIM, password: str = PASSWORD) -> Any:
    return client.post("/api/session", json={"name": name, "password": password})


def checks(app: Any) -> int:
    """Password checks and hashes begun so far."""
    return len(app.state.context.queue().started)


def test_the_owner_signs_in_at_once_under_the_lockout_attack(app: Any) -> None:
    home = at(app, "198.51.100.7")
    made = home.post("/api/accounts", json={"name": VICTIM, "password": PASSWORD})
    assert made.status_code == 200 and home.cookies.get("cradle_device")
    home.delete("/api/session", headers={"X-CSRF-Token": made.json()["csrf"]})
    # Strangers, each from an address of its own, guess until the name is under attack.
    for n in range(12):
        assert sign_in(at(app, f"203.0.113.{n}"), password=f"guess {n}").status_code == 401
    # A guesser that already failed is refused at once, before the hasher.
    before = checks(app)
    again = sign_in(at(app, "203.0.113.3"), password="guess again")
    assert again.status_code == 429 and "this name" in again.json()["error"]
    assert int(again.headers["Retry-After"]) >= 1 and checks(app) == before
    # The attack goes on (one guess at a time from fresh addresses): each time, the owner signs
    # in at the first try, from a new browser at an address that guessed nothing...
    for n in range(3):
        assert sign_in(at(app, f"192.0.2.{n}"), password="still guessing").status_code == 401
        assert sign_in(at(app, "198.51.100.8")).status_code == 200
    # ... and from their own browser even behind a guesser's address (one NAT for both).
    home_behind_nat = TestClient(app, client=("203.0.113.3", 40000), cookies=home.cookies)
    signed = sign_in(home_behind_nat)
    assert signed.status_code == 200, signed.text
    # At home (the address the account signed up from), a new browser may even mistype.
    home_again = at(app, "198.51.100.7")
    assert sign_in(home_again, password="a typo").status_code == 401
    assert sign_in(home_again).status_code == 200
    # The guessers meanwhile: a fresh address gets one try, then waits like the others.
    late = at(app, "192.0.2.99")
    assert sign_in(late, password="one more").status_code == 401
    assert sign_in(late, password="and another").status_code == 429


def test_a_guessing_address_waits_whatever_the_name(app: Any) -> None:
    guesser = at(app, "203.0.113.50")
    statuses = [sign_in(guesser, f"Name {n}", "wrong password").status_code for n in range(12)]
    assert statuses[:10] == [401] * 10 and statuses[10:] == [429, 429], statuses
    refused = sign_in(guesser, "Someone else", "wrong password")
    assert "from your address" in refused.json()["error"]


def test_a_known_device_counts_its_own_failures(app: Any) -> None:
    home = at(app, "198.51.100.20")
    assert (
        home.post("/api/accounts", json={"name": "Owner", "password": PASSWORD}).status_code == 200
    )
    statuses = [sign_in(home, "Owner", f"typo {n}").status_code for n in range(11)]
    assert statuses[-1] == 429 and "this device" in sign_in(home, "Owner").json()["error"]
    # Another browser at the same address is a client of its own (and failed nothing).
    assert sign_in(at(app, "198.51.100.20"), "Owner").status_code == 200


def blocked(gate: threading.Event, answer: object) -> object:
    """A password check that lasts until the test opens ``gate``."""
    gate.wait(30)
    return answer


def test_the_hash_queue_refuses_extra_work_at_once_and_a_person_goes_first() -> None:
    """The probe's hash flood (30 addresses, each inside every limit) against one process's
    queue: what would wait past the budget is refused at once (503), a second check of one
    client at once (429), an owner's known device never waits behind a stranger (its worker is
    kept), and a person's check goes ahead of every waiting guess."""

    async def flood() -> None:
        gate = threading.Event()
        queue = PasswordQueue(workers=2, budget=1.0)
        queue.seconds = 0.1  # as measured: the budget holds 10 rounds of the strangers' worker
        try:
            guesses = [
                asyncio.create_task(queue.run(f"203.0.113.{n}", SUSPECT, blocked, gate, n))
                for n in range(30)
            ]
            await asyncio.sleep(0)  # each has been accepted or refused
            refused = [task for task in guesses if task.done()]
            assert len(refused) == 20 and all(
                task is guesses[10 + n] for n, task in enumerate(refused)
            )
            for task in refused:
                error = task.exception()
                assert isinstance(error, ApiError) and error.status == 503
                assert error.retry_after and error.retry_after > 1.0
            assert queue.running == 1 and len(queue.waiting) == 9  # the kept worker is idle
            with pytest.raises(ApiError) as twice:
                await queue.run("203.0.113.5", SUSPECT, blocked, gate, "again")
            assert twice.value.status == 429
            person = asyncio.create_task(queue.run("198.51.100.7", CLEAN, blocked, gate, "me"))
            owner = asyncio.create_task(queue.run("device:1", KNOWN, blocked, gate, "owner"))
            gone = asyncio.create_task(queue.run("203.0.113.40", CLEAN, blocked, gate, "gone"))
            await asyncio.sleep(0)
            gone.cancel()  # its client went away before its turn: never hashed
            gate.set()
            assert await person == "me" and await owner == "owner"
            assert await asyncio.gather(*guesses[:10]) == list(range(10))
            order = [client for _priority, client in queue.started]
            assert order[:3] == ["203.0.113.0", "device:1", "198.51.100.7"]
            assert "203.0.113.40" not in order and len(order) == 12
            assert queue.clients == {} and queue.running == 0
        finally:
            gate.set()
            queue.close()

    run_async(flood)


def test_the_budget_holds_for_clean_clients_too() -> None:
    """However many fresh addresses ask at once, none waits past the budget: the ones beyond it
    are refused at once; a known device still goes first."""

    async def many() -> None:
        gate = threading.Event()
        queue = PasswordQueue(workers=2, budget=0.5)
        queue.seconds = 0.1
        try:
            asks = [
                asyncio.create_task(queue.run(f"192.0.2.{n}", CLEAN, blocked, gate, n))
                for n in range(40)
            ]
            await asyncio.sleep(0)
            assert sum(1 for task in asks if not task.done()) == 5  # 5 rounds of 1
            assert queue.estimate(CLEAN) > queue.budget >= queue.estimate(KNOWN)
            owner = asyncio.create_task(queue.run("device:2", KNOWN, blocked, gate, "owner"))
            await asyncio.sleep(0)
            gate.set()
            assert await owner == "owner"
            await asyncio.gather(*asks, return_exceptions=True)
            assert [client for _p, client in queue.started][1] == "device:2"
        finally:
            gate.set()
            queue.close()

    run_async(many)


def test_a_check_that_ends_before_its_callback_is_added_does_not_stall_the_queue() -> None:
    """A check can end before ``add_done_callback`` is called (a fast hash on a busy machine):
    the callback then runs at once, inside the pump, which must not lock itself out."""

    class AtOnce(Executor):
        def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Future[Any]:
            done: Future[Any] = Future()
            done.set_result(fn(*args, **kwargs))
            return done

    async def checks() -> list[object]:
        queue = PasswordQueue(workers=1, budget=5.0)
        queue._executor = AtOnce()  # type: ignore[assignment]
        asks = [queue.run(f"198.51.100.{n}", CLEAN, lambda n=n: n) for n in range(3)]
        return list(await asyncio.gather(*asks))

    found: list[object] = []
    thread = threading.Thread(target=lambda: found.append(run_async(checks)), daemon=True)
    thread.start()
    thread.join(60)
    assert not thread.is_alive(), "the queue locked itself"
    assert found == [[0, 1, 2]]
