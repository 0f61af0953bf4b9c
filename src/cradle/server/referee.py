"""The one path of every change to a game (as boardgame.io's ``Master`` is the one path of a
move): a seat's move (HTTP or WebSocket), an undo, a bot's move (this process's bot workers, or
a ``cradle bots`` worker in a process of its own), a stand-in taking a seat's turn (chosen by
the others, or its deadline lapsing while the seat is away), a person coming back, a seat
taken or given a new token, a concession, a game ended without a seat whose deadline passed, a
game nobody moved in ending by itself, a live table's clock running out, and a table removed
before it began.

Each is ruled on the table as this process has it (a ``rule_*`` function: the game's rules
and the server's, game-agnostic, through the contract only), which gives a :class:`Ruling`:
the one stored change (one transaction, with its compare-and-set on the game's version, the
bots' queue, the owed turn notices, the ratings of a rated game it ends and the notice to the
other processes) and what the table looks like after it. The :class:`Referee` stores it and,
once it is committed, updates the table and publishes one event
(:class:`cradle.server.events.Changed`); whatever follows (the frames to the sockets, the bots,
the mails, the lobby, the analyses) subscribes to that. When another process changed the game
first, the table is read again and the change ruled on anew.

A ``cradle bots`` worker has no event loop and no tables: it rules on a table built from the
stored game and stores the ruling itself (:meth:`Ruling.commit`), the same change.
"""

from __future__ import annotations

import contextlib
import hmac
import logging
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from cradle.core.contract import Event, GameState, IllegalAction
from cradle.core.words import N_
from cradle.server import metrics
from cradle.server.botpool import decision_cost
from cradle.server.errors import ApiError, bad_request, forbidden, refused_action, unavailable
from cradle.server.events import Changed, Events
from cradle.server.runtime import Runtime
from cradle.server.store import Store
from cradle.server.store.errors import DATABASE_ERRORS, Conflict, CorruptGame, Refused
from cradle.server.store.games import STANDIN_DEFAULT, Clocks
from cradle.server.store.notices import turn_begins
from cradle.server.store.plays import (
    EndChange,
    LapseChange,
    MoveChange,
    PresenceChange,
    ReturnChange,
    StandInChange,
    UndoChange,
)
from cradle.server.store.seats import RekeyChange, SeatChange
from cradle.server.table import MAX_ACTION_LENGTH, Table, replay_record, snapshot, undo_event
from cradle.server.tables import Tables
from cradle.server.tokens import hash_token, new_token

log = logging.getLogger("cradle.server")

WRITE_ATTEMPTS = 4  # a write that keeps meeting other processes' changes gives up (503)


@dataclass(frozen=True)
class Settings:
    """What a ruling needs of the server besides the table: the most a bot thinks per decision
    (its turn's cost in the bots' queue), and whether a finished game a person played in is
    analysed by itself."""

    bot_seconds: float
    analyse: bool

    def analysed(self, table: Table) -> bool:
        return self.analyse and any(kind == "human" for kind in table.seats)


@dataclass(frozen=True)
class BotTurn:
    """A bot's move of the turn claimed at ``version``; ``clock``: (seat, seconds) the bot
    seat has spent in its turn with this move."""

    version: int
    clock: tuple[int, float] | None = None


Apply = Callable[[Table, float], list[Event] | None]


@dataclass(frozen=True)
class Ruling:
    """A change ruled on: ``kind`` (the event's), ``commit`` (the one transaction; the time it
    stored) and ``apply`` (the table's copy after it; the game's events of it, None: as before);
    ``then``: work under the table's lock once it is applied; ``fails``: what a client is told
    could not be stored when the database fails (a message of the catalogues)."""

    kind: str
    commit: Callable[[Store], float]
    apply: Apply
    then: Callable[[Table], Awaitable[None]] | None = None
    fails: str = N_("the change could not be stored")


# -- the rulings --------------------------------------------------------------------------------


