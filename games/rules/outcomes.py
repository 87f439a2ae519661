"""How games end: the ways (stored), the outcome of a position on the board, of a player
out of time, and the draw a player may claim.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

import chess

from games.rules.positions import BLACK, WHITE, history_board


class Termination(enum.StrEnum):
    """How a game ended. Values are stored in the database: never rename one."""

    CHECKMATE = "checkmate"
    STALEMATE = "stalemate"
    INSUFFICIENT_MATERIAL = "insufficient_material"
    SEVENTYFIVE_MOVES = "seventyfive_moves"
    FIVEFOLD_REPETITION = "fivefold_repetition"
    THREEFOLD_REPETITION = "threefold_repetition"
    FIFTY_MOVES = "fifty_moves"
    AGREEMENT = "agreement"
    RESIGNATION = "resignation"
    ABANDONMENT = "abandonment"
    # A player's time per move ran out: a loss, or a draw when the opponent could not
    # mate (the result says which).
    TIMEOUT = "timeout"
    # Ended before both players had moved (on time, or a player left): no result.
    ABORTED = "aborted"


@dataclass(frozen=True)
class Outcome:
    """The end of a game: how it ended and who won (``None`` for a draw)."""

    termination: Termination
    winner: str | None

    @property
    def result(self) -> str:
        """The PGN result: ``1-0``, ``0-1``, ``1/2-1/2``, or ``*`` for an aborted game."""
        if self.termination == Termination.ABORTED:
            return "*"
        if self.winner == WHITE:
            return "1-0"
        if self.winner == BLACK:
            return "0-1"
        return "1/2-1/2"


def automatic_outcome(board: chess.Board) -> Outcome | None:
    """The outcome that ends the game at once, without a claim, or ``None``."""
    outcome = board.outcome(claim_draw=False)
    if outcome is None:
        return None
    termination = {
        chess.Termination.CHECKMATE: Termination.CHECKMATE,
        chess.Termination.STALEMATE: Termination.STALEMATE,
        chess.Termination.INSUFFICIENT_MATERIAL: Termination.INSUFFICIENT_MATERIAL,
        chess.Termination.SEVENTYFIVE_MOVES: Termination.SEVENTYFIVE_MOVES,
        chess.Termination.FIVEFOLD_REPETITION: Termination.FIVEFOLD_REPETITION,
    }[outcome.termination]
    winner = None if outcome.winner is None else (WHITE if outcome.winner else BLACK)
    return Outcome(termination, winner)


def timeout_outcome(fen: str, out_of_time: str) -> Outcome:
    """The end of a game in ``fen`` whose player ``out_of_time`` ran out of time.

    The opponent wins, unless the opponent's pieces could not mate by any series of legal
    moves (python-chess's ``has_insufficient_material``, FIDE article 6.9): then a draw.
    """
    opponent = BLACK if out_of_time == WHITE else WHITE
    board = chess.Board(fen)
    if board.has_insufficient_material(chess.WHITE if opponent == WHITE else chess.BLACK):
        return Outcome(Termination.TIMEOUT, None)
    return Outcome(Termination.TIMEOUT, opponent)


ABORTED = Outcome(Termination.ABORTED, None)


def claimable_draw(fen_before_history: str, history: Sequence[str]) -> Termination | None:
    """The draw a player may claim in the current position: threefold or fifty moves.

    Only the position on the board counts (the claim "by the move I intend to play" is
    not offered: in correspondence chess you play the move, then claim).
    """
    board = history_board(fen_before_history, history)
    if board.is_repetition(3):
        return Termination.THREEFOLD_REPETITION
    if board.is_fifty_moves():
        return Termination.FIFTY_MOVES
    return None
