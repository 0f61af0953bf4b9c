"""Friends' routes: the friend list (who is online, their tables), requests, blocks, a friend's
invitation to a seat and the inbox of invitations, and a signed-in page's live connection
(``/ws/me``: its inbox changed, its session ended)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from typing import Annotated

from fastapi import APIRouter, Path, Request, WebSocket

from cradle.core.words import N_
from cradle.server import accounts
from cradle.server.account_answers import FriendAnswer, FriendList, Invitations, Invited
from cradle.server.answers import Joined
from cradle.server.errors import ApiError, bad_request, forbidden
from cradle.server.models import NAME_CHARS, EmptyBody, NameBody, parse
from cradle.server.people import AccountSocket, online
from cradle.server.routes.accounts import Signed, need_account, signed_in
from cradle.server.routes.common import (
    MAX_FRAME,
    Context,
    Ctx,
    GameId,
    allows,
    body_of,
    body_route,
    client_of,
    origin_allowed,
)
from cradle.server.store.accounts import Account
from cradle.server.table import Connection
from cradle.server.tokens import hash_token

log = logging.getLogger("cradle.server")

Name = Annotated[str, Path(max_length=NAME_CHARS)]
InvitationId = Annotated[str, Path(max_length=40)]
PAGES_PER_ACCOUNT = 16  # live connections of one account's pages on one process


def social_routes(router: APIRouter) -> None:
    """Add this area's routes to ``router`` (the application's own)."""

    async def other(ctx: Context, signed: Signed, raw: str) -> Account:
        """The account named ``raw`` (any case): 404 for none, 400 for oneself."""
        hub = ctx.hub()
        found = await hub.runtime.db(hub.store.accounts.by_key, accounts.name_key(raw.strip()))
        if found is None:
            raise ApiError(404, N_("nobody has an account of that name"))
        if found.id == signed.account.id:
            raise bad_request(N_("that is your own name"))
        return found

    async def friend_list(ctx: Context, account: str) -> dict[str, object]:
        hub = ctx.hub()
        found = await hub.runtime.db(hub.store.friends.of, account)
        tables = await hub.runtime.db(hub.store.friends.tables_of, [f.id for f in found.friends])
        now = time.time()
        return {
            "friends": [
                {"name": f.name, "online": online(f.seen, now), "tables": tables.get(f.id, [])}
                for f in found.friends
            ],
            "asked": [{"name": f.name} for f in found.asked],
            "asking": [{"name": f.name} for f in found.asking],
            "blocked": [{"name": f.name} for f in found.blocked],
        }

    @router.get("/api/friends", response_model=FriendList)
    async def friends(ctx: Ctx, request: Request) -> dict[str, object]:
        """The signed-in player's friends (online or not, their listed tables in progress),
        the requests made and received, and whom they block."""
        signed = await need_account(ctx, request, write=False)
        return await friend_list(ctx, signed.account.id)

    @body_route(router, "POST", "/api/friends", NameBody, FriendAnswer)
    async def ask(ctx: Ctx, request: Request) -> dict[str, object]:
        """Ask the person named ``name`` to be friends, or accept their request."""
        body = parse(NameBody, await body_of(request))
        signed = await need_account(ctx, request, write=True)
        await ctx.throttle(ctx.social, "id:" + signed.account.id, "friend requests")
        friend = await other(ctx, signed, body.name)
        hub = ctx.hub()
        status = await hub.runtime.db(
            hub.store.friends.ask, signed.account.id, friend.id, time.time()
        )
        if status == "blocking":
            raise ApiError(409, N_("you block this person: unblock them first"))
        if status == "full":
            raise ApiError(409, N_("one of you has too many friends and requests already"))
        if status == "friends" or not await hub.runtime.db(
            hub.store.friends.blocks, friend.id, signed.account.id
        ):
            await hub.people.tell(friend.id, "inbox")  # never someone who blocks the asker
        return {"status": status, **await friend_list(ctx, signed.account.id)}

    @router.delete("/api/friends/{name}", response_model=FriendList)
    async def unfriend(ctx: Ctx, name: Name, request: Request) -> dict[str, object]:
        """End a friendship, take back one's request or decline theirs."""
        signed = await need_account(ctx, request, write=True)
        friend = await other(ctx, signed, name)
        hub = ctx.hub()
        if await hub.runtime.db(hub.store.friends.remove, signed.account.id, friend.id):
            await hub.people.tell(friend.id, "inbox")
        return await friend_list(ctx, signed.account.id)

    @body_route(router, "POST", "/api/blocks", NameBody, FriendList)
    async def block(ctx: Ctx, request: Request) -> dict[str, object]:
        """Block the person named ``name``: no invitations, chat lines or friend requests from
        them reach the signed-in player any more (a friendship between them ends)."""
        body = parse(NameBody, await body_of(request))
        signed = await need_account(ctx, request, write=True)
        blocked = await other(ctx, signed, body.name)
        hub = ctx.hub()
        if not await hub.runtime.db(
            hub.store.friends.block, signed.account.id, blocked.id, time.time()
        ):
            raise ApiError(409, N_("you block too many people already"))
        await hub.chat.refresh_mutes(f"a:{signed.account.id}")  # their lines stop at once
        return await friend_list(ctx, signed.account.id)

    @router.delete("/api/blocks/{name}", response_model=FriendList)
    async def unblock(ctx: Ctx, name: Name, request: Request) -> dict[str, object]:
        signed = await need_account(ctx, request, write=True)
        blocked = await other(ctx, signed, name)
        hub = ctx.hub()
        await hub.runtime.db(hub.store.friends.unblock, signed.account.id, blocked.id)
        await hub.chat.refresh_mutes(f"a:{signed.account.id}")
        return await friend_list(ctx, signed.account.id)

    @body_route(router, "POST", "/api/games/{game_id}/invite", NameBody, Invited)
    async def invite(ctx: Ctx, game_id: GameId, request: Request) -> dict[str, object]:
        """Invite a friend by name to a free seat of a table where the signed-in player holds
        a seat: an entry in their inbox, a push to their open pages, and a mail if they asked
        for these mails."""
        body = parse(NameBody, await body_of(request))
        signed = await need_account(ctx, request, write=True)
        hub = ctx.hub()
        table = await hub.fresh(await hub.table(game_id))
        if signed.account.id not in table.accounts.values():
            raise forbidden(N_("only a player holding a seat at this table invites to it"))
        friend = await other(ctx, signed, body.name)
        if await hub.runtime.db(hub.store.friends.blocks, friend.id, signed.account.id):
            raise forbidden(N_("this person takes no invitations from you"))
        if not await hub.runtime.db(hub.store.friends.are_friends, signed.account.id, friend.id):
            raise forbidden(N_("you invite your friends by name: ask them to be friends first"))
        if friend.id in table.accounts.values():
            raise ApiError(409, N_("this person holds a seat at this table already"))
        if table.is_over:
            raise forbidden(N_("the game is over"))
        free = table.free_seats()
        if not free:
            raise ApiError(409, N_("every seat of this table is taken"))
        await ctx.throttle(ctx.social, "id:" + signed.account.id, "invitations")
        invited = await hub.runtime.db(hub.store.invitations.of, friend.id)
        mine = [i.seat for i in invited if i.game_id == table.id]
        seat = next((s for s in free if s not in mine), free[0])
        await hub.runtime.db(
            hub.store.invitations.add, table.id, seat, friend.id, signed.account.id, time.time()
        )
        await hub.people.tell(friend.id, "inbox")
        address = friend.mail_to
        if (
            friend.invite_mail
            and address is not None
            and hub.outbox.on
            and await allows(ctx, ctx.mails_to, "invite-id:" + friend.id)
        ):
            hub.outbox.send(
                "invite",
                address,
                friend.language,
                sender=signed.account.name,
                title=table.module.PRESENTATION.title,
                link=hub.outbox.link("inbox"),
                account=hub.outbox.link("account"),
            )
        return {"id": table.id, "seat": seat, "name": friend.name}

    @router.get("/api/me/invitations", response_model=Invitations)
    async def invitations(ctx: Ctx, request: Request) -> dict[str, object]:
        """Friends' invitations in the signed-in player's inbox whose seat is still free."""
        signed = await need_account(ctx, request, write=False)
        hub = ctx.hub()
        # A block withdraws the blocked person's invitations, and they can send no more.
        found = await hub.runtime.db(hub.store.invitations.of, signed.account.id)
        return {
            "invitations": [
                {
                    "id": i.id,
                    "game_id": i.game_id,
                    "game": i.game,
                    "seat": i.seat,
                    "players": i.players,
                    "mode": i.mode,
                    "sender": i.sender,
                    "created": i.created,
                }
                for i in found
            ]
        }

    @body_route(router, "POST", "/api/me/invitations/{invitation}", EmptyBody, Joined)
    async def accept(ctx: Ctx, invitation: InvitationId, request: Request) -> dict[str, object]:
        """Take the seat of an invitation in one's inbox (its invite link stops working)."""
        parse(EmptyBody, await body_of(request))
        signed = await need_account(ctx, request, write=True)
        hub = ctx.hub()
        found = await hub.runtime.db(hub.store.invitations.get, invitation, signed.account.id)
        if found is None:
            raise forbidden(N_("this invitation was used or withdrawn"))
        await ctx.throttle(ctx.creations, client_of(request), "seats joined")
        table = await hub.fresh(await hub.table(found[0]))
        return await hub.seats.join(
            table,
            None,
            signed.account.id,
            signed.account.name,
            None,
            invitation=(invitation, found[1]),
        )

    @router.delete("/api/me/invitations/{invitation}", response_model=Invitations)
    async def decline(ctx: Ctx, invitation: InvitationId, request: Request) -> dict[str, object]:
        signed = await need_account(ctx, request, write=True)
        hub = ctx.hub()
        await hub.runtime.db(hub.store.invitations.decline, invitation, signed.account.id)
        return await invitations(ctx, request)

    @router.websocket("/ws/me")
    async def live(ctx: Ctx, websocket: WebSocket) -> None:
        """A signed-in page's live connection (with its session cookie): ``{"type": "inbox"}``
        when a friend's request, answer or invitation came; ``{"type": "signed_out",
        "reason"}`` when its session ended (then it closes); pings answered."""
        origin = websocket.headers.get("origin")
        if origin is not None and not origin_allowed(
            origin, websocket.headers.get("host"), ctx.origins
        ):
            await websocket.close(code=4403)
            return
        await websocket.accept()
        signed = await signed_in(ctx, websocket, write=False)
        if signed is None:
            frame = {"type": "error", "error": "sign in first", "status": 401}
            await websocket.send_text(json.dumps(frame))
            await websocket.close(code=4401, reason="sign in first")
            return
        hub = ctx.hub()
        if len(hub.people.sockets.get(signed.account.id, ())) >= PAGES_PER_ACCOUNT:
            reason = f"at most {PAGES_PER_ACCOUNT} live pages per account"
            await websocket.send_text(json.dumps({"type": "error", "error": reason, "status": 429}))
            await websocket.close(code=4429, reason=reason)
            return
        connection = Connection(seat=None, hotseat=False, send=websocket.send_text)
        socket = AccountSocket(signed.account.id, hash_token(signed.secret), connection)

        async def pump() -> None:
            await connection.pump()
            with contextlib.suppress(Exception):
                await websocket.close(code=1000 if connection.close_reason else 1013)

        connection.task = asyncio.get_running_loop().create_task(pump())
        connection.push(json.dumps({"type": "hello", "name": signed.account.name}))
        hub.people.attach(socket)
        try:
            while connection.close_reason is None:
                message = await websocket.receive()
                if message["type"] == "websocket.disconnect":
                    break
                text = message.get("text") or ""
                reply: dict[str, object]
                if len(text) <= MAX_FRAME and text.replace(" ", "") == '{"type":"ping"}':
                    reply = {"type": "pong"}
                else:
                    reply = {"type": "error", "error": 'send {"type": "ping"}', "status": 400}
                if not await connection.reply(json.dumps(reply)):
                    break
        except Exception as exc:
            if not isinstance(exc, RuntimeError | ConnectionError):
                log.exception("an account's live connection failed")
        finally:
            hub.people.detach(socket)
            connection.queue.put_nowait(None)
            with contextlib.suppress(Exception):
                await connection.task
