"""The tables of the store (SQLAlchemy 2's declarative rows) and what their columns may hold.

The schema's revisions are Alembic's (:mod:`cradle.server.migrations`); these classes are the
head revision, what the queries are written against.
"""

from __future__ import annotations

from sqlalchemy import JSON, BigInteger, Boolean, Float, ForeignKey, Integer, String, Text, false
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

LIVE = ("open", "running")  # a game in progress
# Ended without a result (nothing changes them any more): nobody played in time, the server
# reclaimed the room, or the creator removed the table before it began.
ENDED = ("expired", "reclaimed", "removed")
GAME_STATUSES = ("open", "running", "over", "expired", "reclaimed", "removed")
MODES = ("live", "turn")  # a live table, or a turn-based one with a deadline per move
# How a game ended before its rules ended it: a seat conceded, the others ended it without a
# seat whose deadline passed, or nobody moved for three deadlines.
ENDINGS = ("conceded", "timeout", "abandoned")
ANALYSIS_STATUSES = ("queued", "running", "done", "failed")
MAX_PLAYERS_STORED = 8  # a stored game with more seats than this is corrupt, whatever the game
MAX_ACTION_STORED = 200  # the actions column's width


class Base(DeclarativeBase):
    pass


class GameRow(Base):
    __tablename__ = "games"

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    game: Mapped[str] = mapped_column(String(20))
    players: Mapped[list[str]] = mapped_column(JSON)
    seed: Mapped[int] = mapped_column(BigInteger)
    options: Mapped[dict[str, object]] = mapped_column(JSON)
    seats: Mapped[list[str]] = mapped_column(JSON)
    hotseat: Mapped[bool] = mapped_column(Boolean, default=False)
    listed: Mapped[bool] = mapped_column(Boolean, default=True)
    table_token: Mapped[str | None] = mapped_column(String(64), nullable=True)
    status: Mapped[str] = mapped_column(String(10), index=True)
    moves: Mapped[int] = mapped_column(Integer, default=0)
    result: Mapped[list[dict[str, object]] | None] = mapped_column(JSON, nullable=True)
    created: Mapped[float] = mapped_column(Float)
    updated: Mapped[float] = mapped_column(Float, index=True)
    # Added after the first release (migrations' baseline): every change a client sees; whether a bot
    # decides now; how many bot seats; the table's thinking budget per bot decision.
    version: Mapped[int] = mapped_column(Integer, default=0)
    bot_turn: Mapped[bool] = mapped_column(Boolean, default=False, index=True)
    bot_seats: Mapped[int] = mapped_column(Integer, default=0)  # bots that cost (not random)
    bot_seconds: Mapped[float | None] = mapped_column(Float, nullable=True)
    # The creator's client key, hashed (no address is stored); whether a person has moved at
    # a table with no open seat (until then the game expires when left alone for minutes).
    client: Mapped[str | None] = mapped_column(String(32), nullable=True, index=True)
    played: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    # Turn-based tables: the seconds each person has for a decision, and when the one deciding
    # now runs out (None: live, or no person decides); the seat whose stand-in bot plays for
    # it now (the others chose so after its deadline); how the game ended early, if it did.
    mode: Mapped[str] = mapped_column(String(5), default="live", server_default="live")
    deadline_s: Mapped[float | None] = mapped_column(Float, nullable=True)
    deadline: Mapped[float | None] = mapped_column(Float, nullable=True)
    standin: Mapped[int | None] = mapped_column(Integer, nullable=True)
    ended_by: Mapped[str | None] = mapped_column(String(10), nullable=True)
    # The creator's own seat (the first "human" one), who may remove the table before it
    # begins; None at a hot seat (its table token is the creator's) or without one.
    creator: Mapped[int | None] = mapped_column(Integer, nullable=True)
    # Whether spectators read and write the table's chat (players always do).
    spectator_chat: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    # A rated game: every seat an account's, no undo, no hints; its end updates the ratings.
    rated: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    # The seats whose person is away (a bit per seat): the others let their stand-in bot play
    # each of their turns whose deadline passes, until they move or say they are back.
    away: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    # A live table's clocks (None: no clock): each person's base time and the seconds added
    # when their turn ends, and each seat's seconds left as its clock last stopped; the one
    # running (the seat deciding) runs out at ``deadline``.
    clock_base_s: Mapped[float | None] = mapped_column(Float, nullable=True)
    clock_increment_s: Mapped[float | None] = mapped_column(Float, nullable=True)
    clock_left: Mapped[list[float] | None] = mapped_column(JSON, nullable=True)


