"""The read model's view of a game for the TCP gateways (``legacy_tcp``): reads only.

A gateway's reply shows the position, whose turn it is and whether that side is in check,
how the game ended, and the last move pair: :class:`GatewayGame` holds exactly that, built
from a game a service returned or read here (:func:`after_write`, :func:`read`), or from
a live event's message (:func:`from_event`, no database read: the event carries the
state and the move's SAN). The gateways judge no rules and import no models; what they
need of either is here, beside the rest of the read model.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from games import rules, selectors
from games.models import Game

# The moves a reply shows at most: chessirc's history is the current move pair.
LAST_MOVES = 2


@dataclass(frozen=True)
class GatewayGame:
    """A game as a gateway's reply needs it."""

    id: int
    public_id: str
    version: int
    fen: str
    # "white" or "black": the side to move in ``fen``.
    turn: str
    # Whether the side to move is in check.
    in_check: bool
    status: str
    result: str
    termination: str
    # Whether White moves first from the game's start (a FEN may give Black the move).
    white_first: bool
    # Half-moves played so far, and the SAN of the last ones (up to LAST_MOVES, oldest
    # first; empty when they were not read).
    plies: int
    last_sans: tuple[str, ...] = ()

    @property
    def finished(self) -> bool:
        return self.status != Game.Status.ACTIVE


def _of(
    *,
    game_id: int,
    public_id: str,
    version: int,
    fen: str,
    start_fen: str,
    status: str,
    result: str,
    termination: str,
    plies: int,
    last_sans: Sequence[str],
) -> GatewayGame:
    return GatewayGame(
        id=game_id,
        public_id=public_id,
        version=version,
        fen=fen,
        turn=rules.colour_to_move(fen),
        in_check=rules.in_check(fen),
        status=status,
        result=result,
        termination=termination,
        white_first=rules.colour_to_move(start_fen) == rules.WHITE,
        plies=plies,
        last_sans=tuple(last_sans),
    )


def after_write(game: Game, *, with_moves: bool = True) -> GatewayGame:
    """The game a service returned (or a selector read), with its last moves' SAN when
    ``with_moves`` (one query)."""
    plies = game.next_move_number - 1
    sans: list[str] = []
    if with_moves and plies > 0:
        last = selectors.moves(game.pk, after=max(0, plies - LAST_MOVES))
        sans = list(last.values_list("san", flat=True))
    return _of(
        game_id=game.pk,
        public_id=game.public_id,
        version=game.version,
        fen=game.fen,
        start_fen=game.start_fen,
        status=game.status,
        result=game.result,
        termination=game.termination,
        plies=plies,
        last_sans=sans,
    )


def read(game_id: int, *, with_moves: bool = True) -> GatewayGame:
    """The game ``game_id`` as it is now (:class:`~games.errors.GameNotFound` if none)."""
    return after_write(selectors.game(game_id), with_moves=with_moves)


def from_event(message: dict[str, Any], *, previous_san: str | None = None) -> GatewayGame:
    """The game as a live event (:func:`games.state.event_message`) leaves it, read from
    the message alone. A move event's SAN becomes the last move, after ``previous_san``
    when the caller knows the move before it."""
    state = message["game"]
    move = message.get("move")
    sans: list[str] = []
    if move is not None:
        sans = [san for san in (previous_san, move["san"]) if san is not None]
    return _of(
        game_id=state["id"],
        public_id=state["public_id"],
        version=message["version"],
        fen=state["fen"],
        start_fen=state["initial_fen"],
        status=state["status"],
        result=state["result"],
        termination=state["termination"],
        plies=state["next_move_number"] - 1,
        last_sans=sans,
    )


def game_id_of(public_id: str) -> int | None:
    """The id a game's public id (``P0000012``) names, or None if it names none."""
    return Game.pk_from_public_id(public_id)


def sans(game_id: int) -> list[str]:
    """Every move of the game in SAN (:class:`~games.errors.GameNotFound` if none)."""
    selectors.game(game_id)
    return list(selectors.moves(game_id).values_list("san", flat=True))


def games_in_progress() -> list[tuple[str, str, str]]:
    """Games in progress as (public id, White's name, Black's name)."""
    return [
        (game.public_id, game.white.username, game.black.username)
        for game in selectors.games_in_progress()
    ]
