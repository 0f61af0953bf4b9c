"""The guided first games' routes: a game's lessons (what each step asks and tells) and a
table made for one step, from the lesson's named position (cradle.core.lessons)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Request

from cradle.core.lessons import find, play
from cradle.games import UnknownGame, get_game
from cradle.server.answers import Created, LessonPicture, Lessons
from cradle.server.errors import ApiError, bad_request
from cradle.server.models import GAME_CHARS, LESSON_CHARS, LessonBody, parse
from cradle.server.routes.accounts import seat_holder
from cradle.server.routes.common import Ctx, answer_route, body_of, body_route, client_of
from cradle.server.seats import NewTable

# The learner plays seat 0. The opponent only answers what it is forced to (a commitment from
# an empty hand) before the step is over: the random bot, which costs no bot seat of the
# learner's (the bot-seat cap would otherwise stop the game against `easy` at the end).
LESSON_SEATS = ["human", "bot:random"]
MAX_TRIES = 10  # more moves than any step has


def lesson_routes(router: APIRouter) -> None:
    """Add this area's routes to ``router`` (the application's own)."""

    @answer_route(router, "GET", "/api/lessons/{game}", Lessons)
    async def lessons(
        ctx: Ctx, game: Annotated[str, Path(max_length=GAME_CHARS)]
    ) -> dict[str, Any]:
        try:
            module = get_game(game)
        except UnknownGame as exc:
            raise ApiError(404, str(exc)) from None
        return {"game": game, "lessons": [step.public() for step in module.LESSONS]}

    @answer_route(router, "GET", "/api/lessons/{game}/{name}/picture", LessonPicture)
    async def picture(
        ctx: Ctx,
        game: Annotated[str, Path(max_length=GAME_CHARS)],
        name: Annotated[str, Path(max_length=LESSON_CHARS)],
        after: int = Query(0, ge=0, le=MAX_TRIES),
    ) -> dict[str, Any]:
        """What everybody sees of a lesson's position after its first ``after`` moves: the
        rules page draws its pictures from these, with the game's own board drawing."""
        try:
            module = get_game(game)
            lesson = find(module.LESSONS, name)
        except (UnknownGame, ValueError) as exc:
            raise ApiError(404, str(exc)) from None
        if after > len(lesson.tries):
            raise bad_request(f"lesson {name!r} has {len(lesson.tries)} moves, not {after}")

        def draw() -> dict[str, Any]:
            state = module.lesson_start(name)
            play(lesson, state, after)  # (its events could name a hand's tiles: not sent)
            view = dict(state.view(None))
            view.update({"to_move": state.to_move, "players": list(state.players)})
            return {"view": view, "over": state.is_over}

        return await ctx.hub().runtime.engine(draw)

    @body_route(router, "POST", "/api/lessons", LessonBody, Created, sparse=True)
    async def create(ctx: Ctx, request: Request) -> Mapping[str, object]:
        body = parse(LessonBody, await body_of(request))
        # The learner's seat shows their name, as at any table (the account's, else the
        # guest's); the table is not the account's game (no inbox, no ratings).
        _signed, name = await seat_holder(ctx, request, body.name)
        await ctx.throttle(ctx.creations, client_of(request), "new games")
        return await ctx.hub().create(
            NewTable(
                game=body.game,
                players=len(LESSON_SEATS),
                options={},
                seats=list(LESSON_SEATS),
                listed=False,
                lesson=body.lesson,
                name=name,
            ),
            client_of(request),
        )
