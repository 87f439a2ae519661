"""A game read from PGN text to be imported (lichess's ``POST /api/import``): one game,
standard chess, from the start or from a FEN tag, its main line checked move by move.
Comments and variations are read past; nothing of them is kept."""

from __future__ import annotations

import io
from dataclasses import dataclass

import chess
import chess.pgn

from games.rules.outcomes import Outcome, Termination, automatic_outcome
from games.rules.playing import PlayedMove
from games.rules.positions import BLACK, WHITE

RESULTS = {"1-0": WHITE, "0-1": BLACK, "1/2-1/2": None}
# The PGN Termination tags lichess writes, and this service's own, read back.
TERMINATION_TAGS = {
    "time forfeit": Termination.TIMEOUT,
    "abandoned": Termination.ABANDONMENT,
}


class PgnImportError(ValueError):
    """PGN text that is not one finished game of standard chess; ``reason`` says why,
    in English (the caller translates its own message)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class ImportedGame:
    """A PGN game read and checked: its tags, its start, its moves and how it ended."""

    headers: dict[str, str]
    start_fen: str
    moves: list[PlayedMove]
    outcome: Outcome


class _QuietBuilder(chess.pgn.GameBuilder):
    """python-chess's builder without its log line per error: a client's bad PGN is
    answered with the reason, not written to the server's error log."""

    def handle_error(self, error: Exception) -> None:
        self.game.errors.append(error)


def _start_is_unreadable(headers: chess.pgn.Headers) -> bool:
    """A ``FEN`` tag that is no legal position: the moves' errors would only say that
    the first of them cannot be played."""
    fen = headers.get("FEN")
    if fen is None:
        return False
    try:
        return not chess.Board(fen).is_valid()
    except ValueError:
        return True


def read_pgn_game(text: str) -> ImportedGame:
    """The one game of ``text``; :class:`PgnImportError` when there is none, more than
    one, a variant, an illegal move, or no result (``*``)."""
    stream = io.StringIO(text)
    game = chess.pgn.read_game(stream, Visitor=_QuietBuilder)
    if game is None or (not game.errors and game.next() is None):
        raise PgnImportError("no game")
    if chess.pgn.read_game(stream, Visitor=_QuietBuilder) is not None:
        raise PgnImportError("more than one game")
    if _start_is_unreadable(game.headers):
        raise PgnImportError("not a legal starting position")
    if game.errors:
        raise PgnImportError(f"illegal or unreadable move: {game.errors[0]}")
    variant = game.headers.get("Variant", "Standard").strip().lower()
    if variant not in ("standard", "from position", ""):
        raise PgnImportError("not standard chess")
    board = game.board()
    if board.chess960 or not board.is_valid():
        raise PgnImportError("not a legal starting position")
    start_fen = board.fen()
    played: list[PlayedMove] = []
    for move in game.mainline_moves():
        san = board.san(move)
        board.push(move)
        played.append(PlayedMove(move.uci(), san, board.fen(), None))
    on_board = automatic_outcome(board)
    result = game.headers.get("Result", "*").strip()
    if on_board is not None:
        outcome = on_board
    elif result in RESULTS:
        tag = game.headers.get("Termination", "").strip().lower()
        winner = RESULTS[result]
        if tag in TERMINATION_TAGS:
            termination = TERMINATION_TAGS[tag]
        elif winner is None:
            termination = Termination.AGREEMENT
        else:
            termination = Termination.RESIGNATION
        outcome = Outcome(termination, winner)
    else:
        raise PgnImportError("no result")
    return ImportedGame(
        headers=dict(game.headers),
        start_fen=start_fen,
        moves=played,
        outcome=outcome,
    )