class SeatRow(Base):
    __tablename__ = "seats"

    game_id: Mapped[str] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    token: Mapped[str] = mapped_column(String(64))  # sha-256 of the secret token
    claimed: Mapped[bool] = mapped_column(Boolean, default=False)
    # The bot level that may play for this seat when its deadline passes (turn-based tables).
    standin: Mapped[str | None] = mapped_column(String(40), nullable=True)
    # The account that holds the seat (None: a guest, or nobody yet) and the name shown at it
    # (the account's, a guest's own, or "former player" once the account is deleted).
    account_id: Mapped[str | None] = mapped_column(String(16), nullable=True, index=True)
    name: Mapped[str | None] = mapped_column(String(64), nullable=True)
    # At a live table with clocks: since when the seat's person has had no page open (None: one
    # is open, or none was yet).
    gone: Mapped[float | None] = mapped_column(Float, nullable=True)


class InviteRow(Base):
    """A one-time code that hands a seat to whoever the creator sent it to."""

    __tablename__ = "invites"

    game_id: Mapped[str] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    code: Mapped[str] = mapped_column(String(64))  # sha-256 of the code
    expires: Mapped[float | None] = mapped_column(
        Float, nullable=True
    )  # added later (migrations' baseline)


class ActionRow(Base):
    __tablename__ = "actions"

    game_id: Mapped[str] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    ply: Mapped[int] = mapped_column(Integer, primary_key=True)  # 0 for the first action
    seat: Mapped[int] = mapped_column(Integer)
    action: Mapped[str] = mapped_column(String(200))
    # The stand-in bot level that played it for the seat's person (None: the seat's own player).
    standin: Mapped[str | None] = mapped_column(String(40), nullable=True)


class AnalysisRow(Base):
    """The analysis of a finished game (cradle.server.assist): queued when the game ends, then
    worked on by one process (``owner``), stored as it goes."""

    __tablename__ = "analyses"

    game_id: Mapped[str] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    status: Mapped[str] = mapped_column(String(10), index=True)  # queued running done failed
    done: Mapped[int] = mapped_column(Integer, default=0)
    total: Mapped[int] = mapped_column(Integer, default=0)
    data: Mapped[dict[str, object] | None] = mapped_column(JSON, nullable=True)
    owner: Mapped[str | None] = mapped_column(String(16), nullable=True)
    updated: Mapped[float] = mapped_column(Float)


class BotJobRow(Base):
    """A bot's turn waiting for a worker (at most one per game): written in the transaction
    that made it the bot's turn, removed by the one that stores the bot's move."""

    __tablename__ = "bot_jobs"

    game_id: Mapped[str] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    version: Mapped[int] = mapped_column(Integer)  # the game's version the turn is at
    client: Mapped[str] = mapped_column(String(32), default="")  # the game's, for the order
    cost: Mapped[float] = mapped_column(Float, default=0.0)  # the bot's budget per decision
    ready: Mapped[float] = mapped_column(Float, index=True)  # not taken before (bot delay)
    owner: Mapped[str | None] = mapped_column(String(64), nullable=True)  # the worker on it
    lease: Mapped[float] = mapped_column(Float, default=0.0)  # its claim lapses then


class BotClientRow(Base):
    """A client's recent use of the bots, kept as ``ln(seconds) + time / USAGE_SECONDS``: the
    decaying sum of the costs of the turns it was given, at any later time ``t`` equal to
    ``exp(load - t / USAGE_SECONDS)``, with no update while it waits."""

    __tablename__ = "bot_clients"

    client: Mapped[str] = mapped_column(String(32), primary_key=True)
    load: Mapped[float] = mapped_column(Float)


class RateRow(Base):
    """A client's token bucket of one kind of request, shared by every process on the
    database (PostgreSQL; a SQLite server counts in memory): ``tokens`` left at ``stamp``."""

    __tablename__ = "rates"

    bucket: Mapped[str] = mapped_column(String(16), primary_key=True)
    client: Mapped[str] = mapped_column(String(32), primary_key=True)  # client_hash
    tokens: Mapped[float] = mapped_column(Float)
    stamp: Mapped[float] = mapped_column(Float, index=True)


class BotClockRow(Base):
    """The seconds a bot seat has thought in its current turn (cradle.ai.waiting.TurnClock),
    so that a turn whose decisions different workers make keeps its allowance."""

    __tablename__ = "bot_clocks"

    game_id: Mapped[str] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    spent: Mapped[float] = mapped_column(Float)


class TurnNoticeRow(Base):
    """A turn whose e-mail notice a process claimed (and sent): one row per game, seat and
    turn (the move number the turn began at), so no turn is mailed twice, by any process."""

    __tablename__ = "turn_notices"

    game_id: Mapped[str] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    turn: Mapped[int] = mapped_column(Integer, primary_key=True)
    sent: Mapped[float] = mapped_column(Float)


