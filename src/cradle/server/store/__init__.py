"""Where the play server keeps its games, by concept: one module per concept, each with the few
operations its users need (in the spirit of boardgame.io's ``db/base.ts``).

| module | holds |
|---|---|
| ``database`` | the engine, the schema's revision, every write's transaction, the notices to other processes |
| ``schema``, ``reader``, ``errors`` | the tables; how every stored value is read back (checked); what the store raises |
| ``games`` | a game's rows read back (:class:`StoredGame`), the sweeps' queries, the compare-and-set of every write |
| ``new_games`` | new games within the caps (:class:`Caps`) |
| ``lobby`` | lobby pages, and which games rate their players |
| ``plays`` | the changes of a game in play: moves, undo, stand-ins, returns, endings, removals |
| ``seats`` | seats taken, seats given a new token, the codes that move a seat |
| ``botjobs`` | the bots' turns: a queue in the database |
| ``notices`` | the turn notices the database owes, their claims, the "no more mails" codes |
| ``ratings`` | a rated game's update, the leaderboard, a player's profile |
| ``accounts`` | accounts, their sessions and games, an account's data as a whole |
| ``codes`` | the one-time codes mailed to people: password resets, address checks |
| ``friends`` | friend requests and friendships, blocks, who is online, friends' tables |
| ``invitations`` | friends' invitations to seats, in the invited person's inbox |
| ``chat`` | the tables' chat lines and mutes |
| ``moderation`` | people's reports, an operator's measures on accounts and lines, their log |
| ``analyses``, ``rates`` | the analyses of finished games; the rates shared by the processes |

A game is stored as its record (game, options, seed, players, actions) plus the table's seats,
the hashes of the seat tokens and of the unused invite codes. Every write of a game is a
compare-and-set: it names the ``version`` (and, for moves, the move number) it expects and
changes nothing when another process got there first (:class:`Conflict`); the caller reloads
and tries again. Every value read back goes through :class:`~.reader.Reader`: one damaged game
is set aside (:class:`CorruptGame`), never the server stopped. Every failure of the database
itself is a :class:`StorageError` (or SQLAlchemy's own error) whose ``reason`` the server
answers with, as a 503.

Everything here is synchronous; the server calls it from worker threads, never the event loop.
"""

from __future__ import annotations

from cradle.server.store.account_data import AccountDataStore
from cradle.server.store.accounts import AccountStore
from cradle.server.store.analyses import AnalysisStore
from cradle.server.store.botjobs import BotJobStore
from cradle.server.store.chat import ChatStore
from cradle.server.store.codes import CodeStore
from cradle.server.store.database import Database
from cradle.server.store.friends import FriendStore
from cradle.server.store.games import GameStore
from cradle.server.store.invitations import InvitationStore
from cradle.server.store.lobby import LobbyStore
from cradle.server.store.moderation import ModerationStore
from cradle.server.store.new_games import NewGameStore
from cradle.server.store.notices import NoticeStore
from cradle.server.store.plays import PlayStore
from cradle.server.store.rates import RateStore
from cradle.server.store.ratings import RatingStore
from cradle.server.store.seats import SeatStore


class Store:
    """Every concept's store on one database; one instance per server process (or worker)."""

    def __init__(self, url: str, upgrade: bool = True) -> None:
        self.database = Database(url, upgrade)
        self.bot_jobs = BotJobStore(self.database)
        self.games = GameStore(self.database)
        self.new_games = NewGameStore(self.database, self.bot_jobs)
        self.lobby = LobbyStore(self.database)
        self.plays = PlayStore(self.database, self.bot_jobs)
        self.seats = SeatStore(self.database)
        self.notices = NoticeStore(self.database)
        self.ratings = RatingStore(self.database)
        self.accounts = AccountStore(self.database, self.lobby)
        self.account_data = AccountDataStore(self.database, self.lobby)
        self.codes = CodeStore(self.database)
        self.friends = FriendStore(self.database)
        self.invitations = InvitationStore(self.database)
        self.chat = ChatStore(self.database)
        self.moderation = ModerationStore(self.database, self.accounts)
        self.analyses = AnalysisStore(self.database)
        self.rates = RateStore(self.database)
        try:
            self.bot_jobs.queue_lost()
        except Exception:
            self.database.close()
            raise

    @property
    def shared(self) -> bool:
        """Whether other server processes may use this database at the same time."""
        return self.database.shared

    @property
    def read_only(self) -> bool:
        return self.database.read_only

    @property
    def origin(self) -> str:
        """Names this process's writes in the notices to the others."""
        return self.database.origin

    def close(self) -> None:
        self.database.close()
