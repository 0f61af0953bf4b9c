"""The guided first games' routes: a game's lessons (what each step asks and tells) and a
table made for one step, from the lesson's named position (cradle.core.lessons)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Request

from cradle.games import UnknownGame, get_game
from cradle.server.answers import Created
from cradle.server.errors import ApiError
from cradle.server.models import GAME_CHARS, LessonBody, parse
from cradle.server.routes.common import Context, body_of, body_schema, client_of
from cradle.server.seats import NewTable

# The learner plays seat 0; the opponent is the weakest level, which answers at once.
LESSON_SEATS = ["human", "bot:easy"]


def lesson_routes(router: APIRouter, ctx: Context) -> None:
    """Add this area's routes to ``router`` (the application's own)."""

    @router.get("/api/lessons/{game}")
    async def lessons(game: Annotated[str, Path(max_length=GAME_CHARS)]) -> dict[str, Any]:
        try:
            module = get_game(game)
        except UnknownGame as exc:
            raise ApiError(404, str(exc)) from None
        return {"game": game, "lessons": [step.public() for step in module.LESSONS]}

    @router.post(
        "/api/lessons",
        openapi_extra=body_schema(LessonBody),
        response_model=Created,
        response_model_exclude_unset=True,
    )
    async def create(request: Request) -> dict[str, Any]:
        body = parse(LessonBody, await body_of(request))
        await ctx.throttle(ctx.creations, client_of(request), "new games")
        return await ctx.hub().create(
            NewTable(
                game=body.game,
                players=len(LESSON_SEATS),
                options={},
                seats=list(LESSON_SEATS),
                listed=False,
                lesson=body.lesson,
            ),
            client_of(request),
        )
