"""Moderation as stored: people's reports of chat lines and players, an operator's measures on
accounts (mute, suspend, delete) and chat lines (remove), and the log of every such action, in
the transaction of the action itself (an action is never made without its log row)."""

from __future__ import annotations

import time
from dataclasses import dataclass

from sqlalchemy import delete, func, insert, select, update
from sqlalchemy.engine import Connection

from cradle.core.words import N_
from cradle.server.store.accounts import AccountStore
from cradle.server.store.database import Database
from cradle.server.store.errors import Refused, StorageError
from cradle.server.store.schema import (
    AccountRow,
    ChatLineRow,
    ModerationRow,
    ReportRow,
    SessionRow,
)

OPEN_REPORTS = 10_000  # open reports kept at most: a flood of them is refused beyond
ACTIONS = ("mute", "unmute", "suspend", "unsuspend", "delete", "remove-line", "close")


@dataclass(frozen=True)
class Report:
    """A report as the operator reads it."""

    id: int
    created: float
    game_id: str | None
    line_id: int | None
    name: str
    quoted: str | None
    reporter: str
    reason: str
    closed: bool


@dataclass(frozen=True)
class Logged:
    """One operator's action as logged."""

    id: int
    at: float
    operator: str
    action: str
    target: str
    why: str


@dataclass(frozen=True)
class Standing:
    """An account's measures: whether it may write in the chat, and sign in."""

    muted: bool
    suspended: bool


