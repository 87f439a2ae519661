"""What the game's HTTP front doors share: how a domain error reads as a status, the
game of a URL or 404, and whether the page's script asked for JSON."""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpRequest
from django.utils.translation import gettext as _

from games import errors, selectors
from games.models import Colour, Game
from games.state.lists import game_row

# How each domain error reads over HTTP. Anything not listed is a plain 400.
ERROR_STATUS: dict[type[errors.DomainError], int] = {
    errors.GameNotFound: 404,
    errors.NotAPlayer: 403,
    errors.NotYourTurn: 409,
    errors.WrongMoveNumber: 409,
    errors.GameFinished: 409,
    errors.DrawOfferPending: 409,
    errors.NoDrawOffer: 409,
    errors.DrawOfferTooSoon: 409,
    errors.NothingToClaim: 409,
    errors.InvalidMove: 400,
    errors.IllegalMove: 422,
    errors.ChatNotAllowed: 403,
    errors.ChatMuted: 403,
    errors.ChatRateLimited: 429,
    errors.ChallengeRateLimited: 429,
    errors.ConditionalLinesInvalid: 422,
    errors.ConditionalOnYourTurn: 409,
}


def error_status(error: errors.DomainError) -> int:
    return ERROR_STATUS.get(type(error), 400)


def game_or_404(pk: int) -> Game:
    try:
        return selectors.game(pk)
    except errors.GameNotFound as exc:
        raise Http404(exc.message) from exc


def wants_json(request: HttpRequest) -> bool:
    return "application/json" in request.headers.get("Accept", "")


def announce_start(request: HttpRequest, game: Game) -> None:
    """The message shown when a challenge or an open challenge accepted starts
    ``game``: which one, against whom, with which colour."""
    row = game_row(game, request.user)  # type: ignore[arg-type]  # a logged-in player
    messages.success(
        request,
        _("Game %(game)s against %(name)s has started: you play %(colour)s.")
        % {
            "game": game.public_id,
            "name": row.opponent.username,
            "colour": Colour(row.my_colour).label,
        },
    )
