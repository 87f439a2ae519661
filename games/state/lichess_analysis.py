"""A game's computer analysis as lichess's API exports carry it (``evals``,
``accuracy``): the ``analysis`` array of ``GameJson`` (one ``GameMoveAnalysis`` per
half-move) and each player's ``analysis`` summary. Built from the points the site shows
(:func:`games.state.analysis.analysis_points`), so the marks, the engine's moves and the
accuracy are the same as on the game's page and in its PGN.

Only a done analysis of a finished game is exported (fair play, and a half-done one is
not shown as an answer): :func:`exported_analysis` is None otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from games import judgement, rules
from games.models import Game, GameAnalysis
from games.state.analysis import accuracy_of, analysis_of, analysis_points, mark_counts

# lichess's names of its marks (lila's Advice.Judgement).
JUDGEMENT_NAMES = {"inaccuracy": "Inaccuracy", "mistake": "Mistake", "blunder": "Blunder"}


@dataclass(frozen=True)
class ExportedAnalysis:
    """What an export says of a done analysis: the points (the start, then after each
    half-move) and each player's accuracy."""

    points: list[dict[str, Any]]
    accuracy: dict[str, int] | None


def exported_analysis(
    game: Game, analysis: GameAnalysis | None = None, *, known_absent: bool = False
) -> ExportedAnalysis | None:
    """The done analysis of finished ``game``, or None (in progress, none, not done).
    ``analysis``: already read; ``known_absent``: the caller knows there is none."""
    if game.is_active or known_absent:
        return None
    if analysis is None:
        analysis = analysis_of(game)
    if analysis is None or analysis.status != GameAnalysis.Status.DONE:
        return None
    points = analysis_points(game, analysis)
    return ExportedAnalysis(points, accuracy_of(game, points))


def move_analysis(points: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``GameJson.analysis``: after each half-move, its evaluation from White's side
    (``eval`` in centipawns or ``mate``; none for a mate on the board, as lichess), and
    for a marked move the engine's move (``best``, UCI), its line (``variation``, SAN)
    and the mark (``judgment``)."""
    shown = []
    previous: dict[str, Any] | None = None
    for point in points:
        if previous is None:
            previous = point
            continue
        entry: dict[str, Any] = {}
        if point["mate"] is not None and point["mate"] != 0:
            entry["mate"] = point["mate"]
        elif point["cp"] is not None:
            entry["eval"] = point["cp"]
        if point["judgement"] and previous["best"]:
            name = JUDGEMENT_NAMES[point["judgement"]]
            entry["best"] = previous["best"]
            entry["variation"] = previous["best_san"]
            entry["judgment"] = {
                "name": name,
                # lichess's wording, in English as its API's texts are.
                "comment": f"{name}. {previous['best_san']} was best.",
            }
        shown.append(entry)
        previous = point
    return shown


def centipawn_losses(game: Game, points: list[dict[str, Any]]) -> dict[str, int | None]:
    """Each player's average centipawn loss (lichess's ``acpl``): per move, how much the
    mover's evaluation fell, mates and evaluations beyond the ceiling counted as the
    ceiling; None for a side that did not move."""
    white_starts = rules.colour_to_move(game.start_fen) == rules.WHITE
    cps = []
    for point in points:
        white_to_move = (point["ply"] % 2 == 0) == white_starts
        cp = judgement.white_centipawns(
            judgement.Eval(cp=point["cp"], mate=point["mate"]), white_to_move=white_to_move
        )
        cps.append(max(-judgement.CP_CEILING, min(judgement.CP_CEILING, cp)))
    if game.start_fen == rules.STARTING_FEN and cps:
        cps[0] = judgement.CP_INITIAL
    losses: dict[str, list[int]] = {rules.WHITE: [], rules.BLACK: []}
    for ply in range(1, len(cps)):
        white_moved = (ply % 2 == 1) == white_starts
        drop = cps[ply - 1] - cps[ply] if white_moved else cps[ply] - cps[ply - 1]
        losses[rules.WHITE if white_moved else rules.BLACK].append(max(0, drop))
    return {
        colour: round(sum(found) / len(found)) if found else None
        for colour, found in losses.items()
    }


def player_analysis(
    game: Game, exported: ExportedAnalysis, *, evals: bool, accuracy: bool
) -> dict[str, dict[str, int]]:
    """``players.{white,black}.analysis``: the marks and ``acpl`` (with ``evals``), the
    ``accuracy`` (with ``accuracy``), as lichess's export."""
    counts = mark_counts(exported.points)
    acpl = centipawn_losses(game, exported.points)
    summaries: dict[str, dict[str, int]] = {}
    for colour in (rules.WHITE, rules.BLACK):
        summary: dict[str, int] = {}
        if evals:
            summary.update(counts[colour])
            loss = acpl[colour]
            if loss is not None:
                summary["acpl"] = loss
        if accuracy and exported.accuracy is not None:
            summary["accuracy"] = exported.accuracy[colour]
        summaries[colour] = summary
    return summaries
