"""What players see of the engine's work: a game's analysis (the graph's points, each
move's evaluation and the engine's move, the marks, the accuracy), a position of the
analysis board, and the fair-play rule every door asks before the engine is used.

Reads only. An analysis shows its points as they come in; the accuracy, which needs every
move, only once it is done. The marks and the accuracy are lichess's
(:mod:`games.judgement`).
"""

from __future__ import annotations

import os
from typing import Any

from django.conf import settings
from django.utils.translation import gettext as _

from accounts.types import Player
from games import errors, judgement, rules
from games.models import Game, GameAnalysis, PositionEvaluation, PrivateNote
from games.state.game import moves_of

Status = GameAnalysis.Status
MARKS = [j.code for j in judgement.Judgement]


def engine_available() -> bool:
    return os.access(settings.STOCKFISH_PATH, os.X_OK)


# --------------------------------------------------------------------------- fair play


def refuse_engine_for(key: str, player: Player) -> None:
    """Raise :class:`~games.errors.EngineNotAllowed` if the engine would help with a game
    in progress: the position (a :func:`games.rules.position_key`) stands on the board of
    any game in progress, or is one move away from the position of a game in progress
    that ``player`` plays (their candidate move, or the reply they fear).

    A position further ahead is not caught: a server cannot tell an honest study from a
    line of a game played elsewhere. docs/analysis.md says what this rule holds."""
    prefix = key + " "
    # LIKE is case-blind on SQLite, and FEN is not: each candidate is checked again.
    standing = Game.objects.filter(status=Game.Status.ACTIVE, fen__startswith=prefix)
    if any(fen.startswith(prefix) for fen in standing.values_list("fen", flat=True)[:100]):
        raise errors.EngineNotAllowed()
    own = Game.objects.of_player(player, status=Game.Status.ACTIVE).values_list("fen", flat=True)
    for fen in own:
        if key in rules.keys_one_move_from(fen):
            raise errors.EngineNotAllowed()


# --------------------------------------------------------------------------- a game's analysis


def analysis_of(game: Game) -> GameAnalysis | None:
    return GameAnalysis.objects.filter(game_id=game.pk).first()


def queue_position(analysis: GameAnalysis) -> int | None:
    """How many analyses run or wait before a queued one (0: it is next); None when it
    is not waiting."""
    if analysis.status != Status.QUEUED:
        return None
    return GameAnalysis.objects.filter(
        status__in=[Status.QUEUED, Status.RUNNING], requested_at__lt=analysis.requested_at
    ).count()


def _eval_of(point: dict[str, Any]) -> judgement.Eval:
    return judgement.Eval(cp=point.get("cp"), mate=point.get("mate"))


def eval_label(cp: int | None, mate: int | None, *, white_to_move: bool) -> str:
    """An evaluation as players read it: ``+0.35``, ``−1.20``, ``#3``, ``#-2``; a mate on
    the board as ``1-0`` or ``0-1``."""
    if mate is not None:
        if mate == 0:
            return "0-1" if white_to_move else "1-0"
        return f"#{mate}"
    assert cp is not None
    return f"{cp / 100:+.2f}"


def analysis_points(game: Game, analysis: GameAnalysis) -> list[dict[str, Any]]:
    """One point per evaluated position, from the start: White's Win% (the graph), the
    evaluation, the engine's move from there (SAN), and for each move its mark and the
    engine's choice instead of it, when it had another."""
    moves = list(moves_of(game).values_list("number", "uci", "san", "fen_after"))
    fens = [game.start_fen] + [fen for _n, _u, _s, fen in moves]
    white_starts = rules.colour_to_move(game.start_fen) == rules.WHITE
    points = []
    evaluations = analysis.evaluations[: len(fens)]
    for ply, stored in enumerate(evaluations):
        fen = fens[ply]
        white_to_move = rules.colour_to_move(fen) == rules.WHITE
        evaluation = _eval_of(stored)
        best = stored.get("best")
        point: dict[str, Any] = {
            "ply": ply,
            "cp": evaluation.cp,
            "mate": evaluation.mate,
            "label": eval_label(evaluation.cp, evaluation.mate, white_to_move=white_to_move),
            "win": round(judgement.win_percent(evaluation, white_to_move=white_to_move), 1),
            "best": best,
            "best_san": rules.line_sans(fen, [best])[0] if best else None,
            "san": None,
            "colour": None,
            "judgement": None,
            "glyph": "",
            # The engine's move where this move was played, when it preferred another.
            "better_san": None,
        }
        if ply > 0:
            _number, uci, san, _fen = moves[ply - 1]
            before = evaluations[ply - 1]
            white_moved = (ply % 2 == 1) == white_starts
            mark = judgement.judge(
                _eval_of(before), evaluation,
                white_moved=white_moved, best_played=before.get("best") == uci,
            )
            better = before.get("best")
            point.update(
                san=san,
                colour=rules.WHITE if white_moved else rules.BLACK,
                judgement=mark.code if mark else None,
                glyph=mark.glyph if mark else "",
                better_san=(
                    rules.line_sans(fens[ply - 1], [better])[0]
                    if better and better != uci
                    else None
                ),
            )
        points.append(point)
    return points