def rule_move(
    table: Table, seat: int, action: str, settings: Settings, bot: BotTurn | None = None
) -> Ruling | None:
    """``seat`` plays ``action`` (400 when it is malformed, 409 when the rules do not allow
    it now: :func:`refused_action`; 403 when the seat may not move); None when it is
    a bot's move of a turn that went by (the table moved on since it was claimed)."""
    if bot is not None and table.version != bot.version:
        return None
    if len(action) > MAX_ACTION_LENGTH:
        raise bad_request(f"an action has at most {MAX_ACTION_LENGTH} characters")
    if table.is_over:
        raise forbidden(N_("the game is over"))
    if table.to_move() != seat:
        raise forbidden(f"it is not seat {seat}'s decision")
    before = table.state
    after = before.clone()
    try:
        events = list(after.apply(action) or [])
    except IllegalAction as exc:
        raise refused_action(exc) from None
    over = bool(after.is_over)
    status = "over" if over else table.status
    # A person's own move brings them back (their stand-in stops playing); a stand-in plays its
    # seat's whole turn, and no more; the log says it made the move, not the person.
    standin = None if bot is None else table.standin_after(seat, after)
    away = table.away - {seat} if bot is None and seat in table.away else None
    level = None
    if bot is not None and table.standin == seat:
        level = table.standins.get(seat, STANDIN_DEFAULT)
    playing = table.playing(standin)
    deciding = None if over else int(after.to_move)
    # A live table's clocks: the mover's stops when its turn ends (a person's move earns the
    # increment; a stand-in's does not), the next person's runs.
    ends = seat if deciding != seat else None
    clocks = table.clocks_after(after, standin, ends, increment=bot is None)
    change = MoveChange(
        game_id=table.id,
        ply=table.ply,
        version=table.version,
        seat=seat,
        action=action,
        status=status,
        result=after.result() if over else None,
        bot_turn=table.bot_turn(after, standin),
        bot_cost=decision_cost(playing, after, table.bot_seconds, settings.bot_seconds),
        analyse=over and settings.analysed(table),
        # A person's move at a table nobody can still join: the game is being played.
        person=bot is None and table.seats[seat] == "human" and status != "open",
        clock=None if bot is None else bot.clock,
        standin=standin,
        turn_based=table.mode == "turn",
        # A person's turn begins: its mail is owed (any server process sends it).
        begins=turn_begins(table.mode, playing, table.claimed, seat, deciding, table.ply + 1),
        away=None if away is None else frozenset(away),
        standin_level=level,
        clocks=clocks,
    )

    def apply(table: Table, updated: float) -> list[Event]:
        table.previous, table.state = before, after
        table.standin = standin
        if away is not None:
            table.away = set(away)
        table.record.actions.append(action)
        table.action_seats.append(seat)
        table.action_standins.append(level)
        table.clock_moved(updated)
        table.clocks_stored(clocks, updated)
        return events

    return Ruling(
        "move",
        lambda store: store.plays.move(change),
        apply,
        fails=N_("the move could not be stored"),
    )


def undo_reason(table: Table, seat: int) -> str | None:
    """Why ``seat`` may not take its last action back now (None: it may).

    The rule: only the seat that decides now, only its own last action, only while no other
    seat has decided since, and only if that action revealed nothing hidden (no tile drawn,
    no hidden stack turned). The last condition is tested in two ways: the public count of
    hidden tiles (the game's ``DRAW_COUNTERS``) must not have changed, and the action is
    replayed on a few states that differ only in what ``seat`` cannot know: if the seat would
    see the same thing after it in every one, the action revealed nothing.
    """
    if table.is_over:
        return "the game is over"
    if table.rated:
        return "a rated game has no undo"
    if table.seats[seat] != "human":
        return "only people take moves back"
    if not table.record.actions or table.action_seats[-1] != seat:
        return "your last move is not the last move of the game"
    if table.to_move() != seat:
        return "another player decides now"
    before = table.previous
    if before is None or before.to_move != seat:
        return "that move cannot be taken back"
    action = table.record.actions[-1]
    seen = table.state.view(seat)
    earlier = before.view(seat)
    if any(earlier.get(key) != seen.get(key) for key in table.module.DRAW_COUNTERS):
        return "that move drew from the hidden tiles"
    for sample in range(2):
        try:
            trial = before.sample_hidden(seat, random.Random(sample))
            trial.apply(action)
            if trial.view(seat) != seen:
                return "that move revealed hidden information"
        except Exception:
            return "that move cannot be taken back"
    return None


def rule_undo(table: Table, seat: int, settings: Settings, runtime: Runtime) -> Ruling:
    """``seat`` takes its last action back (403 saying why it may not)."""
    reason = undo_reason(table, seat)
    if reason is not None:
        raise forbidden(f"cannot undo: {reason}")
    before: GameState | None = table.previous
    assert before is not None  # undo_reason refuses an undo without it
    change = UndoChange(
        game_id=table.id,
        ply=table.ply,
        version=table.version,
        status="running" if not table.open_seats() else "open",
        bot_turn=table.bot_turn(before, None),
        bot_cost=decision_cost(table.seats, before, table.bot_seconds, settings.bot_seconds),
        clocks=table.clocks_after(before, None, None),  # the same person decides: it runs on
    )

    def apply(table: Table, updated: float) -> list[Event]:
        undone = table.record.actions.pop()
        table.action_seats.pop()
        table.action_standins.pop()
        table.state = before
        table.standin = None
        table.clock_moved(updated)
        table.clocks_stored(change.clocks, updated)
        # The state before that is not kept: a second undo in a row replays the record.
        table.previous = None
        return [undo_event(table, seat, undone)]

    async def then(table: Table) -> None:
        if table.previous is None and table.record.actions:
            record, _ = snapshot(table)
            with contextlib.suppress(CorruptGame):
                table.previous = (await runtime.engine(replay_record, record)).previous

    return Ruling("undo", lambda store: store.plays.undo(change), apply, then, "the undo")


