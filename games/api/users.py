"""lichess's Users tag: ``GET /api/user/{username}``, a player's public profile (any
token)."""

from __future__ import annotations

from django.http import HttpRequest, JsonResponse

from accounts import selectors as account_selectors
from accounts.tokens import TokenUse
from games import selectors
from games.api.gate import endpoint
from games.state import lichess
from ranking import selectors as ranking_selectors


@endpoint()
def public(request: HttpRequest, token: TokenUse, username: str) -> JsonResponse:
    player = account_selectors.active_player_named(username)
    return JsonResponse(
        lichess.account(
            player,
            ranking_selectors.record_of(player.pk),
            playing=selectors.games_of(player, status="active").count(),
            is_bot=account_selectors.is_bot(player.pk),
        )
    )
