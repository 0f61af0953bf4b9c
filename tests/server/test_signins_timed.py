"""The probe's attacks on signing in, timed (the long tier: wall-clock numbers need a machine
that is not crowded): a real server with real argon2id hashes, through lab/signin_flood.py."""

from __future__ import annotations

import pytest

from lab.signin_flood import run


@pytest.mark.long
def test_the_owner_signs_in_within_5_s_under_the_lockout_attack_and_the_hash_flood() -> None:
    found = run("both", seconds=40.0, every=3.0, owner_every=10.0, addresses=30, guesses=10)
    tries = [*found["lockout"]["owner"], found["flood"]["owner"]]
    assert tries and len(found["lockout"]["owner"]) >= 2
    for attempt in tries:
        for where, (status, seconds) in attempt.items():
            if where == "elsewhere" and attempt is found["flood"]["owner"]:
                # A browser and an address the account never used is a stranger in a flood:
                # let in or refused at once, never left waiting.
                assert status in (200, 503) and seconds <= 5.0, (where, status, seconds, found)
            else:
                assert status == 200 and seconds <= 5.0, (where, status, seconds, found)
