"""lichess's Board and Bot tags: playing a game through the API (the streams are in
:mod:`games.api.streams`). The two APIs are the same endpoints under ``/api/board/``
(``board:play``, for any player but a bot) and ``/api/bot/`` (``bot:play``, for bots
only), as lila's ``PlayApi`` serves both.

lichess's rules where they are a client's: a move declines the opponent's pending draw
offer (lichess's, where this service otherwise makes the offer be answered first), and
``offeringDraw`` with the move offers one, or accepts the opponent's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils.translation import gettext as _

from accounts.tokens import TokenUse
from games import chat, services
from games.api import gate
from games.api.gate import BadRequest, endpoint
from games.api.seats import SCOPES, UCI, game_for
from games.models import Game
from games.state import lichess


def _opponent_offers(game: Game, token: TokenUse) -> bool:
    colour = game.colour_of(token.player.pk)
    return bool(game.draw_offer_by) and game.draw_offer_by != colour


def move(
    request: HttpRequest, token: TokenUse, game_id: str, uci: str, api: str
) -> JsonResponse:
    """``POST /api/{board|bot}/game/{id}/move/{uci}[?offeringDraw=true|false]``."""
    offering = gate.flag(gate.fields(request).get("offeringDraw"), name="offeringDraw")
    if not UCI.fullmatch(uci):
        raise BadRequest(_("Invalid UCI: %(move)s") % {"move": uci[:20]})
    game = game_for(token, game_id, api)
    if offering and _opponent_offers(game, token):
        # lichess: offering a draw while the opponent offers one agrees to it.
        services.answer_draw(game_id=game.pk, player=token.player, accept=True)
        return gate.ok()
    played = services.make_move(
        game_id=game.pk, player=token.player, move_number=None, move=uci, declines_offer=True
    )
    if offering and played.is_active:
        services.offer_draw(game_id=game.pk, player=token.player)
    return gate.ok()


def draw(
    request: HttpRequest, token: TokenUse, game_id: str, answer: str, api: str
) -> JsonResponse:
    """``POST …/draw/{yes|no}`` (also ``true``/``false``, ``1``/``0``, as berserk's bots
    client sends): yes offers a draw, or accepts the opponent's; no declines the
    opponent's, and with none to decline changes nothing (lichess)."""
    accept = gate.flag(answer, name="accept")
    game = game_for(token, game_id, api)
    if accept:
        services.accept_or_offer_draw(game_id=game.pk, player=token.player)
    elif _opponent_offers(game, token):
        services.answer_draw(game_id=game.pk, player=token.player, accept=False)
    return gate.ok()


def takeback(
    request: HttpRequest, token: TokenUse, game_id: str, answer: str, api: str
) -> JsonResponse:
    """``POST …/takeback/{yes|no}``: correspondence moves are never taken back here."""
    game_for(token, game_id, api)
    raise BadRequest(_("Moves are not taken back here: a correspondence move is final."))


def _action(service: Callable[..., Any]) -> Callable[..., JsonResponse]:
    """An endpoint that calls ``service(game_id=…, player=…)`` and answers ``ok``."""

    def act(request: HttpRequest, token: TokenUse, game_id: str, api: str) -> JsonResponse:
        game = game_for(token, game_id, api)
        service(game_id=game.pk, player=token.player)
        return gate.ok()

    act.__doc__ = f"``POST …/{service.__name__}``"
    return act


resign = _action(services.resign)
abort = _action(services.abort)
claim_victory = _action(services.claim_victory)
claim_draw = _action(services.claim_draw)


def chat_read(request: HttpRequest, token: TokenUse, game_id: str, api: str) -> JsonResponse:
    """``GET …/chat``: the players' room, oldest first (lichess's ``PlayerGameChat``)."""
    game = game_for(token, game_id, api)
    rooms = chat.messages_for(game, token.player)
    return JsonResponse(lichess.chat_history(rooms.get(chat.Room.PLAYERS, [])), safe=False)


def chat_write(request: HttpRequest, token: TokenUse, game_id: str, api: str) -> JsonResponse:
    """``POST …/chat`` with ``room`` (``player``) and ``text``: a player writes in the
    players' room; the spectators' room is the spectators' here."""
    fields = gate.fields(request)
    room, text = fields.get("room"), fields.get("text")
    if room not in ("player", "spectator"):
        raise BadRequest(_("room must be player or spectator."))
    if text is None:
        raise BadRequest(_("text is required."))
    game = game_for(token, game_id, api)
    if room == "spectator":
        raise BadRequest(_("Players write in the players' room here (room=player)."))
    chat.post_message(game_id=game.pk, author=token.player, text=text)
    return gate.ok()


def chat_room(request: HttpRequest, token: TokenUse, game_id: str, api: str) -> JsonResponse:
    """``GET`` and ``POST …/chat``."""
    if request.method == "GET":
        return chat_read(request, token, game_id, api)
    return chat_write(request, token, game_id, api)


def for_api(
    view: Callable[..., JsonResponse], api: str, *, methods: tuple[str, ...] = ("POST",)
) -> Callable[..., HttpResponse]:
    """``view`` as one API's endpoint: that API's scope, ``api`` passed on."""

    def bound(request: HttpRequest, token: TokenUse, **kwargs: Any) -> JsonResponse:
        return view(request, token, api=api, **kwargs)

    bound.__name__ = f"{api}_{getattr(view, '__name__', 'endpoint')}"
    bound.__doc__ = view.__doc__
    return endpoint(SCOPES[api], methods=methods)(bound)


@endpoint("bot:play", methods=("POST",))
def upgrade(request: HttpRequest, token: TokenUse) -> JsonResponse:
    """``POST /api/bot/account/upgrade``: this account becomes a bot, for good (only an
    account that has played no game)."""
    services.upgrade_to_bot(player=token.player)
    return gate.ok()

