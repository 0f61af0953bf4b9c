"""The tables' chat as stored: its lines (kept with their game) and the mutes; each write
tells the other processes (a ``chat`` or ``mute`` notice on the games' channel)."""

from __future__ import annotations

import time
from collections.abc import Collection
from dataclasses import dataclass

from sqlalchemy import Connection, delete, func, insert, select

from cradle.server.store.database import Database, client_hash
from cradle.server.store.errors import CorruptGame, StorageError
from cradle.server.store.reader import Reader, raw
from cradle.server.store.schema import AccountRow, ChatLineRow, ChatMuteRow

CHAT_KEY = 0x63686174  # with the game's hash: held while a spectator's number is given ("chat")


def spectator_handle(connection: Connection, game_id: str, hashed: str) -> str | None:
    """The handle (``v:N``) the guest spectator at the client ``hashed`` wrote under in
    ``game_id``'s chat; None: it has not written."""
    found = connection.execute(
        select(ChatLineRow.speaker)
        .where(
            ChatLineRow.game_id == game_id,
            ChatLineRow.client == hashed,
            ChatLineRow.speaker.startswith("v:"),
        )
        .limit(1)
    ).scalar()
    return None if found is None else str(found)


@dataclass(frozen=True)
class ChatLine:
    """A line of a table's chat as stored (see :class:`ChatLineRow`)."""

    id: int
    game_id: str
    seat: int | None
    speaker: str
    name: str
    text: str
    created: float


class ChatStore:
    """A table's chat lines and every viewer's mutes."""

    def __init__(self, database: Database) -> None:
        self.database = database

    def add_line(
        self,
        game_id: str,
        seat: int | None,
        speaker: str | None,
        name: str | None,
        client: str,
        words: str,
    ) -> ChatLine:
        """Store a line of ``game_id``'s chat and tell the other processes (``chat`` notice).
        A spectator (``speaker`` None) writes as the game's ``v:N``: the number it wrote under
        before, else the next one; ``name`` None: "spectator N"."""
        now = time.time()
        hashed = client_hash(client)
        with self.database.transaction() as connection:
            if speaker is None:
                # Two new spectators at once must not get one number.
                self.database.lock(connection, CHAT_KEY, game_id)
                known = spectator_handle(connection, game_id, hashed)
                if known is None:
                    count = connection.scalar(
                        select(func.count(func.distinct(ChatLineRow.speaker))).where(
                            ChatLineRow.game_id == game_id, ChatLineRow.speaker.startswith("v:")
                        )
                    )
                    known = f"v:{int(count or 0) + 1}"
                speaker = known
            shown = name if name is not None else f"spectator {speaker[2:]}"
            line_id = connection.scalar(
                insert(ChatLineRow)
                .values(
                    game_id=game_id,
                    seat=seat,
                    speaker=speaker,
                    name=shown,
                    client=hashed if seat is None else None,
                    text=words,
                    created=now,
                )
                .returning(ChatLineRow.id)
            )
            if line_id is None:
                raise StorageError("the chat line was not stored")
            self.database.notify(connection, f"chat {game_id} {line_id} {self.database.origin}")
        return ChatLine(int(line_id), game_id, seat, speaker, shown, words, now)

    def lines(
        self, game_id: str, limit: int, after: int = 0, line: int | None = None
    ) -> list[ChatLine]:
        """The last ``limit`` lines of the game's chat after line ``after`` (or line ``line``
        alone), oldest first. A line that cannot be read back is left out, not the chat."""
        query = select(
            raw(ChatLineRow.id),
            raw(ChatLineRow.seat),
            raw(ChatLineRow.speaker),
            raw(ChatLineRow.name),
            raw(ChatLineRow.text),
            raw(ChatLineRow.created),
        ).where(ChatLineRow.game_id == game_id, ChatLineRow.id > after)
        if line is not None:
            query = query.where(ChatLineRow.id == line)
        query = query.order_by(ChatLineRow.id.desc()).limit(limit)
        with self.database.engine.connect() as connection:
            rows = connection.execute(query).all()
        lines = []
        read = Reader(game_id)
        for row in reversed(rows):
            try:
                seat = None if row.seat is None else read.integer(row.seat, "seat", 0, 7)
                lines.append(
                    ChatLine(
                        id=read.integer(row.id, "line"),
                        game_id=game_id,
                        seat=seat,
                        speaker=read.text(row.speaker, "speaker", 80),
                        name=read.text(row.name, "name", 80),
                        text=read.text(row.text, "chat line", 2000),
                        created=read.number(row.created, "time"),
                    )
                )
            except CorruptGame:
                continue
        return lines

    def spectator_of(self, game_id: str, client: str) -> str | None:
        """The handle (``v:N``) the guest spectator at ``client`` (hashed) writes under in
        ``game_id``'s chat (None: it has not written)."""
        with self.database.engine.connect() as connection:
            return spectator_handle(connection, game_id, client)

    def speaker_names(self, game_id: str, speakers: Collection[str]) -> dict[str, str]:
        """The names of ``speakers`` (as a game's chat names them): an account's own, another
        speaker's as its latest line in ``game_id`` shows it (none: left out)."""
        ids = [speaker[2:] for speaker in speakers if speaker.startswith("a:")]
        others = [speaker for speaker in speakers if not speaker.startswith("a:")]
        found: dict[str, str] = {}
        with self.database.engine.connect() as connection:
            if ids:
                for account_id, name in connection.execute(
                    select(AccountRow.id, AccountRow.name).where(AccountRow.id.in_(ids))
                ):
                    found[f"a:{account_id}"] = str(name)
            if others:
                for speaker, name in connection.execute(
                    select(ChatLineRow.speaker, ChatLineRow.name)
                    .where(ChatLineRow.game_id == game_id, ChatLineRow.speaker.in_(others))
                    .order_by(ChatLineRow.id)
                ):
                    found[str(speaker)] = str(name)  # the latest line's name wins
        return found

    def mutes_of(self, viewer: str) -> set[str]:
        """The speakers ``viewer`` muted."""
        with self.database.engine.connect() as connection:
            found = connection.execute(
                select(ChatMuteRow.muted).where(ChatMuteRow.viewer == viewer)
            ).scalars()
            return {str(muted) for muted in found}

    def set_mute(self, viewer: str, muted: str, on: bool) -> None:
        """``viewer`` mutes (``on``) or hears again ``muted``; other processes are told."""
        with self.database.transaction() as connection:
            connection.execute(
                delete(ChatMuteRow).where(ChatMuteRow.viewer == viewer, ChatMuteRow.muted == muted)
            )
            if on:
                connection.execute(
                    insert(ChatMuteRow).values(viewer=viewer, muted=muted, created=time.time())
                )
            self.database.notify(connection, f"mute {viewer} {self.database.origin}")
