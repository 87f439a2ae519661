"""lichess's Games tag: ``GET /game/export/{id}``, a game as PGN or, when the client
accepts ``application/json``, as lichess's ``GameJson``. Any player may read any game
(correspondence games are public, as on lichess); here a token is needed, as for every
read of the site."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse

from accounts.tokens import TokenUse
from games import state
from games.api import gate
from games.api.gate import endpoint
from games.state import lichess, lichess_reads


@endpoint()
def export(request: HttpRequest, token: TokenUse, game_id: str) -> HttpResponse:
    """``?moves=`` (default true) and ``?pgnInJson=`` (default false), as lichess's."""
    fields = gate.fields(request)
    with_moves = gate.flag(fields.get("moves"), name="moves")
    pgn_in_json = gate.flag(fields.get("pgnInJson"), name="pgnInJson") or False
    game = lichess_reads.any_game(game_id)
    if "application/json" in request.headers.get("Accept", ""):
        sans = None if with_moves is False else lichess_reads.sans(game)
        people = lichess_reads.people([game.white, game.black])
        pgn = state.game_pgn(game) if pgn_in_json else None
        return JsonResponse(lichess.game_json(game, sans, people, pgn=pgn))
    return HttpResponse(state.game_pgn(game), content_type="application/x-chess-pgn; charset=utf-8")
