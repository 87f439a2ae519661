"""What an engine's evaluations say of the moves: winning chances, the marks (inaccuracy,
mistake, blunder) and each player's accuracy, by lichess's published rules.

Pure: no Django, no engine, no board. An evaluation is an :class:`Eval` from White's
point of view, as stored for each position of a game (the start, then after each
half-move); the caller says who moved.

The rules are lichess's, ported from its sources (lichess-org/lila and
lichess-org/scalachess, read in 2026):

- winning chances and Win%: scalachess ``core/src/main/scala/eval.scala``
  (``WinPercent.winningChances``, multiplier −0.00368208 from lila pull request 11148;
  centipawns ceiled at ±1000 for Win%; the start of a standard game is +15, ``Cp.initial``);
- the marks: lila ``modules/tree/src/main/Advice.scala`` (formerly
  ``modules/analyse/src/main/Advice.scala``): a drop of the mover's winning chances of
  0.3 is a blunder, 0.2 a mistake, 0.1 an inaccuracy (``CpAdvice``), and the mate rules of
  ``MateAdvice`` (a mate allowed, a forced mate lost);
- accuracy: lila ``modules/analyse/src/main/AccuracyPercent.scala``
  (``fromWinPercents`` and ``gameAccuracy``: the mean of a volatility-weighted mean and a
  harmonic mean, with the helpers of lila's ``Maths``); https://lichess.org/page/accuracy
  explains it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

# scalachess eval.scala: Cp.CEILING, Cp.initial, and the fitted multiplier.
CP_CEILING = 1000
CP_INITIAL = 15
WINNING_CHANCES_MULTIPLIER = -0.00368208


@dataclass(frozen=True)
class Eval:
    """One position's evaluation from White's point of view: centipawns, or moves to
    mate (positive: White mates). ``mate == 0`` is a checkmate on the board: the side to
    move there is mated, so its sign is read from whose turn it is."""

    cp: int | None = None
    mate: int | None = None

    def __post_init__(self) -> None:
        if (self.cp is None) == (self.mate is None):
            raise ValueError("an evaluation has centipawns or a mate, one of them")


class Judgement(Enum):
    """lichess's three marks, with the PGN glyph and its numeric annotation (NAG)."""

    INACCURACY = ("inaccuracy", "?!", 6)
    MISTAKE = ("mistake", "?", 2)
    BLUNDER = ("blunder", "??", 4)

    def __init__(self, code: str, glyph: str, nag: int) -> None:
        self.code = code
        self.glyph = glyph
        self.nag = nag


# Advice.scala, CpAdvice.winningChanceJudgements: the first threshold reached wins.
WINNING_CHANCE_JUDGEMENTS = (
    (0.3, Judgement.BLUNDER),
    (0.2, Judgement.MISTAKE),
    (0.1, Judgement.INACCURACY),
)


def _ceiled(cp: float) -> float:
    return max(-CP_CEILING, min(CP_CEILING, cp))


def winning_chances(cp: float) -> float:
    """White's winning chances in [−1, 1] for ``cp`` centipawns (not ceiled)."""
    chances = 2 / (1 + math.exp(WINNING_CHANCES_MULTIPLIER * cp)) - 1
    return max(-1.0, min(1.0, chances))


def white_centipawns(evaluation: Eval, *, white_to_move: bool) -> int:
    """``evaluation`` as centipawns, a mate as the ceiling of the side that mates (what
    Win% and accuracy read: lila's ``forceAsCp``, ceiled)."""
    if evaluation.cp is not None:
        return evaluation.cp
    assert evaluation.mate is not None
    if evaluation.mate == 0:
        return -CP_CEILING if white_to_move else CP_CEILING
    return CP_CEILING if evaluation.mate > 0 else -CP_CEILING


def win_percent(evaluation: Eval, *, white_to_move: bool) -> float:
    """White's Win% in [0, 100] (scalachess ``WinPercent.fromScore``)."""
    cp = white_centipawns(evaluation, white_to_move=white_to_move)
    return 50 + 50 * winning_chances(_ceiled(cp))


def win_percent_of_centipawns(cp: float) -> float:
    return 50 + 50 * winning_chances(_ceiled(cp))


def move_accuracy(before: float, after: float) -> float:
    """A move's accuracy in [0, 100] from the mover's Win% before and after it
    (``AccuracyPercent.fromWinPercents``, with its +1 for the analysis' imperfection)."""
    if after >= before:
        return 100.0
    raw = 103.1668100711649 * math.exp(-0.04354415386753951 * (before - after)) - 3.166924740191411
    return max(0.0, min(100.0, raw + 1))