def accuracy_of(game: Game, points: list[dict[str, Any]]) -> dict[str, int] | None:
    """Each player's accuracy (lichess's), rounded, for a complete analysis."""
    white_starts = rules.colour_to_move(game.start_fen) == rules.WHITE
    cps = []
    for point in points:
        white_to_move = (point["ply"] % 2 == 0) == white_starts
        cps.append(
            judgement.white_centipawns(
                judgement.Eval(cp=point["cp"], mate=point["mate"]), white_to_move=white_to_move
            )
        )
    if game.start_fen == rules.STARTING_FEN and cps:
        cps[0] = judgement.CP_INITIAL  # lichess's start: Cp.initial, whatever the search said
    accuracy = judgement.game_accuracy(cps, white_moves_first=white_starts)
    if accuracy is None:
        return None
    return {rules.WHITE: round(accuracy[0]), rules.BLACK: round(accuracy[1])}


def mark_counts(points: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    counts = {colour: dict.fromkeys(MARKS, 0) for colour in (rules.WHITE, rules.BLACK)}
    for point in points:
        if point.get("judgement"):
            counts[point["colour"]][point["judgement"]] += 1
    return counts


def analysis_state(game: Game, analysis: GameAnalysis | None = None) -> dict[str, Any]:
    """The analysis of ``game`` as the page and its JSON show it. ``status`` is None when
    none was asked for; the accuracy is there only when it is done."""
    state: dict[str, Any] = {
        "game_id": game.pk,
        "allowed": not game.is_active,
        "available": engine_available(),
        "status": None,
        "queue_position": None,
        "positions": game.next_move_number,
        "evaluated": 0,
        "engine": "",
        "error": "",
        "points": [],
        "accuracy": None,
        "counts": mark_counts([]),
    }
    if game.is_active:
        return state  # fair play: nothing of the engine while it runs
    if analysis is None:
        analysis = analysis_of(game)
    if analysis is None:
        return state
    points = analysis_points(game, analysis)
    done = analysis.status == Status.DONE and len(points) == analysis.positions
    state.update(
        status=analysis.status,
        queue_position=queue_position(analysis),
        positions=analysis.positions,
        evaluated=len(points),
        engine=analysis.engine,
        error=_("The engine could not finish this analysis: ask again.")
        if analysis.status == Status.FAILED
        else "",
        points=points,
        counts=mark_counts(points),
        accuracy=accuracy_of(game, points) if done else None,
    )
    return state


def pgn_annotations(game: Game) -> list[tuple[str | None, int | None]] | None:
    """For the PGN: after each move, its ``[%eval …]`` comment and its mark's NAG, from a
    done analysis (None without one: a half-done analysis is not exported)."""
    analysis = analysis_of(game)
    if analysis is None or analysis.status != Status.DONE or game.is_active:
        return None
    annotations: list[tuple[str | None, int | None]] = []
    for point in analysis_points(game, analysis)[1:]:
        if point["mate"] == 0:
            comment = None  # the mate is on the board: the result says it
        elif point["mate"] is not None:
            comment = f"[%eval #{point['mate']}]"
        else:
            comment = f"[%eval {point['cp'] / 100:.2f}]"
        nag = next((j.nag for j in judgement.Judgement if j.code == point["judgement"]), None)
        annotations.append((comment, nag))
    return annotations


# --------------------------------------------------------------------------- the analysis board


def position_evaluation_state(evaluation: PositionEvaluation | None) -> dict[str, Any]:
    """A position of the analysis board as its script shows it."""
    if evaluation is None:
        return {"status": None}
    state: dict[str, Any] = {"status": evaluation.status, "position": evaluation.position}
    if evaluation.status == PositionEvaluation.Status.DONE:
        white_to_move = evaluation.position.split(" ")[1] == "w"
        fen = evaluation.position + " 0 1"
        state.update(
            cp=evaluation.cp,
            mate=evaluation.mate,
            label=eval_label(evaluation.cp, evaluation.mate, white_to_move=white_to_move),
            win=round(
                judgement.win_percent(
                    judgement.Eval(cp=evaluation.cp, mate=evaluation.mate),
                    white_to_move=white_to_move,
                ),
                1,
            ),
            best=evaluation.best or None,
            best_san=rules.line_sans(fen, [evaluation.best])[0] if evaluation.best else None,
            depth=evaluation.depth,
            engine=evaluation.engine,
        )
    return state


def position_evaluation(fen: str, player: Player) -> dict[str, Any]:
    """What the engine has said of a position, for ``player``: refused as the asking is
    (:func:`refuse_engine_for`) for a position of a game in progress."""
    try:
        key = rules.position_key(fen)
    except rules.InvalidPositionError as exc:
        raise errors.InvalidPosition() from exc
    refuse_engine_for(key, player)
    return position_evaluation_state(PositionEvaluation.objects.filter(position=key).first())


def board_start(game: Game, *, ply: int | None) -> dict[str, Any]:
    """Where the analysis board opens from a game: its start, its moves (the board's main
    line) and the half-move to show; whether the game is in progress (then the board has
    no engine)."""
    moves = [
        {"uci": uci, "san": san} for uci, san in moves_of(game).values_list("uci", "san")
    ]
    return {
        "fen": game.start_fen,
        "moves": moves,
        "ply": len(moves) if ply is None else min(ply, len(moves)),
        "game": {
            "id": game.pk,
            "public_id": game.public_id,
            "active": game.is_active,
            "white": game.white.username,
            "black": game.black.username,
        },
    }


# --------------------------------------------------------------------------- private notes


def note_of(game: Game, viewer_id: int | None) -> str | None:
    """The viewer's own note on the game ("" when none), or None when they do not play
    it (a watcher has no notes here, and never sees the players')."""
    if viewer_id is None or game.colour_of(viewer_id) is None:
        return None
    note = PrivateNote.objects.filter(game_id=game.pk, player_id=viewer_id).first()
    return note.text if note else ""
