"""A finished game's computer analysis, from the request to the marks, with the real
Stockfish at low limits: the service (games.services.analysis), the worker's slices
(games.analysis_tasks) and what the read model shows (games.state.analysis)."""

from __future__ import annotations

import io
import os
import signal
from collections.abc import Iterator

import chess.pgn
import pytest

from ajedrez.task_worker import WorkerThread
from games import analysis_tasks, errors, services
from games.analysis_tasks import close_thread_engine, run_analysis_slice
from games.engine import Engine
from games.models import GameAnalysis
from games.state import analysis as analysis_state
from games.state import game_pgn
from tests.engines import LOW_LIMITS, fake_engine

# Real commits: the analysis is queued after the commit, as in production.
pytestmark = pytest.mark.django_db(transaction=True)

# 1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6?? and White, with Qxf7# on the board, plays 4. d3.
MISSED_MATE = ["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "d3", "Nxh5"]
ROOK_ENDING = "7r/8/4k3/8/8/4K3/8/R7 w - - 0 1"


@pytest.fixture
def engine_settings(settings, stockfish):
    settings.STOCKFISH_PATH = stockfish
    settings.ENGINE_NODES = LOW_LIMITS.nodes
    settings.ENGINE_SECONDS = LOW_LIMITS.seconds
    settings.ENGINE_HASH_MB = LOW_LIMITS.hash_mb
    settings.ENGINE_NICE = 0
    settings.ENGINE_IDLE_CLASS = False
    settings.ENGINE_HANG_SECONDS = LOW_LIMITS.hang_seconds
    settings.ANALYSIS_SLICE_SECONDS = 60
    yield settings
    close_thread_engine()


@pytest.fixture
def engine(stockfish) -> Iterator[Engine]:
    driver = Engine(stockfish, LOW_LIMITS)
    yield driver
    driver.close()


@pytest.fixture
def missed_mate(game, play):
    """A finished game in which White missed a mate in one (then resigned)."""
    game = play(game, *MISSED_MATE)
    return services.resign(game_id=game.pk, player=game.white)


def run_the_queue() -> None:
    """What the analysis worker of ``manage.py serve`` does: run the engine's queue."""
    WorkerThread(interval=1, analysis=True).worker.look_and_run()


def test_a_missed_mate_in_one_is_a_blunder(engine_settings, missed_mate, carol):
    analysis = services.request_analysis(game_id=missed_mate.pk, player=carol)
    assert analysis.status == "queued"
    run_the_queue()
    shown = analysis_state.analysis_state(missed_mate)
    assert shown["status"] == "done"
    assert shown["evaluated"] == shown["positions"] == len(MISSED_MATE) + 1
    before, missed = shown["points"][6], shown["points"][7]
    assert (before["mate"], before["best_san"]) == (1, "Qxf7#")
    assert (missed["san"], missed["judgement"], missed["glyph"]) == ("d3", "blunder", "??")
    assert missed["better_san"] == "Qxf7#"
    assert shown["counts"]["white"]["blunder"] >= 1
    assert set(shown["accuracy"]) == {"white", "black"}
    assert shown["accuracy"]["white"] < shown["accuracy"]["black"]


def test_a_drawn_ending_evaluates_near_zero_throughout(engine_settings, alice, bob, carol):
    game = services.start_gateway_game(white=alice, black=bob, initial_fen=ROOK_ENDING)
    for player, move in ((alice, "Ra2"), (bob, "Rh7"), (alice, "Ra1")):
        game = services.make_move(
            game_id=game.pk, player=player, move_number=game.next_move_number, move=move
        )
    services.offer_draw(game_id=game.pk, player=bob)
    game = services.answer_draw(game_id=game.pk, player=alice, accept=True)
    services.request_analysis(game_id=game.pk, player=carol)
    run_the_queue()
    shown = analysis_state.analysis_state(game)
    assert shown["status"] == "done"
    assert all(abs(point["cp"]) <= 30 for point in shown["points"]), shown["points"]
    assert all(point["judgement"] is None for point in shown["points"])


def test_an_engine_killed_mid_way_is_restarted_and_the_analysis_completes(
    engine_settings, missed_mate, carol, engine
):
    analysis = services.request_analysis(game_id=missed_mate.pk, player=carol)
    killed: list[int] = []

    def kill_once(ply: int) -> None:
        if ply == 3 and not killed:
            assert engine.pid is not None
            killed.append(engine.pid)
            os.kill(engine.pid, signal.SIGKILL)

    assert run_analysis_slice(analysis.pk, engine=engine, on_position=kill_once) == "done"
    assert killed and engine.restarts == 1
    analysis.refresh_from_db()
    assert analysis.status == "done" and len(analysis.evaluations) == analysis.positions
    assert analysis.engine.startswith("Stockfish")


def test_a_half_finished_analysis_is_never_shown_as_done(engine_settings, missed_mate, carol):
    analysis = services.request_analysis(game_id=missed_mate.pk, player=carol)
    said = run_analysis_slice(analysis.pk, slice_seconds=0)
    assert said.endswith("the rest is queued")
    shown = analysis_state.analysis_state(missed_mate)
    assert shown["status"] == "running"
    assert 0 < shown["evaluated"] < shown["positions"]
    assert shown["accuracy"] is None
    assert "%eval" not in game_pgn(missed_mate)
    assert services.finish_analysis(analysis.pk) is False  # incomplete: refused
    run_the_queue()  # the next slices, queued by the first
    assert analysis_state.analysis_state(missed_mate)["status"] == "done"


def test_a_slice_interrupted_mid_way_goes_on_from_the_last_stored_position(
    engine_settings, missed_mate, carol, engine, monkeypatch
):
    """A worker that dies in a slice: the slice runs again (requeue_stale_tasks) and
    starts where the stored progress ends."""
    monkeypatch.setattr(analysis_tasks, "PROGRESS_SECONDS", 0)
    analysis = services.request_analysis(game_id=missed_mate.pk, player=carol)

    def die(ply: int) -> None:
        if ply == 4:
            raise SystemExit("the worker process dies")

    with pytest.raises(SystemExit):
        run_analysis_slice(analysis.pk, engine=engine, on_position=die)
    analysis.refresh_from_db()
    assert analysis.status == "running" and len(analysis.evaluations) == 4
    seen: list[int] = []
    assert run_analysis_slice(analysis.pk, engine=engine, on_position=seen.append) == "done"
    assert seen[0] == 4
    analysis.refresh_from_db()
    assert analysis.status == "done" and len(analysis.evaluations) == analysis.positions


def test_an_engine_that_gives_up_fails_the_analysis_and_asking_again_resumes(
    engine_settings, missed_mate, carol, tmp_path, stockfish
):
    engine_settings.STOCKFISH_PATH = str(fake_engine(tmp_path, on_go="exit"))
    engine_settings.ENGINE_ATTEMPTS = 2
    engine_settings.ENGINE_HANG_SECONDS = 5
    analysis = services.request_analysis(game_id=missed_mate.pk, player=carol)
    run_the_queue()
    analysis.refresh_from_db()
    assert analysis.status == "failed" and analysis.finished_at is None
    shown = analysis_state.analysis_state(missed_mate)
    assert shown["status"] == "failed" and shown["error"] and shown["accuracy"] is None
    # The engine is back: asking again queues it, and it completes.
    engine_settings.STOCKFISH_PATH = stockfish
    again = services.request_analysis(game_id=missed_mate.pk, player=carol)
    assert (again.pk, again.status) == (analysis.pk, "queued")
    run_the_queue()
    assert analysis_state.analysis_state(missed_mate)["status"] == "done"


def test_asking_for_a_game_in_progress_is_refused(engine_settings, game, alice, carol):
    for player in (alice, carol):
        with pytest.raises(errors.EngineNotAllowed):
            services.request_analysis(game_id=game.pk, player=player)
    assert not GameAnalysis.objects.exists()
    assert analysis_state.analysis_state(game)["allowed"] is False


def test_asking_again_finds_the_same_analysis_and_counts_nothing(
    engine_settings, missed_mate, carol
):
    engine_settings.ANALYSIS_REQUESTS_PER_WINDOW = 1
    first = services.request_analysis(game_id=missed_mate.pk, player=carol)
    again = services.request_analysis(game_id=missed_mate.pk, player=carol)
    assert first.pk == again.pk and GameAnalysis.objects.count() == 1


def test_analyses_are_rate_limited_per_player(engine_settings, alice, bob, carol, start_game):
    engine_settings.ANALYSIS_REQUESTS_PER_WINDOW = 2
    finished = []
    for opponent in (bob, carol, bob):
        game = start_game(alice, opponent)
        finished.append(services.resign(game_id=game.pk, player=alice))
    services.request_analysis(game_id=finished[0].pk, player=alice)
    services.request_analysis(game_id=finished[1].pk, player=alice)
    with pytest.raises(errors.AnalysisRateLimited) as refused:
        services.request_analysis(game_id=finished[2].pk, player=alice)
    assert refused.value.details["retry_after"] > 0
    # Another player's allowance is their own.
    services.request_analysis(game_id=finished[2].pk, player=bob)


def test_without_the_engine_the_analysis_is_unavailable(settings, missed_mate, carol, tmp_path):
    settings.STOCKFISH_PATH = str(tmp_path / "stockfish")
    with pytest.raises(errors.EngineUnavailable):
        services.request_analysis(game_id=missed_mate.pk, player=carol)
    assert analysis_state.analysis_state(missed_mate)["available"] is False


def test_a_missing_game_is_not_found(engine_settings, carol):
    with pytest.raises(errors.GameNotFound):
        services.request_analysis(game_id=999_999, player=carol)


def test_the_queue_position_counts_the_analyses_asked_before(
    engine_settings, alice, bob, carol, start_game
):
    games = [services.resign(game_id=start_game(alice, p).pk, player=alice) for p in (bob, carol)]
    first = services.request_analysis(game_id=games[0].pk, player=alice)
    second = services.request_analysis(game_id=games[1].pk, player=alice)
    assert analysis_state.queue_position(first) == 0
    assert analysis_state.queue_position(second) == 1
    assert analysis_state.analysis_state(games[1])["queue_position"] == 1


def test_the_pgn_carries_the_evaluations_and_the_marks_once_done(
    engine_settings, missed_mate, carol
):
    services.request_analysis(game_id=missed_mate.pk, player=carol)
    run_the_queue()
    text = game_pgn(missed_mate)
    read = chess.pgn.read_game(io.StringIO(text))
    assert read is not None
    nodes = list(read.mainline())
    assert all(node.eval() is not None for node in nodes[:-1])
    assert nodes[5].eval().white().mate() == 1  # after 3... Nf6: White mates in one
    assert 4 in nodes[6].nags  # 4. d3??
    assert "$4" in text