class ModerationStore:
    """Reports, the operator's measures and their log."""

    def __init__(self, database: Database, accounts: AccountStore) -> None:
        self.database = database
        self.accounts = accounts

    # -- people: reports, and what the measures stop ---------------------------------------

    def report_line(self, game_id: str, line_id: int, reporter: str, reason: str) -> int | None:
        """A report of the chat line ``line_id`` of ``game_id`` (its words kept as they were:
        the line may be removed): its number; None when there is no such line."""
        with self.database.transaction() as connection:
            line = connection.execute(
                select(ChatLineRow.speaker, ChatLineRow.name, ChatLineRow.text).where(
                    ChatLineRow.id == line_id, ChatLineRow.game_id == game_id
                )
            ).first()
            if line is None:
                return None
            speaker = str(line.speaker)
            target = speaker[2:] if speaker.startswith("a:") else None
            return self._report(
                connection,
                game_id,
                line_id,
                target,
                str(line.name),
                str(line.text),
                reporter,
                reason,
            )

    def report_player(self, name_key: str, reporter: str, reason: str) -> int | None:
        """A report of the player whose name's key is ``name_key``: its number; None when
        there is no such player."""
        with self.database.transaction() as connection:
            found = connection.execute(
                select(AccountRow.id, AccountRow.name).where(AccountRow.name_key == name_key)
            ).first()
            if found is None:
                return None
            return self._report(
                connection, None, None, str(found.id), str(found.name), None, reporter, reason
            )

    def _report(
        self,
        connection: Connection,
        game_id: str | None,
        line_id: int | None,
        target: str | None,
        name: str,
        quoted: str | None,
        reporter: str,
        reason: str,
    ) -> int:
        waiting = connection.scalar(
            select(func.count()).select_from(ReportRow).where(ReportRow.closed.is_(False))
        )
        if int(waiting or 0) >= OPEN_REPORTS:  # Refused: a flood, refused before it fills a disk
            raise Refused("too many reports", N_("too many reports wait for the operator"))
        made = connection.scalar(
            insert(ReportRow)
            .values(
                created=time.time(),
                game_id=game_id,
                line_id=line_id,
                target=target,
                name=name[:80],
                quoted=quoted,
                reporter=reporter[:80],
                reason=reason,
                closed=False,
            )
            .returning(ReportRow.id)
        )
        if not isinstance(made, int):
            raise StorageError("a report was not stored")
        return made

    def standing(self, account_id: str) -> Standing:
        """The account's measures (an account unknown: none)."""
        with self.database.engine.connect() as connection:
            found = connection.execute(
                select(AccountRow.muted, AccountRow.suspended).where(AccountRow.id == account_id)
            ).first()
        if found is None:
            return Standing(False, False)
        # A value that is not a clear "no" counts as the measure (it errs on the safe side).
        return Standing(
            found.muted is not False and found.muted != 0,
            found.suspended is not False and found.suspended != 0,
        )

    # -- the operator -----------------------------------------------------------------------

    def reports(self, everything: bool = False, limit: int = 100) -> list[Report]:
        """The open reports (``everything``: closed ones too), oldest first."""
        query = select(ReportRow).order_by(ReportRow.created, ReportRow.id).limit(limit)
        if not everything:
            query = query.where(ReportRow.closed.is_(False))
        with self.database.engine.connect() as connection:
            rows = connection.execute(query).all()
        return [
            Report(
                int(r.id),
                float(r.created),
                r.game_id,
                r.line_id,
                str(r.name),
                r.quoted,
                str(r.reporter),
                str(r.reason),
                bool(r.closed),
            )
            for r in rows
        ]

    def log(self, limit: int = 100) -> list[Logged]:
        """The latest operator's actions, oldest first."""
        with self.database.engine.connect() as connection:
            rows = connection.execute(
                select(ModerationRow)
                .order_by(ModerationRow.at.desc(), ModerationRow.id.desc())
                .limit(limit)
            ).all()
        return [
            Logged(
                int(r.id), float(r.at), str(r.operator), str(r.action), str(r.target), str(r.why)
            )
            for r in reversed(rows)
        ]

    def _logged(
        self, connection: Connection, operator: str, action: str, target: str, why: str
    ) -> None:
        connection.execute(
            insert(ModerationRow).values(
                at=time.time(),
                operator=operator[:80],
                action=action,
                target=target[:200],
                why=why,
            )
        )

    def _account(self, connection: Connection, name_key: str) -> tuple[str, str]:
        found = connection.execute(
            select(AccountRow.id, AccountRow.name).where(AccountRow.name_key == name_key)
        ).first()
        if found is None:
            raise Refused("no such account", "no account has that name")
        return str(found.id), str(found.name)

    def set_measure(self, name_key: str, measure: str, on: bool, operator: str, why: str) -> str:
        """Mute (``measure`` "muted") or suspend ("suspended") an account, or lift it; a
        suspension ends its sessions. Logged; the account's name."""
        assert measure in ("muted", "suspended")
        with self.database.transaction() as connection:
            account_id, name = self._account(connection, name_key)
            connection.execute(
                update(AccountRow).where(AccountRow.id == account_id).values({measure: on})
            )
            if measure == "suspended" and on:
                connection.execute(delete(SessionRow).where(SessionRow.account_id == account_id))
            action = {"muted": "mute", "suspended": "suspend"}[measure]
            self._logged(
                connection,
                operator,
                action if on else "un" + action,
                f"account {name} ({account_id})",
                why,
            )
        return name

    def delete_account(self, name_key: str, operator: str, why: str) -> str:
        """Delete an account (as its owner would: its games stay, its seats and lines named
        "former player"). Logged (by name and id: the log outlives it)."""
        with self.database.transaction() as connection:
            account_id, name = self._account(connection, name_key)
            self.accounts.delete_in(connection, account_id)
            self._logged(connection, operator, "delete", f"account {name} ({account_id})", why)
        return name

    def remove_line(self, line_id: int, operator: str, why: str) -> str:
        """Remove a chat line (its words are kept in the log, for the record). Logged."""
        with self.database.transaction() as connection:
            line = connection.execute(
                select(ChatLineRow.game_id, ChatLineRow.name, ChatLineRow.text).where(
                    ChatLineRow.id == line_id
                )
            ).first()
            if line is None:
                raise Refused("no such line", f"there is no chat line {line_id}")
            connection.execute(delete(ChatLineRow).where(ChatLineRow.id == line_id))
            target = f"line {line_id} of game {line.game_id} by {line.name}"
            self._logged(
                connection, operator, "remove-line", target, f"{why} [the line: {line.text}]"
            )
        return str(line.game_id)

    def close_report(self, report_id: int, operator: str, why: str) -> None:
        """Close a report (dealt with). Logged."""
        with self.database.transaction() as connection:
            closed = connection.execute(
                update(ReportRow)
                .where(ReportRow.id == report_id, ReportRow.closed.is_(False))
                .values(closed=True)
            ).rowcount
            if not closed:
                raise Refused("no such report", f"there is no open report {report_id}")
            self._logged(connection, operator, "close", f"report {report_id}", why)
