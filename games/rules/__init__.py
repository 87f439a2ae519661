"""The rules of chess for Ajedrez: the only package that uses python-chess for game logic.

Pure functions, no Django. A position is a FEN string; a move is validated against the
stored position plus the moves played since the last irreversible move (the only ones a
repetition can reach), never by replaying the whole game.

One module per role: :mod:`.positions`, :mod:`.moves` (reading move text),
:mod:`.playing` (applying moves), :mod:`.outcomes` (how games end) and :mod:`.notation`
(PGN). Callers use this package's names (``from games import rules``; ``rules.play``).
"""

from games.rules.imports import ImportedGame, PgnImportError, read_pgn_game
from games.rules.moves import (
    AmbiguousMoveError,
    IllegalMoveError,
    LineMoveError,
    MoveTextError,
    line_sans,
    parse_move,
    read_line,
)
from games.rules.notation import pgn, pgn_date, pgn_from_sans
from games.rules.outcomes import (
    ABORTED,
    Outcome,
    Termination,
    automatic_outcome,
    claimable_draw,
    timeout_outcome,
)
from games.rules.playing import PlayedMove, play, replay
from games.rules.positions import (
    BLACK,
    FIVEFOLD_MIN_PLIES,
    MAX_FEN_LENGTH,
    MAX_START_MOVE_NUMBER,
    STARTING_FEN,
    THREEFOLD_MIN_PLIES,
    WHITE,
    DiagramSquare,
    InvalidPositionError,
    both_sides_have_moved,
    colour_to_move,
    diagram,
    halfmove_clock,
    in_check,
    keys_one_move_from,
    legal_moves,
    move_can_repeat_fivefold,
    plies_played_by,
    position_key,
    starting_position,
)

__all__ = [
    "ABORTED",
    "BLACK",
    "FIVEFOLD_MIN_PLIES",
    "MAX_FEN_LENGTH",
    "MAX_START_MOVE_NUMBER",
    "STARTING_FEN",
    "THREEFOLD_MIN_PLIES",
    "WHITE",
    "AmbiguousMoveError",
    "DiagramSquare",
    "IllegalMoveError",
    "ImportedGame",
    "InvalidPositionError",
    "LineMoveError",
    "MoveTextError",
    "Outcome",
    "PgnImportError",
    "PlayedMove",
    "Termination",
    "automatic_outcome",
    "both_sides_have_moved",
    "claimable_draw",
    "colour_to_move",
    "diagram",
    "halfmove_clock",
    "in_check",
    "keys_one_move_from",
    "legal_moves",
    "line_sans",
    "move_can_repeat_fivefold",
    "parse_move",
    "pgn",
    "pgn_date",
    "pgn_from_sans",
    "play",
    "plies_played_by",
    "position_key",
    "read_line",
    "read_pgn_game",
    "replay",
    "starting_position",
    "timeout_outcome",
]