class DueNoticeRow(Base):
    """A turn whose e-mail notice is owed: written with the change that began the turn (same
    transaction), removed by the process that claims it to send it, or once the seat acted
    (or its stand-in plays, or the game ended) before any process sent it; written again,
    due later, when the SMTP server did not take the mail (:meth:`NoticeStore.retry`)."""

    __tablename__ = "due_notices"

    game_id: Mapped[str] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    turn: Mapped[int] = mapped_column(Integer, primary_key=True)
    due: Mapped[float] = mapped_column(Float, index=True)  # owed from then (a retry: later)
    # Tries that found the SMTP server down or refusing for now (the back-off grows with them).
    tries: Mapped[int] = mapped_column(Integer, default=0, server_default="0")


class MailStopRow(Base):
    """The one-time code of a notice's "no more mails" link (its SHA-256), and the account
    it stops the mails of."""

    __tablename__ = "mail_stops"

    code: Mapped[str] = mapped_column(String(64), primary_key=True)
    account_id: Mapped[str] = mapped_column(String(16), index=True)
    created: Mapped[float] = mapped_column(Float, index=True)


class ChatLineRow(Base):
    """A line of a table's chat, kept with the game. ``speaker``: who wrote it, as the mutes
    name them (``s:SEAT`` a seat of this game, ``v:N`` its Nth spectator to write, ``a:ID``
    an account); ``client``: a spectator's client key, hashed (``v:N`` is found by it)."""

    __tablename__ = "chat_lines"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), index=True)
    seat: Mapped[int | None] = mapped_column(Integer, nullable=True)  # None: a spectator
    speaker: Mapped[str] = mapped_column(String(80))
    name: Mapped[str] = mapped_column(String(80))
    client: Mapped[str | None] = mapped_column(String(32), nullable=True)
    text: Mapped[str] = mapped_column(Text)
    created: Mapped[float] = mapped_column(Float)


class RatingRow(Base):
    """An account's rating in one game for one number of players (:mod:`cradle.server.ratings`)."""

    __tablename__ = "ratings"

    account_id: Mapped[str] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True
    )
    game: Mapped[str] = mapped_column(String(20), primary_key=True)
    players: Mapped[int] = mapped_column(Integer, primary_key=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer)
    updated: Mapped[float] = mapped_column(Float)


class RatingChangeRow(Base):
    """What one rated game did to one player's rating (the profile's chart): at most one row
    per game and account, so a game's end can never be counted twice."""

    __tablename__ = "rating_changes"

    game_id: Mapped[str] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    account_id: Mapped[str] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True, index=True
    )
    game: Mapped[str] = mapped_column(String(20))
    players: Mapped[int] = mapped_column(Integer)
    seat: Mapped[int] = mapped_column(Integer)
    place: Mapped[int] = mapped_column(Integer)
    mu_before: Mapped[float] = mapped_column(Float)
    sigma_before: Mapped[float] = mapped_column(Float)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    at: Mapped[float] = mapped_column(Float, index=True)


class ChatMuteRow(Base):
    """``viewer`` sees no more lines of ``muted`` (both as :class:`ChatLineRow` names speakers,
    a seat's or spectator's qualified by its game: ``g:GAME:s:SEAT``)."""

    __tablename__ = "chat_mutes"

    viewer: Mapped[str] = mapped_column(String(100), primary_key=True)
    muted: Mapped[str] = mapped_column(String(100), primary_key=True)
    created: Mapped[float] = mapped_column(Float)


class AccountRow(Base):
    """A person's account: a name (``name_key``: its case-folded form, unique), the argon2id
    hash of the password, the e-mail address turn notices go to if they opted in, and the
    language its pages and mails speak (a catalogue's BCP 47 tag; NULL: not known yet)."""

    __tablename__ = "accounts"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    name: Mapped[str] = mapped_column(String(64))
    name_key: Mapped[str] = mapped_column(String(128), unique=True, index=True)
    password: Mapped[str] = mapped_column(String(256))
    created: Mapped[float] = mapped_column(Float)
    email: Mapped[str | None] = mapped_column(String(254), nullable=True)
    turn_mail: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    # Whether the person opened the link mailed to ``email`` (no mail but that one goes to an
    # address before); whether a friend's invitation to a seat is mailed too; when a page of
    # this account last held its live connection (friends see it online).
    email_verified: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    invite_mail: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    seen: Mapped[float | None] = mapped_column(Float, nullable=True)
    language: Mapped[str | None] = mapped_column(String(16), nullable=True)
    # An operator's measures (``cradle admin``): no chat lines; no signing in.
    muted: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    suspended: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())


class SessionRow(Base):
    """A signed-in browser: the sha-256 of its session cookie, its account, until when."""

    __tablename__ = "sessions"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    account_id: Mapped[str] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    created: Mapped[float] = mapped_column(Float)
    expires: Mapped[float] = mapped_column(Float, index=True)
    # Why the session ended, once it did (``password``: changed on another device; ``reset``:
    # reset by a mailed link): the device is told so, once, instead of failing quietly.
    ended: Mapped[str | None] = mapped_column(String(16), nullable=True)


