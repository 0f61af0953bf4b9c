"""What an account holds, as stored: the games it holds seats at, and the export of everything
stored of it (``GET /api/me/export``)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import or_, select

from cradle.server.store.accounts import ACCOUNT_COLUMNS
from cradle.server.store.database import Database
from cradle.server.store.games import names_at, seats_held
from cradle.server.store.lobby import LobbyStore
from cradle.server.store.schema import (
    AccountRow,
    BlockRow,
    ChatLineRow,
    ChatMuteRow,
    FriendshipRow,
    GameRow,
    InvitationRow,
    RatingChangeRow,
    RatingRow,
    SeatRow,
    SessionRow,
)


class AccountDataStore:
    """An account's games and its whole data, read for the person it is."""

    def __init__(self, database: Database, lobby: LobbyStore) -> None:
        self.database = database
        self.lobby = lobby

    def games_of(self, account_id: str, limit: int) -> list[dict[str, Any]]:
        """The account's games as stored (the latest changed first, at most ``limit``): id,
        game, the players (the game's names), the seats' kinds and the names at them, the seats
        it holds,
        status, moves, result, times, and whether it is rated (``LobbyStore.rated``)."""
        with self.database.engine.connect() as connection:
            seats = seats_held(connection, account_id)
            if not seats:
                return []
            games = connection.execute(
                select(
                    GameRow.id,
                    GameRow.game,
                    GameRow.players,
                    GameRow.seats,
                    GameRow.status,
                    GameRow.moves,
                    GameRow.result,
                    GameRow.created,
                    GameRow.updated,
                    GameRow.rated,
                )
                .where(GameRow.id.in_(list(seats)))
                .order_by(GameRow.updated.desc())
                .limit(limit)
            ).all()
            names = names_at(connection, [str(g.id) for g in games])
        rating = self.lobby.rated(
            {
                str(game.id): len(game.players)
                for game in games
                if game.rated and isinstance(game.players, list)
            }
        )
        found = []
        for game in games:
            players = list(game.players) if isinstance(game.players, list) else []
            shown = names.get(str(game.id), {})
            found.append(
                {
                    "id": str(game.id),
                    "game": str(game.game),
                    "players": [str(p) for p in players],
                    "seats": [str(kind) for kind in game.seats]
                    if isinstance(game.seats, list)
                    else ["human"] * len(players),
                    "names": [shown.get(seat) for seat in range(len(players))],
                    "seats_held": sorted(seats[str(game.id)]),
                    "status": str(game.status),
                    "moves": int(game.moves),
                    "result": game.result if isinstance(game.result, list) else None,
                    "created": float(game.created),
                    "updated": float(game.updated),
                    "rated": str(game.id) in rating,
                }
            )
        return found

    def export(self, account_id: str) -> dict[str, Any]:
        """Everything stored of the account that is its own (its data, as a whole): the
        account (never its password's hash), its sessions (when, never their cookies), the
        seats it holds, its chat lines, mutes, ratings and their changes, friends, requests,
        blocks and invitations."""
        speaker = f"a:{account_id}"
        with self.database.engine.connect() as connection:
            account = connection.execute(
                select(*ACCOUNT_COLUMNS).where(AccountRow.id == account_id)
            ).first()
            if account is None:
                return {}

            def rows(query: Any) -> list[dict[str, Any]]:
                return [dict(row._mapping) for row in connection.execute(query)]

            def names(ids: set[str]) -> dict[str, str]:
                if not ids:
                    return {}
                found = connection.execute(
                    select(AccountRow.id, AccountRow.name).where(AccountRow.id.in_(sorted(ids)))
                )
                return {str(i): str(n) for i, n in found}

            friendships = rows(
                select(FriendshipRow).where(
                    or_(FriendshipRow.asker == account_id, FriendshipRow.asked == account_id)
                )
            )
            blocks = rows(select(BlockRow).where(BlockRow.blocker == account_id))
            invitations = rows(
                select(InvitationRow).where(
                    or_(InvitationRow.account_id == account_id, InvitationRow.sender == account_id)
                )
            )
            others = (
                {str(f["asker"]) for f in friendships}
                | {str(f["asked"]) for f in friendships}
                | {str(b["blocked"]) for b in blocks}
                | {str(i["account_id"]) for i in invitations}
                | {str(i["sender"]) for i in invitations}
            )
            named = names(others)
            data: dict[str, Any] = {
                "account": {
                    "id": account.id,
                    "name": account.name,
                    "email": account.email,
                    "email_verified": bool(account.email_verified),
                    "turn_mail": bool(account.turn_mail),
                    "invite_mail": bool(account.invite_mail),
                    "created": float(account.created),
                },
                "sessions": rows(
                    select(SessionRow.created, SessionRow.expires, SessionRow.ended).where(
                        SessionRow.account_id == account_id
                    )
                ),
                "seats": rows(
                    select(SeatRow.game_id, SeatRow.seat, SeatRow.name, SeatRow.standin).where(
                        SeatRow.account_id == account_id
                    )
                ),
                "chat_lines": rows(
                    select(
                        ChatLineRow.game_id, ChatLineRow.seat, ChatLineRow.text, ChatLineRow.created
                    )
                    .where(ChatLineRow.speaker == speaker)
                    .order_by(ChatLineRow.id)
                ),
                "mutes": rows(
                    select(ChatMuteRow.muted, ChatMuteRow.created).where(
                        ChatMuteRow.viewer == speaker
                    )
                ),
                "ratings": rows(select(RatingRow).where(RatingRow.account_id == account_id)),
                "rating_changes": rows(
                    select(RatingChangeRow).where(RatingChangeRow.account_id == account_id)
                ),
                "friends": [
                    {
                        "name": named.get(
                            str(f["asked"] if f["asker"] == account_id else f["asker"])
                        ),
                        "asked_by_you": f["asker"] == account_id,
                        "accepted": bool(f["accepted"]),
                        "created": f["created"],
                    }
                    for f in friendships
                ],
                "blocked": [
                    {"name": named.get(str(b["blocked"])), "created": b["created"]} for b in blocks
                ],
                "invitations": [
                    {
                        "game_id": i["game_id"],
                        "seat": i["seat"],
                        "to": named.get(str(i["account_id"])),
                        "from": named.get(str(i["sender"])),
                        "created": i["created"],
                    }
                    for i in invitations
                ],
            }
        for rating in data["ratings"]:
            rating.pop("account_id", None)
        for change in data["rating_changes"]:
            change.pop("account_id", None)
        data["games"] = self.games_of(account_id, 10_000)
        return data