def judge(
    before: Eval, after: Eval, *, white_moved: bool, best_played: bool = False
) -> Judgement | None:
    """The mark of a move that took the game from ``before`` to ``after``, or None.

    ``best_played``: the move is the one the engine preferred; lichess marks only moves
    that have a better line (``info.hasVariation``), so such a move gets none."""
    if best_played:
        return None
    if before.cp is not None and after.cp is not None:
        delta = winning_chances(after.cp) - winning_chances(before.cp)
        drop = -delta if white_moved else delta
        for threshold, judgement in WINNING_CHANCE_JUDGEMENTS:
            if drop >= threshold:
                return judgement
        return None
    return _mate_judgement(before, after, white_moved=white_moved)


def _mate_judgement(before: Eval, after: Eval, *, white_moved: bool) -> Judgement | None:
    # Advice.scala's MateAdvice, from the mover's side: a mate they now face (created)
    # or a forced mate of theirs gone (lost); a slower mate (delayed) is not marked.
    sign = 1 if white_moved else -1
    before_mate = None if before.mate is None else sign * before.mate
    after_mate = None if after.mate is None else sign * after.mate
    before_cp = 0 if before.cp is None else sign * before.cp
    after_cp = 0 if after.cp is None else sign * after.cp
    created = before_mate is None and after_mate is not None and after_mate < 0
    lost = before_mate is not None and before_mate > 0 and (after_mate is None or after_mate < 0)
    if created:
        if before_cp < -999:
            return Judgement.INACCURACY
        if before_cp < -700:
            return Judgement.MISTAKE
        return Judgement.BLUNDER
    if lost:
        if after_cp > 999:
            return Judgement.INACCURACY
        if after_cp > 700:
            return Judgement.MISTAKE
        return Judgement.BLUNDER
    return None


def _standard_deviation(values: Sequence[float]) -> float:
    # lila Maths.standardDeviation: the population's.
    mean = sum(values) / len(values)
    return math.sqrt(sum((value - mean) ** 2 for value in values) / len(values))


def _weighted_mean(pairs: Sequence[tuple[float, float]]) -> float | None:
    total_weight = sum(weight for _value, weight in pairs)
    if not pairs or total_weight == 0:
        return None
    return sum(value * weight for value, weight in pairs) / total_weight


def _harmonic_mean(values: Sequence[float]) -> float | None:
    if not values:
        return None
    return len(values) / sum(1 / max(1.0, value) for value in values)


def game_accuracy(
    white_centipawns_by_position: Sequence[float], *, white_moves_first: bool
) -> tuple[float, float] | None:
    """Each player's accuracy (White's, Black's), or None for a game of fewer than two
    half-moves.

    ``white_centipawns_by_position``: White's centipawns at the start, then after each
    half-move (``AccuracyPercent.gameAccuracy``, whose start is ``Cp.initial`` for a
    standard game). Each move's accuracy is weighted by how much the winning chances
    swing around it (the standard deviation of a window of Win%), so that the moves of
    a sharp fight count more than shuffling in a dead draw; the weighted mean is then
    averaged with the harmonic mean, which a few bad moves pull down.
    """
    wins = [win_percent_of_centipawns(cp) for cp in white_centipawns_by_position]
    plies = len(wins) - 1
    if plies < 2:
        return None
    window = max(2, min(8, plies // 10))
    windows = [wins[:window]] * (min(window, len(wins)) - 2)
    windows += [wins[i : i + window] for i in range(len(wins) - window + 1)]
    weights = [max(0.5, min(12.0, _standard_deviation(w))) for w in windows]
    by_side: dict[bool, list[tuple[float, float]]] = {True: [], False: []}
    for i in range(plies):
        white = (i % 2 == 0) == white_moves_first
        before, after = wins[i], wins[i + 1]
        if white:
            accuracy = move_accuracy(before, after)
        else:
            accuracy = move_accuracy(100 - before, 100 - after)
        by_side[white].append((accuracy, weights[i]))
    result = []
    for white in (True, False):
        weighted = _weighted_mean(by_side[white])
        harmonic = _harmonic_mean([accuracy for accuracy, _weight in by_side[white]])
        if weighted is None or harmonic is None:
            return None
        result.append((weighted + harmonic) / 2)
    return result[0], result[1]
