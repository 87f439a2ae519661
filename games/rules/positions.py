"""Positions: whose turn, a FEN from outside checked as a start, the counters a FEN
keeps, the legal moves as the board wants them, and a diagram for mail.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

import chess

STARTING_FEN = chess.STARTING_FEN

WHITE = "white"
BLACK = "black"

# What a FEN from outside may hold: 90 characters is the longest FEN of a position
# whose move number is at most MAX_START_MOVE_NUMBER; the column holds 100.
MAX_FEN_LENGTH = 90
MAX_START_MOVE_NUMBER = 9999


class InvalidPositionError(ValueError):
    """A FEN that is not a legal position to start a game from."""


def colour_to_move(fen: str) -> str:
    """Return ``"white"`` or ``"black"``: whose turn it is in ``fen``."""
    return WHITE if fen.split(" ", 2)[1] == "w" else BLACK


def plies_played_by(colour: str, *, start_fen: str, plies: int) -> int:
    """How many of a game's first ``plies`` half-moves ``colour`` played, the game having
    begun from ``start_fen``: the side to move there plays the odd half-moves (white's
    from the standard position, black's from a position with black to move)."""
    if colour == colour_to_move(start_fen):
        return (plies + 1) // 2
    return plies // 2


def both_sides_have_moved(*, start_fen: str, plies: int) -> bool:
    """Whether each side has made a move in a game begun from ``start_fen`` after
    ``plies`` half-moves: before that a game is aborted, not lost, and counts for no
    rating (lichess's rule)."""
    return all(
        plies_played_by(colour, start_fen=start_fen, plies=plies) > 0 for colour in (WHITE, BLACK)
    )


def starting_position(fen: str) -> str:
    """``fen`` as the position a game may start from: legal, with a move to play, written
    in full (missing counters completed). Raises :class:`InvalidPositionError`."""
    text = fen.strip()
    # The longest FEN of a real position is well under the bound; a longer text is not
    # parsed at all (python-chess would read any number of digits in the counters).
    if len(text) > MAX_FEN_LENGTH:
        raise InvalidPositionError(text[:MAX_FEN_LENGTH] + "…")
    try:
        board = chess.Board(text)
    except ValueError as exc:
        raise InvalidPositionError(text) from exc
    if not board.is_valid() or board.is_game_over(claim_draw=False):
        raise InvalidPositionError(text)
    # The move number is a counter the position does not need; bounded, the stored FEN
    # keeps within its column however long the game goes on from there.
    if not 1 <= board.fullmove_number <= MAX_START_MOVE_NUMBER:
        raise InvalidPositionError(text)
    return board.fen()


def position_key(fen: str) -> str:
    """The position ``fen`` describes, as the first four fields of its FEN (pieces, side
    to move, castling rights, en passant square), the counters left out: two FENs of one
    position give one key. The position must be legal; it may be over (a mate). Raises
    :class:`InvalidPositionError`."""
    text = fen.strip()
    if len(text) > MAX_FEN_LENGTH:
        raise InvalidPositionError(text[:MAX_FEN_LENGTH] + "…")
    try:
        board = chess.Board(text)
    except ValueError as exc:
        raise InvalidPositionError(text) from exc
    if not board.is_valid():
        raise InvalidPositionError(text)
    return board.epd()


def keys_one_move_from(fen: str) -> set[str]:
    """The :func:`position_key` of every position one legal move away from ``fen``."""
    board = chess.Board(fen)
    keys = set()
    for move in board.legal_moves:
        board.push(move)
        keys.add(board.epd())
        board.pop()
    return keys


def in_check(fen: str) -> bool:
    """Whether the side to move in ``fen`` is in check."""
    return chess.Board(fen).is_check()


# Boards already parsed, by FEN, most recently used last. Reading a FEN is the dearest
# part of python-chess's work for a move (87 µs here, against 2 µs to copy a board), and
# a move reads the same positions again: the one it is played on (the last move's
# position after), the one after it for the legal moves its event carries. Each caller
# gets a copy of its own; the boards kept here are never handed out.
BOARDS_KEPT = 2048
_boards: OrderedDict[str, chess.Board] = OrderedDict()
_boards_lock = threading.Lock()


def board_at(fen: str) -> chess.Board:
    """A board of the caller's own at ``fen`` (no moves on its stack)."""
    with _boards_lock:
        kept = _boards.get(fen)
        if kept is not None:
            _boards.move_to_end(fen)
            return kept.copy(stack=False)
    board = chess.Board(fen)
    remember_board(fen, board)
    return board


def remember_board(fen: str, board: chess.Board) -> None:
    """Keep ``board`` (a position just reached, whose FEN is ``fen``) for :func:`board_at`."""
    copy = board.copy(stack=False)
    with _boards_lock:
        _boards[fen] = copy
        _boards.move_to_end(fen)
        while len(_boards) > BOARDS_KEPT:
            _boards.popitem(last=False)


def history_board(fen: str, history: Sequence[str]) -> chess.Board:
    """The board at ``fen`` with ``history`` (UCI moves since an earlier position) on its stack.

    ``fen`` is the position before ``history``; keeping the moves on the stack is what lets
    python-chess see repetitions.
    """
    board = board_at(fen)
    for uci in history:
        board.push(chess.Move.from_uci(uci))
    return board


def halfmove_clock(fen: str) -> int:
    """The plies since the last capture or pawn move, from the FEN's fifth field."""
    return int(fen.split(" ")[4])


# A position comes back at the earliest 4 plies later (each side must move away and
# back), so its n-th occurrence needs 4 × (n − 1) reversible plies before it.
THREEFOLD_MIN_PLIES = 8
FIVEFOLD_MIN_PLIES = 16


def move_can_repeat_fivefold(fen: str) -> bool:
    """Whether a move played from ``fen`` could complete a fivefold repetition.

    Only then does the move need the plies since the last irreversible move; otherwise
    the position alone decides every automatic ending (mate, stalemate, material,
    the 75-move rule).
    """
    return halfmove_clock(fen) + 1 >= FIVEFOLD_MIN_PLIES


def legal_moves(fen: str) -> dict[str, list[str]]:
    """Legal destinations per origin square, as the board wants them: ``{"e2": ["e3", "e4"]}``.

    A king that may castle has two destinations per side, as on lichess: its square
    after castling (``g1``) and its own rook's (``h1``), so that dropping the king on
    the rook castles too (the board's ``rookCastle``; :func:`parse_move` reads it)."""
    board = board_at(fen)
    dests: dict[str, list[str]] = {}
    for move in board.legal_moves:
        targets = dests.setdefault(chess.square_name(move.from_square), [])
        squares = [move.to_square]
        if board.is_castling(move):
            rook_file = 7 if board.is_kingside_castling(move) else 0
            squares.append(chess.square(rook_file, chess.square_rank(move.from_square)))
        for square in squares:
            if chess.square_name(square) not in targets:
                targets.append(chess.square_name(square))
    return dests


@dataclass(frozen=True)
class DiagramSquare:
    """One square of a board diagram: its name, the piece on it as a Unicode chess
    symbol (``""`` when empty), and whether it is a light square."""

    name: str
    piece: str
    light: bool


def diagram(fen: str, *, white_at_bottom: bool = True) -> list[list[DiagramSquare]]:
    """The position of ``fen`` as rows of squares, top row first, as the player of the
    bottom colour sees the board (for mail, where a script-drawn board cannot go)."""
    board = chess.Board(fen)
    ranks = range(7, -1, -1) if white_at_bottom else range(8)
    files = range(8) if white_at_bottom else range(7, -1, -1)
    rows = []
    for rank in ranks:
        row = []
        for file in files:
            square = chess.square(file, rank)
            piece = board.piece_at(square)
            row.append(
                DiagramSquare(
                    name=chess.square_name(square),
                    piece=piece.unicode_symbol() if piece else "",
                    light=(file + rank) % 2 == 1,
                )
            )
        rows.append(row)
    return rows
