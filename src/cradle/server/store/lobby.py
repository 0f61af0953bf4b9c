"""The lobby's reading of the games: pages of listed games, most recently active first
(never seeds or tokens), filtered by game, players, mode and variant, and which of them rate
their players."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NotRequired, TypedDict

from sqlalchemy import or_, select
from sqlalchemy.engine import RowMapping

from cradle.server.ratings import rates
from cradle.server.store.database import Database
from cradle.server.store.errors import CorruptGame
from cradle.server.store.games import game_columns, shown_options
from cradle.server.store.reader import Reader, checked_id
from cradle.server.store.schema import (
    ENDED,
    ENDINGS,
    GAME_STATUSES,
    MODES,
    GameRow,
    InviteRow,
    SeatRow,
)

# What a lobby row shows: never a seed or a token.
LOBBY_COLUMNS = game_columns(
    "id game players seats options result hotseat status moves created updated mode deadline_s "
    "deadline ended_by rated"
)
LOBBY_SCANS = 10  # pages of rows a filtered lobby page reads at most


@dataclass(frozen=True)
class LobbyFilter:
    """What a lobby page shows (None: any): the game, its number of players, live or
    turn-based, options a variant sets (name -> value), and only these game ids."""

    game: str | None = None
    players: int | None = None
    mode: str | None = None
    options: tuple[tuple[str, Any], ...] = ()
    ids: tuple[str, ...] | None = None

    def wanted(self, row: ListedGame) -> bool:
        if self.players is not None and len(row["players"]) != self.players:
            return False
        options = row.get("all_options", row["options"])
        return all(options.get(name) == value for name, value in self.options)


class ListedGame(TypedDict):
    """A listed game's public facts as the lobby reads them (never seeds or tokens)."""

    id: str
    game: str
    players: list[str]
    seats: list[str]
    hotseat: bool
    status: str
    moves: int
    created: float
    updated: float
    options: dict[str, Any]  # as shown: a long text option only named (shown_options)
    all_options: NotRequired[dict[str, Any]]  # the lobby's filters read these; never shown
    mode: str
    deadline_s: float | None
    deadline: float | None
    ended_by: str | None
    result: list[dict[str, Any]] | None
    rated: bool  # the game rates its players (ratings.rates), or will when its seats fill
    names: list[str | None]  # the people at the seats, where named (as a loaded table says)


def decode_lobby_row(row: RowMapping) -> ListedGame:
    """A lobby row's public facts, checked like every stored value (:class:`Reader`)."""
    read = Reader(checked_id(row["id"]))
    options = read.json(row["options"], "options")
    if not isinstance(options, dict):
        read.fail("its stored options are not an object")
    result = None if row["result"] is None else read.json(row["result"], "result")
    if result is not None and not (
        isinstance(result, list) and all(isinstance(place, dict) for place in result)
    ):
        read.fail("its stored result is not a list of places")
    deadline_s, deadline, ended_by = row["deadline_s"], row["deadline"], row["ended_by"]
    return ListedGame(
        id=read.game_id,
        game=read.text(row["game"], "game", 20),
        players=read.names(row["players"], "players"),
        seats=read.names(row["seats"], "seats"),
        options=shown_options(options),
        all_options=options,  # for the lobby's filters; not shown
        hotseat=read.flag(row["hotseat"], "hot-seat flag"),
        status=read.text(row["status"], "status", 10, GAME_STATUSES),
        moves=read.integer(row["moves"], "move count"),
        created=read.number(row["created"], "creation time"),
        updated=read.number(row["updated"], "time of change"),
        mode=read.text(row["mode"], "mode", 5, MODES),
        deadline_s=None if deadline_s is None else read.number(deadline_s, "time per move"),
        deadline=None if deadline is None else read.number(deadline, "deadline"),
        ended_by=None if ended_by is None else read.text(ended_by, "ending", 10, ENDINGS),
        result=result,
        rated=read.flag(row["rated"], "rated flag"),  # made rated; list_games checks the seats
        names=[],  # list_games reads them from the seats
    )


