"""The engine's work in the background: the ``analysis`` queue of django-tasks, run by a
worker thread of ``manage.py serve`` (or ``manage.py db_worker --queue-name analysis``),
never by a request.

A game's analysis runs in slices (:func:`run_analysis_slice`): from the first position not
yet evaluated, for at most ``ANALYSIS_SLICE_SECONDS``, storing its progress as it goes
(about once a second, so that the page's graph fills in), then queued again to go on. In
between, the positions asked for on the analysis board, queued ahead of the slices, get
their turn. The next slice of a running analysis comes before analyses not yet started:
one game is finished before the next is begun, as the queue's order tells the players.

Each worker thread keeps one engine process (:class:`games.engine.Engine`), which restarts
by itself after a crash or a hang. When the engine gives up on a position (it failed
``ENGINE_ATTEMPTS`` times) the analysis is marked failed, keeping what it had: asked again,
it goes on from there. A worker that dies in the middle of a slice leaves its task running;
``manage.py requeue_stale_tasks`` puts it back, and the slice runs again from the last
position stored. Nothing but :func:`games.services.finish_analysis` marks an analysis done,
and only a complete one.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django_tasks import task

from games import selectors, services
from games.engine import Engine, EngineFailed, EngineUnavailable, Limits
from games.models import GameAnalysis, PositionEvaluation

logger = logging.getLogger("ajedrez.analysis")

# The queue's order (django-tasks runs the highest priority first): a position of the
# analysis board, then the next slice of the analysis under way, then new analyses.
POSITION_PRIORITY = 20
NEXT_SLICE_PRIORITY = 10
NEW_ANALYSIS_PRIORITY = 0
# How often a slice stores its progress, in seconds: often enough for a live graph, far
# from a write per position.
PROGRESS_SECONDS = 1.0


@task(queue_name="analysis", priority=NEW_ANALYSIS_PRIORITY)
def analyse_game(analysis_id: int) -> str:
    """One slice of a game's analysis (:func:`run_analysis_slice`)."""
    return run_analysis_slice(analysis_id)


@task(queue_name="analysis", priority=POSITION_PRIORITY)
def evaluate_position(evaluation_id: int) -> str:
    """One position of the analysis board."""
    return run_position_evaluation(evaluation_id)


def limits_from_settings() -> Limits:
    return Limits(
        nodes=settings.ENGINE_NODES or None,
        depth=settings.ENGINE_DEPTH or None,
        seconds=settings.ENGINE_SECONDS,
        threads=settings.ENGINE_THREADS,
        hash_mb=settings.ENGINE_HASH_MB,
        nice=settings.ENGINE_NICE,
        idle_class=settings.ENGINE_IDLE_CLASS,
        hang_seconds=settings.ENGINE_HANG_SECONDS,
        start_seconds=settings.ENGINE_START_SECONDS,
        attempts=settings.ENGINE_ATTEMPTS,
    )


_local = threading.local()


def thread_engine() -> Engine:
    """This thread's engine, started when first used; a new one when the settings have
    changed (a test, a reconfigured deployment)."""
    engine: Engine | None = getattr(_local, "engine", None)
    path, limits = settings.STOCKFISH_PATH, limits_from_settings()
    if engine is None or engine.path != path or engine.limits != limits:
        if engine is not None:
            engine.close()
        engine = _local.engine = Engine(path, limits)
    return engine


def close_thread_engine() -> None:
    """Stop this thread's engine process, if it has one (a worker thread that stops)."""
    engine: Engine | None = getattr(_local, "engine", None)
    if engine is not None:
        engine.close()
        _local.engine = None


def queue_analysis(sender: Any, analysis: GameAnalysis, **kwargs: Any) -> None:
    """Receiver of ``analysis_requested`` (after the commit): queue its first slice. A
    queue that cannot be written is logged; the analysis stays queued, and asking for it
    again queues it (see :func:`games.services.request_analysis`)."""
    try:
        analyse_game.enqueue(analysis.pk)
    except Exception:
        logger.exception("could not queue the analysis %s", analysis.pk)


