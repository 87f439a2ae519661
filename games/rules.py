"""The rules of chess for Ajedrez: the only module that uses python-chess for game logic.

Pure functions, no Django. A position is a FEN string; a move is validated against the
stored position plus the moves played since the last irreversible move (the only ones a
repetition can reach), never by replaying the whole game.
"""

from __future__ import annotations

import datetime as dt
import enum
import io
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

import chess
import chess.pgn

STARTING_FEN = chess.STARTING_FEN

WHITE = "white"
BLACK = "black"


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


class MoveTextError(ValueError):
    """The text is not a move in UCI or SAN (python-chess's InvalidMoveError)."""


# What a FEN from outside may hold: 90 characters is the longest FEN of a position
# whose move number is at most MAX_START_MOVE_NUMBER; the column holds 100.
MAX_FEN_LENGTH = 90
MAX_START_MOVE_NUMBER = 9999


class InvalidPositionError(ValueError):
    """A FEN that is not a legal position to start a game from."""


class IllegalMoveError(ValueError):
    """The move is well formed but not legal in the position (or ambiguous)."""


class AmbiguousMoveError(IllegalMoveError):
    """The text names more than one legal move here; ``readings`` are their SAN."""

    def __init__(self, text: str, readings: Sequence[str]) -> None:
        super().__init__(text)
        self.text = text
        self.readings = tuple(readings)


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


@dataclass(frozen=True)
class PlayedMove:
    """A legal move applied to a position, and what it led to."""

    uci: str
    san: str
    fen_after: str
    outcome: Outcome | None


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


def in_check(fen: str) -> bool:
    """Whether the side to move in ``fen`` is in check."""
    return chess.Board(fen).is_check()


def _board(fen: str, history: Sequence[str]) -> chess.Board:
    """The board at ``fen`` with ``history`` (UCI moves since an earlier position) on its stack.

    ``fen`` is the position before ``history``; keeping the moves on the stack is what lets
    python-chess see repetitions.
    """
    board = chess.Board(fen)
    for uci in history:
        board.push(chess.Move.from_uci(uci))
    return board


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
    """Read ``text`` as UCI (``e2e4``, ``E7E8Q``) or SAN (``Nf3``, ``B7g4``, ``O-O``, ``e8=Q+``).

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
        readings.append(as_uci)
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


def play(fen_before_history: str, history: Sequence[str], move_text: str) -> PlayedMove:
    """Apply ``move_text`` to the position reached by ``history`` from ``fen_before_history``.

    ``history`` holds the UCI moves since the last irreversible move (at most 150 plies in
    a game that has not ended), enough for python-chess to detect fivefold repetition.
    """
    board = _board(fen_before_history, history)
    move = parse_move(board, move_text)
    san = board.san(move)
    board.push(move)
    return PlayedMove(
        uci=move.uci(),
        san=san,
        fen_after=board.fen(),
        outcome=automatic_outcome(board),
    )


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


def claimable_draw(fen_before_history: str, history: Sequence[str]) -> Termination | None:
    """The draw a player may claim in the current position: threefold or fifty moves.

    Only the position on the board counts (the claim "by the move I intend to play" is
    not offered: in correspondence chess you play the move, then claim).
    """
    board = _board(fen_before_history, history)
    if board.is_repetition(3):
        return Termination.THREEFOLD_REPETITION
    if board.is_fifty_moves():
        return Termination.FIFTY_MOVES
    return None


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
    """Legal destinations per origin square, as the board wants them: ``{"e2": ["e3", "e4"]}``."""
    board = chess.Board(fen)
    dests: dict[str, list[str]] = {}
    for move in board.legal_moves:
        dests.setdefault(chess.square_name(move.from_square), [])
        to = chess.square_name(move.to_square)
        if to not in dests[chess.square_name(move.from_square)]:
            dests[chess.square_name(move.from_square)].append(to)
    return dests


def pgn(
    headers: Mapping[str, str],
    ucis: Iterable[str],
    *,
    result: str,
    termination_comment: str | None = None,
    start_fen: str = STARTING_FEN,
) -> str:
    """The game as PGN text with the given tags, built by python-chess from the UCI moves
    played from ``start_fen`` (a FEN tag is added when it is not the standard one)."""
    game = chess.pgn.Game()
    if start_fen != STARTING_FEN:
        game.setup(start_fen)
    for key, value in headers.items():
        game.headers[key] = value
    game.headers["Result"] = result
    node: chess.pgn.GameNode = game
    for uci in ucis:
        node = node.add_variation(chess.Move.from_uci(uci))
    if termination_comment:
        node.comment = termination_comment
    out = io.StringIO()
    exporter = chess.pgn.FileExporter(out)
    game.accept(exporter)
    return out.getvalue().strip() + "\n"


def pgn_from_sans(
    headers: Mapping[str, str],
    sans: Iterable[str],
    *,
    result: str,
    termination_comment: str | None = None,
    start_fen: str = STARTING_FEN,
) -> str:
    """The same text as :func:`pgn`, written from the moves' SAN as they were stored
    when played rather than by replaying them: working out each SAN again (legal-move
    generation for every ply) was most of the time of a download of many games.

    The tags go through python-chess's :class:`chess.pgn.Game` as in :func:`pgn` (their
    order, the FEN and SetUp tags of a game that starts elsewhere); the move text is
    laid out as python-chess's exporter lays it out: move numbers, ``N...`` when black
    moves first, the comment after the last move, lines of at most 80 columns.
    """
    game = chess.pgn.Game()
    if start_fen != STARTING_FEN:
        game.setup(start_fen)
    for key, value in headers.items():
        game.headers[key] = value
    game.headers["Result"] = result
    lines = [f'[{tag} "{value}"]' for tag, value in game.headers.items()]
    lines.append("")
    if start_fen == STARTING_FEN:
        white_to_move, number = True, 1
    else:
        board = game.board()
        white_to_move, number = board.turn == chess.WHITE, board.fullmove_number
    tokens: list[str] = []
    for index, san in enumerate(sans):
        if white_to_move:
            tokens.append(f"{number}. ")
        elif index == 0:
            tokens.append(f"{number}... ")
        tokens.append(san + " ")
        if not white_to_move:
            number += 1
        white_to_move = not white_to_move
    if termination_comment:
        tokens.append("{ " + termination_comment.replace("}", "").strip() + " } ")
    tokens.append(result + " ")
    line = ""
    for token in tokens:
        if 80 - len(line) < len(token):
            if line:
                lines.append(line.rstrip())
            line = ""
        line += token
    lines.append(line.rstrip())
    return "\n".join(lines).strip() + "\n"


def pgn_date(moment: dt.datetime) -> str:
    return moment.strftime("%Y.%m.%d")


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
