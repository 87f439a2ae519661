"""The lichess API's paths (lichess's own), mounted at the site's root: ``/api/…``.
``docs/protocols/lichess.md`` lists them with their status here."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, path, re_path

from games.api import (
    account,
    board,
    challenges,
    fallback,
    games,
    oauth,
    seeks,
    streams,
    users,
)
from games.api.board import for_api


def _play(api: str) -> list[URLPattern | URLResolver]:
    """The game endpoints of one API (``board`` or ``bot``), as lila's PlayApi routes
    both."""
    game = f"api/{api}/game/<str:game_id>"
    return [
        path(f"{game}/move/<str:uci>", for_api(board.move, api)),
        path(f"{game}/draw/<str:answer>", for_api(board.draw, api)),
        path(f"{game}/takeback/<str:answer>", for_api(board.takeback, api)),
        path(f"{game}/resign", for_api(board.resign, api)),
        path(f"{game}/abort", for_api(board.abort, api)),
        # berserk writes this one with a trailing slash.
        re_path(
            rf"^api/{api}/game/(?P<game_id>[^/]+)/claim-victory/?$",
            for_api(board.claim_victory, api),
        ),
        path(f"{game}/claim-draw", for_api(board.claim_draw, api)),
        path(f"{game}/chat", for_api(board.chat_room, api, methods=("GET", "POST"))),
    ]


# django-stubs types path()'s view as synchronous; Django serves async views alike.
urlpatterns = [
    path("api/account", account.me, name="api_account"),
    path("api/account/email", account.email),
    path("api/account/preferences", account.preferences),
    path("api/account/playing", account.playing),
    path("api/stream/event", streams.events),  # type: ignore[arg-type]
    path("api/challenge", challenges.mine),
    path("api/challenge/open", seeks.open_challenge),
    path("api/challenge/<str:challenge_id>/accept", challenges.accept),
    path("api/challenge/<str:challenge_id>/decline", challenges.decline),
    path("api/challenge/<str:challenge_id>/cancel", challenges.cancel),
    path("api/challenge/<str:username>", challenges.create),
    path("api/board/game/stream/<str:game_id>", streams.board_game),  # type: ignore[arg-type]
    path("api/bot/game/stream/<str:game_id>", streams.bot_game),  # type: ignore[arg-type]
    path("api/bot/account/upgrade", board.upgrade),
    path("api/board/seek", seeks.board_seek),
    path("api/user/<str:username>", users.public),
    path("api/token", oauth.token, name="api_token"),
    path("game/export/<str:game_id>", games.export),
    path("api/games/user/<str:username>", games.user_games),
    path("api/import", games.import_game),
    path("api/stream/game/<str:game_id>", streams.watch_game),  # type: ignore[arg-type]
    *_play("board"),
    *_play("bot"),
    # Anything else under /api/ is lichess's JSON 404, not the site's page.
    re_path(r"^api/", fallback.not_found),
]