class LobbyStore:
    """Lobby pages, and whether games rate their players."""

    def __init__(self, database: Database) -> None:
        self.database = database

    def list_games(
        self,
        limit: int = 50,
        before: tuple[float, str] | None = None,
        status: str | None = None,
        where: LobbyFilter | None = None,
    ) -> list[ListedGame]:
        """Public facts about listed games, most recently active first (never seeds or
        tokens); ``before`` (updated, id) pages on from the last row of a previous page;
        ``where``: only the games that match it."""
        query = select(*LOBBY_COLUMNS).where(GameRow.status.not_in(ENDED))
        # A private table is listed to no one, except by its id ("my games": those who hold
        # its link know it anyway).
        if where is None or where.ids is None:
            query = query.where(GameRow.listed.is_(True))
        if status is not None:
            query = query.where(GameRow.status == status)
        if where is not None:
            if where.game is not None:
                query = query.where(GameRow.game == where.game)
            if where.mode is not None:
                query = query.where(GameRow.mode == where.mode)
            if where.ids is not None:
                query = query.where(GameRow.id.in_(where.ids))
        games: list[ListedGame] = []
        # Filters on what only the decoded row knows (players, variants) read on until the
        # page is full, a bounded number of rows at most.
        for _scan in range(LOBBY_SCANS):
            page = query
            if before is not None:
                updated, last_id = before
                page = page.where(
                    (GameRow.updated < updated)
                    | ((GameRow.updated == updated) & (GameRow.id < last_id))
                )
            page = page.order_by(GameRow.updated.desc(), GameRow.id.desc()).limit(limit)
            with self.database.engine.connect() as connection:
                rows = connection.execute(page).all()
            for row in rows:
                try:  # a corrupt row is left out of the lobby, not the lobby out of service
                    found = decode_lobby_row(row._mapping)
                except CorruptGame:
                    continue
                keep = where is None or where.wanted(found)
                found.pop("all_options", None)
                if keep:
                    games.append(found)
            if len(rows) < limit or len(games) >= limit or where is None:
                break
            last = rows[-1]._mapping
            if not isinstance(last["updated"], int | float) or not isinstance(last["id"], str):
                break
            before = (float(last["updated"]), last["id"])
        games = games[:limit]
        rating = self.rated({g["id"]: len(g["seats"]) for g in games if g["rated"]})
        for game in games:
            game["rated"] = game["id"] in rating
        # The people's names at the seats: a table not loaded here is named as a loaded one
        # (a guest's seat read "Archer" in the lobby and "Guest 3868" at the table).
        named: dict[str, dict[int, str]] = {}
        if games:
            with self.database.engine.connect() as connection:
                for game_id, seat, name in connection.execute(
                    select(SeatRow.game_id, SeatRow.seat, SeatRow.name).where(
                        SeatRow.game_id.in_([g["id"] for g in games]), SeatRow.name.is_not(None)
                    )
                ):
                    named.setdefault(str(game_id), {})[int(seat)] = str(name)
        for game in games:
            seat_names = named.get(game["id"], {})
            game["names"] = [seat_names.get(seat) for seat in range(len(game["seats"]))]
        return games

    def rated(self, made_rated: Mapping[str, int]) -> set[str]:
        """Of the games made rated (id: number of seats), those that rate their players, or
        will once the seats that wait for a person (open, or invited) are taken
        (``ratings.rates``)."""
        if not made_rated:
            return set()
        holders: dict[str, dict[int, str]] = {}
        waiting: dict[str, set[int]] = {}
        now = time.time()
        ids = list(made_rated)
        with self.database.engine.connect() as connection:
            seats = connection.execute(
                select(SeatRow.game_id, SeatRow.seat, SeatRow.account_id, SeatRow.claimed).where(
                    SeatRow.game_id.in_(ids)
                )
            ).all()
            invited = connection.execute(
                select(InviteRow.game_id, InviteRow.seat).where(
                    InviteRow.game_id.in_(ids),
                    or_(InviteRow.expires.is_(None), InviteRow.expires > now),
                )
            ).all()
        for game_id, seat, account, claimed in seats:
            if account is not None:
                holders.setdefault(str(game_id), {})[int(seat)] = str(account)
            if claimed is False:
                waiting.setdefault(str(game_id), set()).add(int(seat))
        for game_id, seat in invited:
            waiting.setdefault(str(game_id), set()).add(int(seat))
        found = set()
        for game_id, count in made_rated.items():
            held = holders.get(game_id, {})
            seated = [held.get(seat) for seat in range(count)]
            if rates(True, seated, waiting.get(game_id, set())):
                found.add(game_id)
        return found