def rule_stand_in(table: Table, late: int, away: set[int], settings: Settings) -> Ruling:
    """``late``'s stand-in bot plays its turn (its deadline passed); ``away``: the seats away
    from then on, whose stand-in plays each of their turns whose deadline passes."""
    cost = decision_cost(table.playing(late), table.state, table.bot_seconds, settings.bot_seconds)
    # A live table's clock of that seat stops (what it had left stays: none, if it ran out).
    clocks = table.clocks_after(table.state, late, late, increment=False)
    change = StandInChange(table.id, table.version, late, cost, frozenset(away), clocks)

    def apply(table: Table, updated: float) -> list[Event]:
        table.standin, table.deadline, table.away = late, None, set(away)
        table.clocks_stored(clocks, updated)
        return []

    return Ruling("standin", lambda store: store.plays.stand_in(change), apply)


def rule_return(table: Table, seat: int) -> Ruling:
    """``seat``'s person is back: its stand-in stops playing for it (a turn the stand-in holds
    is the person's again, with a fresh deadline)."""
    if table.is_over:
        raise forbidden(N_("the game is over"))
    if seat not in table.away:
        raise forbidden(N_("no stand-in plays for your seat"))
    deciding = table.standin == seat
    away = table.away - {seat}
    clocks = None
    if table.clock_base_s is not None:
        # A live table's: a clock that ran out starts again at the base time (the others let
        # the stand-in play rather than end the game); the person's runs if they decide.
        left = list(table.clock_left)
        left[seat] = max(left[seat], table.clock_base_s)
        clocks = Clocks(tuple(left), runs=seat, keep=not deciding, until=table.deadline)
    change = ReturnChange(table.id, table.version, seat, frozenset(away), deciding, clocks)

    def apply(table: Table, updated: float) -> list[Event]:
        table.away = set(away)
        if deciding:
            table.standin = None
            table.clock_moved(updated)
        table.clocks_stored(clocks, updated)
        return []

    return Ruling("return", lambda store: store.plays.come_back(change), apply)


def rule_lapse(table: Table, now: float, settings: Settings) -> Ruling:
    """The running clock of a live table ran out before ``now``: it stops with nothing left,
    and the others may let the seat's stand-in play for it or end the game without it. For a
    seat away (the others let its stand-in play its turns whose time runs out), the stand-in
    plays at once."""
    seat = table.to_move()
    if table.clock_base_s is None or seat is None or table.deadline is None:
        raise forbidden(N_("no clock runs"))
    if table.deadline >= now or table.bot_turn():
        raise forbidden(N_("moved on meanwhile"))
    if seat in table.away:
        return rule_stand_in(table, seat, table.away, settings)
    left = list(table.clock_left)
    left[seat] = 0.0
    clocks = Clocks(tuple(left))
    change = LapseChange(table.id, table.version, clocks)

    def apply(table: Table, updated: float) -> list[Event]:
        table.clocks_stored(clocks, updated)
        return []

    return Ruling("lapse", lambda store: store.plays.lapse(change), apply)


def rule_presence(table: Table, seat: int, gone: float | None) -> Ruling | None:
    """At a live table with clocks: ``seat``'s person has had no page open since ``gone``
    (None: they have one again); None when that is known already (or changes nothing: no
    clocks, the game over, a page of theirs open again meanwhile)."""
    if table.clock_base_s is None or table.is_over or seat not in table.tokens:
        return None
    here = any(c.seat == seat and not c.hotseat for c in table.connections)
    if (gone is None) != here or (seat in table.gone) == (gone is not None):
        return None
    change = PresenceChange(table.id, table.version, seat, gone)

    def apply(table: Table, updated: float) -> list[Event] | None:
        if gone is None:
            table.gone.pop(seat, None)
        else:
            table.gone[seat] = gone
        return None

    return Ruling("presence", lambda store: store.plays.presence(change), apply)


