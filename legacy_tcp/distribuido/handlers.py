"""The ``#`` protocol's database work: each function is one service or read-model call,
run on a database thread (:meth:`~legacy_tcp.transport.server.LineServer.run_in_db`).
Rules are the service's; a refusal comes back as its domain error, which the codec turns
into this wire's text.
"""

from __future__ import annotations

import contextlib

from accounts import selectors as account_selectors
from accounts.types import Player
from games import errors, services
from games.state import gateways
from games.state.gateways import GatewayGame
from legacy_tcp import guests

GATEWAY = guests.DISTRIBUIDO


def register(
    name: str, trusted: bool, address: str, key: str | None = None
) -> tuple[Player, bool]:
    """The account ``name`` plays as (a linked name with its account's ``key``), and
    whether it is a guest (a new one counted against ``address``, the client's)."""
    player = guests.player_for(
        gateway=GATEWAY, name=name, trusted=trusted, address=address, key=key
    )
    return player, account_selectors.is_guest(player.pk)


def start(white: Player, black: Player, days_per_move: int | None) -> GatewayGame:
    game = services.start_gateway_game(white=white, black=black, days_per_move=days_per_move)
    return gateways.after_write(game, with_moves=False)


def move(game_id: int, player: Player, text: str) -> GatewayGame:
    # The protocol sends no move number: the game's next one, whichever it is now.
    game = services.make_move(game_id=game_id, player=player, move_number=None, move=text)
    return gateways.after_write(game, with_moves=False)


def resign(game_id: int, player: Player) -> GatewayGame:
    game = services.resign(game_id=game_id, player=player)
    return gateways.after_write(game, with_moves=False)


def abandon(game_id: int, player: Player) -> None:
    with contextlib.suppress(errors.GameNotFound):
        services.leave_gateway_game(game_id=game_id, player=player)


def read_game(game_id: int) -> GatewayGame:
    return gateways.read(game_id, with_moves=False)


def history_of(game_id: int) -> list[str]:
    return gateways.sans(game_id)


def games_in_progress() -> list[tuple[str, str, str]]:
    return gateways.games_in_progress()
