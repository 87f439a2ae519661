"""Playing moves: a move read and applied to a game's position, and a game's stored
moves replayed, each with what it led to.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

import chess

from games.rules.moves import IllegalMoveError, MoveTextError, parse_move
from games.rules.outcomes import Outcome, automatic_outcome
from games.rules.positions import STARTING_FEN, history_board, remember_board


@dataclass(frozen=True)
class PlayedMove:
    """A legal move applied to a position, and what it led to."""

    uci: str
    san: str
    fen_after: str
    outcome: Outcome | None


def play(fen_before_history: str, history: Sequence[str], move_text: str) -> PlayedMove:
    """Apply ``move_text`` to the position reached by ``history`` from ``fen_before_history``.

    ``history`` holds the UCI moves since the last irreversible move (at most 150 plies in
    a game that has not ended), enough for python-chess to detect fivefold repetition.
    """
    board = history_board(fen_before_history, history)
    move = parse_move(board, move_text)
    san = board.san(move)
    board.push(move)
    fen_after = board.fen()
    # The next reads of this position (the event's legal moves, the next move) copy it.
    remember_board(fen_after, board)
    return PlayedMove(
        uci=move.uci(),
        san=san,
        fen_after=fen_after,
        outcome=automatic_outcome(board),
    )


def replay(ucis: Iterable[str], start_fen: str = STARTING_FEN) -> Iterator[PlayedMove]:
    """Play stored UCI moves one by one from ``start_fen`` (the standard starting position
    unless a game started elsewhere), yielding each as played.

    Unlike :func:`play` this reads only canonical UCI (``e2e4``, ``e7e8q``), as moves are
    stored, and never SAN. Raises :class:`MoveTextError` at a text that is no move (null
    moves and drops included) and :class:`IllegalMoveError` at an illegal one; moves
    played after an ending (``outcome`` set) are not refused here, so the caller can say so.
    """
    board = chess.Board(start_fen)
    for uci in ucis:
        try:
            move = chess.Move.from_uci(uci)
        except chess.InvalidMoveError as exc:
            raise MoveTextError(uci) from exc
        if not move or move.drop is not None or move.uci() != uci:
            raise MoveTextError(uci)
        if move not in board.legal_moves:
            raise IllegalMoveError(uci)
        san = board.san(move)
        board.push(move)
        yield PlayedMove(
            uci=uci,
            san=san,
            fen_after=board.fen(),
            outcome=automatic_outcome(board),
        )