def early_result(standings: list[dict[str, Any]], out: int, ended_by: str) -> list[dict[str, Any]]:
    """The result of a game ended with seat ``out`` leaving (``ended_by``): the others keep
    their order of the standings at that moment (ties share a place), ``out`` is last."""
    others = [line for line in standings if line["seat"] != out]
    result = []
    for line in standings:
        line = dict(line)
        if line["seat"] == out:
            line["place"] = len(others) + 1
            line["out"] = ended_by
        else:
            line["place"] = 1 + sum(1 for other in others if other["place"] < line["place"])
        result.append(line)
    return result


def rule_end(table: Table, out: int, ended_by: str) -> Ruling:
    """The game ends before its rules end it, seat ``out`` last (``ended_by``: how); a rated
    game's ratings move with it, that seat's a loss."""
    if table.is_over:
        raise forbidden(N_("the game is over"))
    result = early_result([dict(line) for line in table.result()], out, ended_by)
    change = EndChange(table.id, table.version, result, ended_by)

    def apply(table: Table, updated: float) -> list[Event]:
        table.ended_by, table.early_result = ended_by, result
        table.standin, table.deadline, table.away = None, None, set()
        return []

    return Ruling("end", lambda store: store.plays.end_early(change), apply)


def rule_remove(table: Table) -> Ruling:
    """The creator removes a table nobody has moved at yet (it answers 410 from then on)."""
    if table.ply > 0 or table.is_over:
        raise forbidden(N_("the game has begun: concede instead"))
    game_id, version = table.id, table.version

    def apply(table: Table, updated: float) -> None:
        table.ended = "removed"
        return None

    return Ruling("removed", lambda store: store.plays.remove(game_id, version), apply)


@dataclass(frozen=True)
class Seating:
    """A seat ruled on: its number and the fresh token of whoever takes it."""

    seat: int
    token: str


def rule_seat(
    table: Table,
    seating: list[Seating],
    invite: str | None,
    account: str | None,
    name: str | None,
    standin: str | None,
    invitation: tuple[str, int] | None = None,
) -> Ruling:
    """Take a seat: the one the ``invite`` code was made for, the one of a friend's
    ``invitation`` (its id and seat, in ``account``'s inbox: used up, and the seat's invite
    code with it), or else the first open seat of a listed table, with a fresh token (put in
    ``seating``); the seat is ``account``'s (None: a guest's), shows ``name``, and ``standin``
    may play for it when its deadline passes."""
    if table.is_over:
        raise forbidden(N_("the game is over"))
    if table.rated and account is None:
        raise forbidden(
            N_("this game is rated: sign in to take a seat (ratings belong to accounts)")
        )
    if table.rated and account in table.accounts.values():
        raise forbidden(N_("you already hold a seat at this rated game"))
    if invitation is not None:
        seat = invitation[1]
        if seat not in table.free_seats():
            raise forbidden(N_("somebody else took this seat"))
    elif invite is not None:
        digest = hash_token(invite)
        matches = [s for s, c in table.invites.items() if hmac.compare_digest(c, digest)]
        if not matches:
            raise forbidden(N_("this invite is not valid (each invite works once)"))
        seat = matches[0]
        if table.invite_expired(seat):
            raise forbidden(N_("this invite expired"))
    else:
        free = table.open_seats()
        if not table.listed or not free:
            raise forbidden(N_("this game has no open seat"))
        seat = free[0]
    token = new_token()
    seating[:] = [Seating(seat, token)]
    claimed = {**table.claimed, seat: True}
    status = "open" if any(not c for c in claimed.values()) else "running"
    # Everyone is seated: the person deciding is owed a mail (they may have left since they
    # made the table).
    begins = turn_begins(
        table.mode, table.playing(), claimed, None, table.to_move(), table.turn_start()
    )
    # A live table's clock starts once everyone is seated (an invited seat's person too).
    unseated = set(table.free_seats()) - {seat}
    clocks = table.clocks_after(table.state, table.standin, None, free=unseated, start=True)
    change = SeatChange(
        game_id=table.id,
        seat=seat,
        token=hash_token(token),
        version=table.version,
        status=status,
        invite=None if invite is None else hash_token(invite),
        account=account,
        name=name,
        standin=standin,
        begins=begins if status == "running" else None,
        invitation=None if invitation is None else invitation[0],
        clocks=clocks,
    )

    def apply(table: Table, updated: float) -> None:
        table.tokens[seat] = hash_token(token)
        table.claimed[seat] = True
        if account is not None:
            table.accounts[seat] = account
        if name is not None:
            table.names[seat] = name
        table.invites.pop(seat, None)
        table.invite_expires.pop(seat, None)
        if standin is not None:
            table.standins[seat] = standin
        else:
            table.standins.pop(seat, None)
        if status == "running" and table.deadline is None:
            table.clock_moved(updated)  # everyone is seated: the clock starts
        table.clocks_stored(clocks, updated)

    return Ruling(
        "seat",
        lambda store: store.seats.claim(change),
        apply,
        fails=N_("the seat could not be stored"),
    )


