"""The engine's work, asked for and recorded: a finished game's analysis, a position of
the analysis board. Fair play first: no door gets the engine's help with a game in
progress (:func:`games.state.analysis.refuse_engine_for`).

The engine itself runs in the background worker (:mod:`games.analysis_tasks`), which
these functions wake after the commit (:data:`games.signals.analysis_requested`,
:data:`games.signals.position_evaluation_requested`) and which records its results
through them. An analysis is marked done only here, and only when every position of the
game has its evaluation: a half-finished one never reads as done.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from accounts.throttling import count_request
from accounts.types import Player
from games import errors, rules
from games.models import Game, GameAnalysis, PositionEvaluation
from games.signals import analysis_requested, position_evaluation_requested
from games.state.analysis import refuse_engine_for

Status = GameAnalysis.Status


def _require_engine() -> None:
    if not os.access(settings.STOCKFISH_PATH, os.X_OK):
        raise errors.EngineUnavailable()


def _count(scope: str, player: Player, *, limit: int, window: float) -> None:
    allowance = count_request(scope, str(player.pk), limit=limit, window=window)
    if not allowance.allowed:
        raise errors.AnalysisRateLimited(retry_after=allowance.retry_after)


def request_analysis(*, game_id: int, player: Player) -> GameAnalysis:
    """Ask for the computer analysis of a finished game that ``player`` may see (anyone
    logged in may see any game). The analysis already asked for is returned as it stands
    (waiting, running or done); a new one, or one that failed, is queued, counted against
    the player's ``ANALYSIS_REQUESTS_PER_WINDOW``."""
    game = Game.objects.filter(pk=game_id).only("pk", "status", "next_move_number").first()
    if game is None:
        raise errors.GameNotFound()
    if game.is_active:
        raise errors.EngineNotAllowed()
    existing = GameAnalysis.objects.filter(game_id=game_id).first()
    if existing is not None and existing.status != Status.FAILED:
        return existing
    _require_engine()
    _count(
        "analysis", player,
        limit=settings.ANALYSIS_REQUESTS_PER_WINDOW, window=settings.ANALYSIS_WINDOW_SECONDS,
    )
    with transaction.atomic():
        locked = Game.objects.select_for_update().filter(pk=game_id).first()
        if locked is None:
            raise errors.GameNotFound()
        if locked.is_active:  # cannot happen to a finished game, but checked under the lock
            raise errors.EngineNotAllowed()
        analysis, created = GameAnalysis.objects.select_for_update().get_or_create(
            game=locked,
            defaults={"requested_by": player, "positions": locked.next_move_number},
        )
        if not created and analysis.status == Status.FAILED:
            # Again from where it stopped: the positions evaluated so far are kept.
            analysis.status = Status.QUEUED
            analysis.requested_at = timezone.now()
            analysis.requested_by = player
            analysis.error = ""
            analysis.save(update_fields=["status", "requested_at", "requested_by", "error"])
            created = True
        if created:
            queued = analysis
            transaction.on_commit(
                lambda: analysis_requested.send(sender=GameAnalysis, analysis=queued)
            )
    return analysis


def claim_analysis(analysis_id: int) -> GameAnalysis | None:
    """The worker takes an analysis to run (a slice of it): marked running, returned with
    the evaluations made so far. None when there is nothing to run (done, failed, gone)."""
    with transaction.atomic():
        analysis = (
            GameAnalysis.objects.select_for_update().filter(pk=analysis_id).first()
        )
        if analysis is None or analysis.status not in (Status.QUEUED, Status.RUNNING):
            return None
        if analysis.status == Status.QUEUED:
            analysis.status = Status.RUNNING
            analysis.started_at = analysis.started_at or timezone.now()
            analysis.save(update_fields=["status", "started_at"])
    return analysis


