"""Conditional moves: a player's lines of "if they play X, I reply Y, then if Z, W…".

Entered on the opponent's turn, judged move by move from the game's position, stored as
UCI in :class:`~games.models.ConditionalLines`. When the opponent plays the first move of
a line, the line gives the reply that :mod:`games.services` then plays through
the ordinary move path, in the same transaction; the lines that began with that move
keep their rest, the others are dropped (:func:`answer`).

Lines sharing a beginning are merged into one tree when they agree (the same replies to
the same moves), and refused when they answer the same moves with different replies:
which one the player meant cannot be guessed, and a reply cannot be taken back.

Nothing here writes, takes locks or starts transactions: :mod:`games.services` stores
what it decides, with the game row locked, which orders it against every move and
every other change of the lines.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.utils.translation import gettext as _

from accounts.types import Player
from games import errors, rules
from games.models import ConditionalLines, Game

# A line is the opponent's move and the reply, then more pairs: at most 10 moves each.
MAX_LINES = 20
MAX_PLIES = 20


def _refuse(number: int, message: str) -> errors.ConditionalLinesInvalid:
    return errors.ConditionalLinesInvalid(
        _("Line %(n)d: %(why)s") % {"n": number, "why": message}, line=number
    )


def _read_line(fen: str, number: int, moves: object) -> list[str]:
    """``moves`` (UCI or SAN) as UCI, each legal where it is played from ``fen``."""
    if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
        raise _refuse(number, _("a line is a list of moves written as text."))
    if len(moves) < 2 or len(moves) % 2:
        raise _refuse(number, _("a line is their move and your reply, then more such pairs."))
    if len(moves) > MAX_PLIES:
        raise _refuse(number, _("a line has at most %(n)d moves.") % {"n": MAX_PLIES})
    try:
        return rules.read_line(fen, moves)
    except rules.LineMoveError as exc:
        text = exc.text
        if exc.cause is None:
            raise _refuse(
                number, _("the game would be over before “%(move)s”.") % {"move": text}
            ) from exc
        if isinstance(exc.cause, rules.AmbiguousMoveError):
            raise _refuse(
                number,
                _("“%(move)s” could be more than one move (%(moves)s).")
                % {"move": text, "moves": ", ".join(exc.cause.readings)},
            ) from exc
        raise _refuse(
            number, _("“%(move)s” is not a legal move there.") % {"move": text[:12]}
        ) from exc


def _merge(lines: list[list[str]]) -> list[list[str]]:
    """The lines as one tree: duplicates and lines that begin another dropped; refused
    when two lines answer the same moves differently."""
    kept: list[list[str]] = []
    for line in sorted(lines, key=len, reverse=True):
        if any(other[: len(line)] == line for other in kept):
            continue  # already said by a longer line
        kept.append(line)
    for i, line in enumerate(kept):
        for other in kept[i + 1 :]:
            split = next(k for k, (a, b) in enumerate(zip(line, other, strict=False)) if a != b)
            if split % 2:  # an odd index is a reply: the same moves answered two ways
                raise errors.ConditionalLinesInvalid(
                    _("Two lines answer the same moves with different replies: keep one.")
                )
    return kept


def read_lines(game: Game, lines: object) -> list[list[str]]:
    """``lines`` as sent (a list of lists of moves in UCI or SAN) read as UCI lines from
    ``game``'s position, merged into one tree; refused with a clear message otherwise."""
    if not isinstance(lines, list):
        raise errors.ConditionalLinesInvalid(_("Send a list of lines."))
    if len(lines) > MAX_LINES:
        raise errors.ConditionalLinesInvalid(_("At most %(n)d lines at a time.") % {"n": MAX_LINES})
    return _merge([_read_line(game.fen, n, line) for n, line in enumerate(lines, start=1)])


def line_moves(fen: str, line: Sequence[str]) -> list[dict[str, str]]:
    """A stored line's moves from ``fen`` as ``{"uci", "san"}``, for the owner's page."""
    return [
        {"uci": uci, "san": san} for uci, san in zip(line, rules.line_sans(fen, line), strict=True)
    ]


def lines_of(game: Game, player: Player) -> ConditionalLines | None:
    """``player``'s lines on ``game`` that still wait for the move they start with."""
    found = ConditionalLines.objects.filter(game=game, player=player).first()
    if found is None or found.from_move != game.next_move_number:
        return None
    return found


def answer(lines: Sequence[list[str]], played_uci: str) -> tuple[str | None, list[list[str]]]:
    """What ``lines`` answer to ``played_uci`` (their first move, just played): the reply
    (``None`` when no line starts with it) and the lines to keep, from the opponent's
    move after the reply."""
    fitting = [line for line in lines if line[0] == played_uci]
    if not fitting:
        return None, []
    return fitting[0][1], [line[2:] for line in fitting if len(line) > 2]
