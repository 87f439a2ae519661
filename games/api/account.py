"""lichess's Account tag: ``GET /api/account`` (any token: the profile is public),
``/api/account/email``, ``/api/account/preferences``; and ``/api/account/playing``
(lichess's Games tag)."""

from __future__ import annotations

from django.http import HttpRequest, JsonResponse
from django.utils.translation import gettext as _

from accounts import selectors as account_selectors
from accounts.selectors import preferences_of
from accounts.tokens import TokenUse
from games import selectors
from games.api import gate
from games.api.gate import BadRequest, endpoint
from games.state import lichess, lichess_reads
from ranking import selectors as ranking_selectors


@endpoint()
def me(request: HttpRequest, token: TokenUse) -> JsonResponse:
    player = token.player
    playing = selectors.games_of(player, status="active").count()
    return JsonResponse(
        lichess.account(
            player,
            ranking_selectors.record_of(player.pk),
            playing=playing,
            is_bot=account_selectors.is_bot(player.pk),
        )
    )


@endpoint()
def playing(request: HttpRequest, token: TokenUse) -> JsonResponse:
    """``GET /api/account/playing?nb=``: my games in progress, the most urgent first
    (``nb``: 1 to 50, 9 by default)."""
    text = gate.fields(request).get("nb") or "9"
    if not (text.isascii() and text.isdigit() and len(text) <= 6):
        raise BadRequest(_("nb must be a number from 1 to 50."))
    limit = min(50, max(1, int(text)))
    games = lichess_reads.playing(token.player, limit=limit)
    return JsonResponse(
        {
            "nowPlaying": lichess_reads.game_infos(token.player, games),
            "nbMyTurn": lichess_reads.waiting_for_turn(token.player),
        }
    )


@endpoint("email:read")
def email(request: HttpRequest, token: TokenUse) -> JsonResponse:
    return JsonResponse({"email": token.player.email})


@endpoint("preference:read")
def preferences(request: HttpRequest, token: TokenUse) -> JsonResponse:
    return JsonResponse(lichess.preferences(preferences_of(token.player)))
