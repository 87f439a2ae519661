"""Reading moves: text in UCI or SAN → a legal move of the position, a line of such
moves, and the errors that say why a text is not one.
"""

from __future__ import annotations

from collections.abc import Sequence

import chess


class MoveTextError(ValueError):
    """The text is not a move in UCI or SAN (python-chess's InvalidMoveError)."""


class IllegalMoveError(ValueError):
    """The move is well formed but not legal in the position (or ambiguous)."""


class AmbiguousMoveError(IllegalMoveError):
    """The text names more than one legal move here; ``readings`` are their SAN."""

    def __init__(self, text: str, readings: Sequence[str]) -> None:
        super().__init__(text)
        self.text = text
        self.readings = tuple(readings)


def _uci_reading(text: str) -> chess.Move | None:
    """``text`` read as UCI, in any case (``e2e4``, ``E2E4``), or ``None`` when it is not UCI.

    A null move (``0000``) and a drop (``Q@e4``) are UCI to python-chess but no move of a
    game of chess: they read as nothing here.
    """
    try:
        move = chess.Move.from_uci(text.lower())
    except chess.InvalidMoveError:
        return None
    if not move or move.drop is not None:
        return None
    return move


def _san_candidates(board: chess.Board, san: str) -> list[chess.Move]:
    """The legal moves an ambiguous SAN such as ``Ne2`` could name, as python-chess matches them."""
    match = chess.SAN_REGEX.match(san)
    if match is None:
        return []
    piece, file_name, rank_name, target, promotion = match.groups()
    piece_type = chess.PIECE_SYMBOLS.index(piece.lower()) if piece else chess.PAWN
    promotion_type = chess.PIECE_SYMBOLS.index(promotion[-1].lower()) if promotion else None
    return [
        move
        for move in board.legal_moves
        if move.to_square == chess.parse_square(target)
        and board.piece_type_at(move.from_square) == piece_type
        and move.promotion == promotion_type
        and (not file_name or chess.square_name(move.from_square)[0] == file_name)
        and (not rank_name or chess.square_name(move.from_square)[1] == rank_name)
    ]


def parse_move(board: chess.Board, text: str) -> chess.Move:
    """Read ``text`` as UCI (``e2e4``, ``E7E8Q``, castling as ``e1g1`` or as the king onto
    its rook, ``e1h1``) or SAN (``Nf3``, ``B7g4``, ``O-O``, ``e8=Q+``).

    The text is not sorted by its shape: it is read both ways and python-chess says which
    readings are legal moves here. ``B7g4`` is UCI in form (``b7g4``) but SAN of a bishop
    move, and only the SAN reading is legal. When the two readings are two different legal
    moves (``B3b5`` with a rook on b3 and a bishop on d3: only a bishop's rank
    disambiguation can look like UCI) the text is refused as ambiguous rather than
    guessed: a move cannot be taken back, and ``Bdb5`` or ``b3b5`` say it at once.

    Raises :class:`MoveTextError` for text that is no move, null moves included (``--``,
    ``Z0``, ``0000``, ``@@@@``: python-chess reads them as "pass", which chess does not
    allow); :class:`AmbiguousMoveError` for text naming more than one legal move;
    :class:`IllegalMoveError` for a move that is not legal here.
    """
    text = text.strip()
    if not text or len(text) > 10:
        raise MoveTextError(text)
    as_uci = _uci_reading(text)
    readings: list[chess.Move] = []
    if as_uci is not None and as_uci in board.legal_moves:
        # The king onto its own rook (``e1h1``) is castling: boards that castle by
        # dropping the king on the rook send it so. python-chess keeps that form for
        # Chess960 only; find_move gives the standard one (``e1g1``), as it is stored.
        readings.append(board.find_move(as_uci.from_square, as_uci.to_square, as_uci.promotion))
    well_formed = as_uci is not None
    try:
        as_san = board.parse_san(text)
    except chess.InvalidMoveError:
        pass
    except chess.AmbiguousMoveError:
        well_formed = True
        readings += [m for m in _san_candidates(board, text) if m not in readings]
    except chess.IllegalMoveError:
        well_formed = True
    else:
        if not as_san:
            raise MoveTextError(text)  # a null move: python-chess returns it unchecked
        if as_san not in readings:
            readings.append(as_san)
    if len(readings) == 1:
        return readings[0]
    if readings:
        raise AmbiguousMoveError(text, [board.san(move) for move in readings])
    if well_formed:
        # Includes a pawn reaching the last rank without its piece: the caller must say which.
        raise IllegalMoveError(text)
    raise MoveTextError(text)


class LineMoveError(ValueError):
    """A move of a line (:func:`read_line`) that cannot be played where it stands:
    ``index`` (from 0) and ``text`` say which, ``cause`` why (an :class:`IllegalMoveError`,
    an :class:`AmbiguousMoveError`, a :class:`MoveTextError`, or ``None`` when the game
    is over before it)."""

    def __init__(self, index: int, text: str, cause: ValueError | None) -> None:
        super().__init__(text)
        self.index = index
        self.text = text
        self.cause = cause


def read_line(fen: str, moves: Sequence[str]) -> list[str]:
    """``moves`` (each UCI or SAN, as :func:`parse_move` reads them) played in turn from
    ``fen``, as UCI. Raises :class:`LineMoveError` at the first that cannot be played."""
    board = chess.Board(fen)
    ucis = []
    for index, text in enumerate(moves):
        if board.is_game_over(claim_draw=False):
            raise LineMoveError(index, text, None)
        try:
            move = parse_move(board, text)
        except (MoveTextError, IllegalMoveError) as exc:
            raise LineMoveError(index, text, exc) from exc
        board.push(move)
        ucis.append(move.uci())
    return ucis


def line_sans(fen: str, ucis: Sequence[str]) -> list[str]:
    """The SAN of each move of a line of legal UCI moves played from ``fen``."""
    board = chess.Board(fen)
    sans = []
    for uci in ucis:
        move = chess.Move.from_uci(uci)
        sans.append(board.san(move))
        board.push(move)
    return sans
