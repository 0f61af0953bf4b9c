"""A server killed with SIGKILL and started again resumes every game exactly, bots included."""

from __future__ import annotations

import time
import urllib.error

import pytest

from cradle.core.record import GameRecord
from tests.helpers.server import GAMES, PlayServer, check_bots_played_as_if_never_stopped, wait_for

pytestmark = pytest.mark.skipif("tigris" not in GAMES, reason="needs the Tigris engine")


def test_sigkill_and_restart(any_db_url: str) -> None:
    server = PlayServer(any_db_url, bot_delay=0.01).start()
    try:
        human = server.post("/api/games", {"game": "tigris", "seats": ["human", "bot:random"]})
        bots = server.post(
            "/api/games",
            {"game": "tigris", "players": 3, "seats": ["bot:random"] * 3},
        )
        token = human["seats"][0]["token"]
        played: list[str] = []
        while len(played) < 6:
            seen = server.get(f"/api/games/{human['id']}", token)
            if not seen["legal_actions"]:
                time.sleep(0.01)
                continue
            # A tile when there is one; otherwise whatever is legal (a revolt or war the random
            # bot starts asks the human for a commitment, where "pass" is not legal).
            legal = seen["legal_actions"]
            action = next((a for a in legal if a.startswith("tile")), legal[0])
            server.post(f"/api/games/{human['id']}/actions", {"action": action}, token)
            played.append(action)
        wait_for(lambda: server.get(f"/api/games/{bots['id']}")["table"]["moves"] >= 20)
        acknowledged = server.get(f"/api/games/{human['id']}/record", token)["actions"]
        bot_moves = server.get(f"/api/games/{bots['id']}")["table"]["moves"]
        last_version = server.get(f"/api/games/{human['id']}", token)["table"]["version"]
    finally:
        server.kill()

    again = PlayServer(any_db_url, bot_delay=0.0).start()
    try:
        resumed = again.get(f"/api/games/{human['id']}/record", token)["actions"]
        assert resumed[: len(acknowledged)] == acknowledged
        # The bots' game goes on by itself and ends as if the server had never stopped.
        wait_for(lambda: again.get(f"/api/games/{bots['id']}")["table"]["status"] == "over")
        record = GameRecord.from_dict(again.get(f"/api/games/{bots['id']}/record"))
        assert len(record.actions) > bot_moves
        check_bots_played_as_if_never_stopped(record, ["bot:random"] * 3)
        # The person's game goes on too, with the same hand as before the crash.
        seen = again.get(f"/api/games/{human['id']}", token)
        assert seen["table"]["moves"] >= len(acknowledged)
        # The version a client saw never goes back, restarts included.
        assert seen["table"]["version"] >= last_version
        wait_for(lambda: bool(again.get(f"/api/games/{human['id']}", token)["legal_actions"]))
        seen = again.get(f"/api/games/{human['id']}", token)
        moved = again.post(f"/api/games/{human['id']}/actions", {"action": "pass"}, token)
        assert moved["table"]["moves"] == seen["table"]["moves"] + 1
        assert moved["table"]["version"] == seen["table"]["version"] + 1
        with pytest.raises(urllib.error.HTTPError) as refused:
            again.post(f"/api/games/{human['id']}/actions", {"action": "pass"}, "forged")
        assert refused.value.code == 403
    finally:
        again.stop()
