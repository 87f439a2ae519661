"""lichess's Challenges tag: list, make, accept, decline, cancel.

Correspondence only: ``days`` (1, 2, 3, 5, 7, 10 or 14 per move) or no time control
(lichess's "unlimited"); a real-time clock (``clock.limit``, ``clock.increment``) is
refused with a clear 400. The challenger picks the colours (``color``), as on lichess;
a challenge made over ESPOL lets the challenged player pick, here with ``?color=``.
"""

from __future__ import annotations

from django.http import HttpRequest, JsonResponse
from django.utils.translation import gettext as _

from accounts import selectors as account_selectors
from accounts.tokens import TokenUse
from ajedrez.core.errors import DomainError
from games import errors, services
from games.api import gate
from games.api.gate import REAL_TIME_REFUSED, BadRequest, days_of, endpoint
from games.models import Challenge
from games.state import lichess, lichess_reads

WRITE_SCOPES = ("challenge:write", "bot:play", "board:play")
COLOURS = ("white", "black", "random")


@endpoint("challenge:read")
def mine(request: HttpRequest, token: TokenUse) -> JsonResponse:
    """``GET /api/challenge``: the pending challenges made to me (``in``) and by me
    (``out``)."""
    received, made = lichess_reads.pending_challenges(token.player)
    people = lichess_reads.people(
        [p for found in received + made for p in (found.challenger, found.challenged)]
    )
    return JsonResponse(
        {
            "in": [lichess.challenge(found, people, direction="in") for found in received],
            "out": [lichess.challenge(found, people, direction="out") for found in made],
        }
    )


@endpoint(*WRITE_SCOPES, methods=("POST",))
def create(request: HttpRequest, token: TokenUse, username: str) -> JsonResponse:
    """``POST /api/challenge/{username}``: challenge a player to a correspondence game."""
    fields = gate.fields(request)
    if fields.get("clock.limit") or fields.get("clock.increment"):
        raise BadRequest(str(REAL_TIME_REFUSED))
    if fields.get("variant", "standard") not in ("standard", ""):
        raise BadRequest(_("Only standard chess is played here."))
    if fields.get("fen"):
        raise BadRequest(_("Games from a position cannot be challenged to here."))
    if fields.get("acceptByToken"):
        raise BadRequest(_("acceptByToken is not served here: the opponent accepts."))
    colour = fields.get("color") or "random"
    if colour not in COLOURS:
        raise BadRequest(_("color must be white, black or random."))
    rated = gate.flag(fields.get("rated"), name="rated") or False
    days = days_of(fields.get("days"))
    opponent = account_selectors.active_player_named(username)
    made = services.challenge(
        challenger=token.player,
        challenged=opponent,
        days_per_move=days,
        colour=colour,
        rated=rated,
    )
    people = lichess_reads.people([made.challenger, made.challenged])
    return JsonResponse(lichess.challenge(made, people, direction="out"))


@endpoint(*WRITE_SCOPES, methods=("POST",))
def accept(request: HttpRequest, token: TokenUse, challenge_id: str) -> JsonResponse:
    """``POST /api/challenge/{id}/accept``. ``?color=white|black`` picks my colour when
    the challenger left it to me (a challenge made over ESPOL or the web); without it,
    the colour left to me or one drawn at random."""
    fields = gate.fields(request)
    colour = fields.get("color") or None
    if colour is not None and colour not in ("white", "black"):
        raise BadRequest(_("color must be white or black."))
    found = lichess_reads.challenge_of(token.player, challenge_id)
    services.accept_challenge(challenge_id=found.pk, player=token.player, colour=colour)
    return gate.ok()


@endpoint(*WRITE_SCOPES, methods=("POST",))
def decline(request: HttpRequest, token: TokenUse, challenge_id: str) -> JsonResponse:
    """``POST /api/challenge/{id}/decline``, with lichess's ``reason`` (any case)."""
    reason = (gate.fields(request).get("reason") or "").strip()
    keys = {key.lower(): key for key in Challenge.DeclineReason.values}
    if reason and reason.lower() not in keys:
        raise errors.InvalidDeclineReason()
    found = lichess_reads.challenge_of(token.player, challenge_id)
    services.decline_challenge(
        challenge_id=found.pk, player=token.player, reason=keys.get(reason.lower(), "")
    )
    return gate.ok()


@endpoint(*WRITE_SCOPES, methods=("POST",))
def cancel(request: HttpRequest, token: TokenUse, challenge_id: str) -> JsonResponse:
    """``POST /api/challenge/{id}/cancel``: withdraw my challenge, or, once accepted,
    abort its game while both players have not moved (lichess: "the ID of a game is the
    same as the ID of the challenge that created it"); or cancel my open challenge."""
    if gate.fields(request).get("opponentToken"):
        raise BadRequest(_("opponentToken is not served here."))
    try:
        found = lichess_reads.challenge_of(token.player, challenge_id)
    except DomainError:
        found = None
    if found is not None and found.status == Challenge.Status.PENDING:
        services.withdraw_challenge(challenge_id=found.pk, player=token.player)
        return gate.ok()
    seek = lichess_reads.open_seek_of(token.player, challenge_id)
    if seek is not None:
        # An open challenge (or a correspondence seek) of mine, not yet taken.
        services.cancel_seek(seek_id=seek.pk, player=token.player)
        return gate.ok()
    game = lichess_reads.game_of(token.player, challenge_id)
    services.abort(game_id=game.pk, player=token.player)
    return gate.ok()