def rule_rekey(table: Table, seating: list[Seating], seat: int, transfer: str | None) -> Ruling:
    """A fresh token (put in ``seating``) for a taken ``seat``: the old one stops working.
    ``transfer``: the hash of the one-time code that hands it over, used up with it."""
    token = new_token()
    seating[:] = [Seating(seat, token)]
    change = RekeyChange(table.id, seat, hash_token(token), table.version, transfer)

    def apply(table: Table, updated: float) -> None:
        table.tokens[seat] = hash_token(token)

    return Ruling(
        "rekey",
        lambda store: store.seats.rekey(change),
        apply,
        fails=N_("the seat could not be stored"),
    )


# -- storing them -------------------------------------------------------------------------------


@dataclass(eq=False)
class Referee:
    """Stores this process's changes of its tables, each once, and publishes each."""

    store: Store
    runtime: Runtime
    tables: Tables
    events: Events
    settings: Settings

    async def change(self, table: Table, rule: Callable[[], Ruling | None]) -> bool:
        """Under the table's lock: ``rule`` on the table as it is, store the ruling, update the
        table, publish the change; False when ``rule`` found nothing to do. A refusal (an
        ApiError) on a shared database is ruled again on the table read back first (this copy
        may be behind another process); a change another process stored first (Conflict)
        reads the table again and rules anew."""
        async with table.lock:
            checked = not self.store.shared
            for _attempt in range(WRITE_ATTEMPTS):
                if table.ended is not None:
                    raise self.tables.gone(table)
                try:
                    ruling = rule()
                except ApiError:
                    if checked:
                        raise
                    checked = True
                    await self.tables.reload(table)
                    continue
                if ruling is None:
                    return False
                try:
                    updated = await self.runtime.db(ruling.commit, self.store)
                except Conflict:
                    checked = True
                    await self.tables.reload(table)  # another process changed it: rule again
                    continue
                except Refused as exc:  # a code used or lapsed meanwhile
                    raise forbidden(exc.reason) from None
                except DATABASE_ERRORS as exc:
                    log.error("game %s: %s", table.id, exc)
                    raise unavailable(exc, ruling.fails) from None
                events = ruling.apply(table, updated)
                table.moved_on(events, updated)
                self.events.publish(Changed(table, ruling.kind))
                if ruling.then is not None:
                    await ruling.then(table)
                return True
        raise ApiError(503, N_("the game keeps changing; try again"))

    async def move(self, table: Table, seat: int, action: str, bot: BotTurn | None = None) -> bool:
        """``seat`` plays ``action``; False when it was a bot's move of a turn that went by."""
        action = " ".join(action.split())
        if len(action) > MAX_ACTION_LENGTH:
            raise bad_request(f"an action has at most {MAX_ACTION_LENGTH} characters")
        arrived = time.monotonic()
        moved = await self.change(table, lambda: rule_move(table, seat, action, self.settings, bot))
        if moved:
            metrics.MOVES.labels(table.game, "person" if bot is None else "bot").inc()
            metrics.MOVE_SECONDS.labels(table.game).observe(time.monotonic() - arrived)
        return moved

    async def undo(self, table: Table, seat: int) -> None:
        await self.change(table, lambda: rule_undo(table, seat, self.settings, self.runtime))

    async def end(self, table: Table, out: Callable[[], int], ended_by: str) -> None:
        """End ``table`` with seat ``out()`` last (it may refuse: 403)."""
        await self.change(table, lambda: rule_end(table, out(), ended_by))

    async def seat(
        self,
        table: Table,
        invite: str | None,
        account: str | None,
        name: str | None,
        standin: str | None,
        invitation: tuple[str, int] | None = None,
    ) -> Seating:
        """Take a seat (see :func:`rule_seat`): its number and its token."""
        seating: list[Seating] = []
        await self.change(
            table, lambda: rule_seat(table, seating, invite, account, name, standin, invitation)
        )
        return seating[0]

    async def rekey(self, table: Table, seat: int, transfer: str | None) -> str:
        """A fresh token for a taken seat (see :func:`rule_rekey`)."""
        seating: list[Seating] = []
        await self.change(table, lambda: rule_rekey(table, seating, seat, transfer))
        return seating[0].token