def record_evaluations(
    analysis_id: int, *, start: int, evaluations: Sequence[dict[str, Any]], engine: str
) -> bool:
    """Store the evaluations of the positions from ``start`` on. Those stored from there
    are replaced (a slice run again after a crash writes the same positions again), and
    nothing is stored unless the analysis is running and has the positions before
    ``start``. Returns whether they were stored."""
    with transaction.atomic():
        analysis = GameAnalysis.objects.select_for_update().filter(pk=analysis_id).first()
        if analysis is None or analysis.status != Status.RUNNING:
            return False
        stored = list(analysis.evaluations)
        if len(stored) < start or start + len(evaluations) > analysis.positions:
            return False
        analysis.evaluations = stored[:start] + list(evaluations)
        analysis.engine = engine[:80]
        analysis.save(update_fields=["evaluations", "engine"])
    return True


def finish_analysis(analysis_id: int) -> bool:
    """Mark a running analysis done, if every position has its evaluation; returns
    whether it is done."""
    with transaction.atomic():
        analysis = GameAnalysis.objects.select_for_update().filter(pk=analysis_id).first()
        if analysis is None:
            return False
        if analysis.status == Status.DONE:
            return True
        if analysis.status != Status.RUNNING or not analysis.is_complete:
            return False
        analysis.status = Status.DONE
        analysis.finished_at = timezone.now()
        analysis.save(update_fields=["status", "finished_at"])
    return True


def fail_analysis(analysis_id: int, *, reason: str) -> None:
    """The engine gave up: the analysis is failed (its evaluations so far are kept for
    when it is asked again, and never shown as a finished analysis)."""
    with transaction.atomic():
        analysis = GameAnalysis.objects.select_for_update().filter(pk=analysis_id).first()
        if analysis is None or analysis.status == Status.DONE:
            return
        analysis.status = Status.FAILED
        analysis.error = reason[:300]
        analysis.finished_at = None
        analysis.save(update_fields=["status", "error", "finished_at"])


def request_position_evaluation(*, fen: str, player: Player) -> PositionEvaluation:
    """Ask the engine about one position of the analysis board. Refused for the position
    of a game in progress (and, for its players, the positions one move from it); a
    position already evaluated or waiting is returned as it is, a new one is queued,
    counted against ``POSITION_EVALUATIONS_PER_WINDOW``."""
    try:
        key = rules.position_key(fen)
    except rules.InvalidPositionError as exc:
        raise errors.InvalidPosition() from exc
    refuse_engine_for(key, player)
    existing = PositionEvaluation.objects.filter(position=key).first()
    if existing is not None and existing.status != PositionEvaluation.Status.FAILED:
        return existing
    _require_engine()
    _count(
        "position-evaluation", player,
        limit=settings.POSITION_EVALUATIONS_PER_WINDOW,
        window=settings.POSITION_EVALUATION_WINDOW_SECONDS,
    )
    with transaction.atomic():
        evaluation, created = PositionEvaluation.objects.select_for_update().get_or_create(
            position=key
        )
        if not created and evaluation.status == PositionEvaluation.Status.FAILED:
            evaluation.status = PositionEvaluation.Status.QUEUED
            evaluation.requested_at = timezone.now()
            evaluation.save(update_fields=["status", "requested_at"])
            created = True
        if created:
            queued = evaluation
            transaction.on_commit(
                lambda: position_evaluation_requested.send(
                    sender=PositionEvaluation, evaluation=queued
                )
            )
    return evaluation


def record_position_evaluation(
    evaluation_id: int, *, result: dict[str, Any] | None, engine: str = ""
) -> None:
    """Store what the engine said of a position (``result``: cp, mate, best, depth), or,
    with ``result`` None, that it could not say."""
    with transaction.atomic():
        evaluation = (
            PositionEvaluation.objects.select_for_update().filter(pk=evaluation_id).first()
        )
        if evaluation is None:
            return
        if result is None:
            evaluation.status = PositionEvaluation.Status.FAILED
            evaluation.save(update_fields=["status"])
            return
        evaluation.status = PositionEvaluation.Status.DONE
        evaluation.cp = result["cp"]
        evaluation.mate = result["mate"]
        evaluation.best = result["best"] or ""
        evaluation.depth = result["depth"]
        evaluation.engine = engine[:80]
        evaluation.evaluated_at = timezone.now()
        evaluation.save()
