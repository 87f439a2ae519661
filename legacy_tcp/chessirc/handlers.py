"""chessirc's database work: each function is one service or read-model call, run on a
database thread (:meth:`~legacy_tcp.transport.server.LineServer.run_in_db`). The rules
(whose turn, which moves are legal, when a game ends) are the service's; a refusal comes
back as its domain error, which the codec turns into this wire's sentence.
"""

from __future__ import annotations

import contextlib

from accounts.types import Player
from games import errors, services
from games.state import gateways
from games.state.gateways import GatewayGame
from legacy_tcp import guests

GATEWAY = guests.CHESSIRC


def register(nick: str, channel: str, trusted: bool) -> Player:
    return guests.player_for(gateway=GATEWAY, name=nick, channel=channel, trusted=trusted)


def start(white: Player, black: Player, fen: str, site: str) -> GatewayGame:
    game = services.start_gateway_game(white=white, black=black, initial_fen=fen, site=site)
    return gateways.after_write(game, with_moves=False)


def move(game_id: int, player: Player, text: str) -> GatewayGame:
    # The move is the next one, whoever's turn the service finds it is: a player out of
    # turn gets NotYourTurn. Moving withdraws the mover's own draw offer (chessirc's rule).
    game = services.make_move(
        game_id=game_id, player=player, move_number=None, move=text, withdraws_offer=True
    )
    return gateways.after_write(game)


def draw(game_id: int, player: Player) -> tuple[str, GatewayGame]:
    """The one DRAW request: an offer by the player to move, or an acceptance."""
    what, game = services.offer_or_accept_draw(game_id=game_id, player=player)
    return what, gateways.after_write(game)


def resign(game_id: int, player: Player) -> GatewayGame:
    return gateways.after_write(services.resign(game_id=game_id, player=player))


def read(game_id: int) -> GatewayGame:
    return gateways.read(game_id)


def abandon(game_id: int) -> None:
    """The session closed with its game unfinished: lost by the guest it waited for."""
    with contextlib.suppress(errors.GameNotFound):
        services.leave_gateway_game(game_id=game_id)
