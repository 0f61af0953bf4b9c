"""What the routes of accounts answer (signing in, the account, its games and transfers,
friends, blocks and invitations), as :mod:`cradle.server.answers` says of every answer."""

from __future__ import annotations

from pydantic import Field

from cradle.server.answers import Answer, Number, Placing


class AccountInfo(Answer):
    """An account as its owner sees it (``GET /api/me``): no mail goes to ``email`` before
    its person opened the link of its check (``email_verified``)."""

    id: str
    name: str
    email: str | None
    email_verified: bool
    turn_mail: bool
    invite_mail: bool
    created: Number
    language: str | None  # a catalogue's BCP 47 tag ("es", "pt-BR"); null: not known yet


class SignedIn(Answer):
    """Sign-up, sign-in, sign-out, ``GET /api/me`` and deletion: the signed-in account and the
    session's CSRF token (both null for a guest). ``ended`` (``GET /api/me`` only, once): why
    this device's session ended, when it ended elsewhere (``password``: the password was
    changed on another device; ``reset``: it was reset by a mailed link)."""

    account: AccountInfo | None
    csrf: str | None
    ended: str | None = None


class Asked(Answer):
    """``POST /api/password-reset`` and ``POST /api/me/verify``: the same answer whether or not
    a mail went."""

    asked: bool


class Verified(Answer):
    """``POST /api/email-verification/{code}``: the address now verified."""

    email: str


class FriendTable(Answer):
    """A listed table in progress where a friend holds a seat."""

    id: str
    game: str
    players: int
    status: str
    mode: str
    free: int  # seats nobody took yet


class FriendInfo(Answer):
    """Another account in one's friend list."""

    name: str
    online: bool = False  # a page of theirs holds its live connection (friends only)
    tables: list[FriendTable] = Field(default_factory=list)


class FriendList(Answer):
    """``GET /api/friends`` (and each change of it): friends with whether they are online and
    their tables, the requests one made (``asked``) and got (``asking``), whom one blocks."""

    friends: list[FriendInfo]
    asked: list[FriendInfo]
    asking: list[FriendInfo]
    blocked: list[FriendInfo]


class FriendAnswer(FriendList):
    """``POST /api/friends``: ``status`` ``friends`` (their request accepted, or friends
    already) or ``asked`` (a request waits for them), and the list as it now is."""

    status: str


class InvitationInfo(Answer):
    """A friend's invitation to a seat, in one's inbox."""

    id: str
    game_id: str
    game: str
    seat: int
    players: int
    mode: str
    sender: str
    created: Number


class Invitations(Answer):
    """``GET /api/me/invitations``: the invitations whose seat is still free, newest first."""

    invitations: list[InvitationInfo]


class Invited(Answer):
    """``POST /api/games/{id}/invite``: the seat the person is invited to."""

    id: str
    seat: int
    name: str


class AccountAnswer(Answer):
    """``PATCH /api/me``: the account as it now is."""

    account: AccountInfo | None


class PasswordChanged(Answer):
    """``POST /api/me/password``."""

    changed: bool


class MyGame(Answer):
    """A game of ``GET /api/me/games``."""

    id: str
    game: str
    players: list[str]
    seats: list[str]  # each seat's kind: "human", "bot:LEVEL"
    names: list[str | None]
    seats_held: list[int]
    status: str
    moves: int
    result: list[Placing] | None
    created: Number
    updated: Number
    to_move: int | None
    your_turn: bool
    rated: bool  # as the lobby's rows say it


class MyGames(Answer):
    """``GET /api/me/games``: "your turn" first, and how many wait for the player."""

    games: list[MyGame]
    your_turn: int


class Transfer(Answer):
    """``POST /api/games/{id}/transfer``: a one-time link that moves a guest's seat."""

    id: str
    seat: int
    code: str
    link: str
    qr_svg: str
    expires_in: Number