class NameSkeletonRow(Base):
    """A look of an account's name (cradle.server.text.name_skeletons: UTS #39 skeletons, as
    SHA-256): unique, so no two accounts' names look alike."""

    __tablename__ = "name_skeletons"

    skeleton: Mapped[str] = mapped_column(String(64), primary_key=True)
    account_id: Mapped[str] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )


class DeviceRow(Base):
    """A browser an account signed in on (the sha-256 of its device cookie), or an address it
    signed in from (a hash of its client key): it signs in first and is never locked out by
    others' failed guesses at the name (cradle.server.signins)."""

    __tablename__ = "devices"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    account_id: Mapped[str] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    created: Mapped[float] = mapped_column(Float)
    used: Mapped[float] = mapped_column(Float, index=True)


class TransferRow(Base):
    """A one-time code that moves a guest's seat to another device (its sha-256)."""

    __tablename__ = "transfers"

    code: Mapped[str] = mapped_column(String(64), primary_key=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    seat: Mapped[int] = mapped_column(Integer)
    expires: Mapped[float] = mapped_column(Float)


class ReportRow(Base):
    """A person's report of a chat line or a player, for the operator (``cradle admin
    reports``). ``line_id``: the reported line (None: a player); ``target``: the account
    reported (or the line's speaker's), when there is one; ``reporter``: ``a:ACCOUNT`` or the
    client's hash ``c:HASH`` (no address is stored)."""

    __tablename__ = "reports"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    created: Mapped[float] = mapped_column(Float, index=True)
    game_id: Mapped[str | None] = mapped_column(String(40), nullable=True)
    line_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    target: Mapped[str | None] = mapped_column(String(16), nullable=True)
    name: Mapped[str] = mapped_column(String(80))  # the name reported, as it was shown
    quoted: Mapped[str | None] = mapped_column(Text, nullable=True)  # the line, as it was
    reporter: Mapped[str] = mapped_column(String(80))
    reason: Mapped[str] = mapped_column(Text)
    closed: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())


class ModerationRow(Base):
    """Every operator's action (``cradle admin``), kept: when, who (the operator's name), what
    (mute, unmute, suspend, unsuspend, delete, remove-line, close), on what, and why."""

    __tablename__ = "moderation_log"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    at: Mapped[float] = mapped_column(Float, index=True)
    operator: Mapped[str] = mapped_column(String(80))
    action: Mapped[str] = mapped_column(String(20))
    target: Mapped[str] = mapped_column(String(200))
    why: Mapped[str] = mapped_column(Text)


class PasswordResetRow(Base):
    """A mailed link's one-time code (its SHA-256) that sets a new password of ``account_id``
    until ``expires``."""

    __tablename__ = "password_resets"

    code: Mapped[str] = mapped_column(String(64), primary_key=True)
    account_id: Mapped[str] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    created: Mapped[float] = mapped_column(Float)
    expires: Mapped[float] = mapped_column(Float, index=True)


class EmailCheckRow(Base):
    """A mailed link's one-time code (its SHA-256) that shows ``account_id`` reads the mail of
    ``email`` (a change of the account's address makes it void)."""

    __tablename__ = "email_checks"

    code: Mapped[str] = mapped_column(String(64), primary_key=True)
    account_id: Mapped[str] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    email: Mapped[str] = mapped_column(String(254))
    created: Mapped[float] = mapped_column(Float)
    expires: Mapped[float] = mapped_column(Float, index=True)


class FriendshipRow(Base):
    """``asker`` asked ``asked`` to be friends; ``accepted`` once ``asked`` agreed (one row per
    pair: whoever asked first)."""

    __tablename__ = "friendships"

    asker: Mapped[str] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True
    )
    asked: Mapped[str] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True, index=True
    )
    accepted: Mapped[bool] = mapped_column(Boolean, default=False)
    created: Mapped[float] = mapped_column(Float)


class BlockRow(Base):
    """``blocker`` takes nothing from ``blocked``: no invitations, chat lines or friend
    requests."""

    __tablename__ = "blocks"

    blocker: Mapped[str] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True
    )
    blocked: Mapped[str] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True, index=True
    )
    created: Mapped[float] = mapped_column(Float)


class InvitationRow(Base):
    """A friend's invitation to a seat, in ``account_id``'s inbox: it takes the seat while the
    seat is free (the table's invite link for it stops working then)."""

    __tablename__ = "invitations"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), index=True)
    seat: Mapped[int] = mapped_column(Integer)
    account_id: Mapped[str] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    sender: Mapped[str] = mapped_column(ForeignKey("accounts.id", ondelete="CASCADE"))
    created: Mapped[float] = mapped_column(Float)