def queue_position(sender: Any, evaluation: PositionEvaluation, **kwargs: Any) -> None:
    """Receiver of ``position_evaluation_requested`` (after the commit)."""
    try:
        evaluate_position.enqueue(evaluation.pk)
    except Exception:
        logger.exception("could not queue the position evaluation %s", evaluation.pk)


def run_analysis_slice(
    analysis_id: int,
    *,
    engine: Engine | None = None,
    slice_seconds: float | None = None,
    on_position: Callable[[int], None] | None = None,
) -> str:
    """Evaluate the next positions of an analysis for at most ``slice_seconds``, storing
    them as it goes; then queue the next slice, or mark the analysis done. Says what was
    done. ``on_position(ply)`` is called after each position (the tests' way in)."""
    analysis = services.claim_analysis(analysis_id)
    if analysis is None:
        return "skipped: nothing to run (done, failed or gone)"
    engine = engine or thread_engine()
    budget = settings.ANALYSIS_SLICE_SECONDS if slice_seconds is None else slice_seconds
    game = selectors.game(analysis.game_id)
    ucis = list(
        selectors.moves(game.pk, until=analysis.positions - 1).values_list("uci", flat=True)
    )
    stored = len(analysis.evaluations)
    pending: list[dict[str, Any]] = []
    started = last_save = time.monotonic()

    def save() -> bool:
        nonlocal stored, pending, last_save
        if not pending:
            return True
        kept = services.record_evaluations(
            analysis_id, start=stored, evaluations=pending, engine=engine.name
        )
        stored += len(pending)
        pending = []
        last_save = time.monotonic()
        return kept

    try:
        for ply in range(stored, analysis.positions):
            pending.append(engine.evaluate(game.start_fen, ucis[:ply]).as_dict())
            if on_position is not None:
                on_position(ply)
            now = time.monotonic()
            if now - last_save >= PROGRESS_SECONDS and not save():
                return "stopped: the analysis changed meanwhile"
            if now - started >= budget and ply + 1 < analysis.positions:
                if not save():
                    return "stopped: the analysis changed meanwhile"
                analyse_game.using(priority=NEXT_SLICE_PRIORITY).enqueue(analysis_id)
                return f"{stored} of {analysis.positions} positions; the rest is queued"
    except EngineUnavailable as exc:
        save()
        logger.error("analysis %s: no engine: %s", analysis_id, exc)
        services.fail_analysis(analysis_id, reason=str(exc))
        return f"failed: {exc}"
    except EngineFailed as exc:
        save()
        logger.error("analysis %s: the engine gave up: %s", analysis_id, exc)
        services.fail_analysis(analysis_id, reason=str(exc))
        return f"failed: {exc}"
    if not save():
        return "stopped: the analysis changed meanwhile"
    if services.finish_analysis(analysis_id):
        logger.info("analysis %s done (%d positions)", analysis_id, analysis.positions)
        return "done"
    return "stopped: incomplete"


def run_position_evaluation(evaluation_id: int, *, engine: Engine | None = None) -> str:
    evaluation = PositionEvaluation.objects.filter(pk=evaluation_id).first()
    if evaluation is None or evaluation.status != PositionEvaluation.Status.QUEUED:
        return "skipped: nothing to evaluate"
    engine = engine or thread_engine()
    try:
        result = engine.evaluate(evaluation.position + " 0 1")
    except (EngineUnavailable, EngineFailed) as exc:
        logger.error("position %s: %s", evaluation.position, exc)
        services.record_position_evaluation(evaluation_id, result=None)
        return f"failed: {exc}"
    services.record_position_evaluation(
        evaluation_id, result=result.as_dict(), engine=engine.name
    )
    return "done"
