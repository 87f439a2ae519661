"""The engine driver (games.engine) with the real Stockfish at low limits: what it says of
known positions, and how it survives an engine that is killed, hangs or crashes."""

from __future__ import annotations

import os
import signal
from dataclasses import replace
from pathlib import Path

import pytest

from games.engine import Engine, EngineFailed, EngineUnavailable, board_of
from tests.engines import LOW_LIMITS, fake_engine, require_engine, slow_first_start

MATE_IN_ONE = "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1"
# Rook against rook, kings in front: a dead draw.
ROOK_ENDING = "7r/8/4k3/8/8/4K3/8/R7 w - - 0 1"


@pytest.fixture
def engine(stockfish):
    driver = Engine(stockfish, LOW_LIMITS)
    yield driver
    driver.close()


def test_a_mate_in_one_is_seen_with_its_move(engine):
    evaluation = engine.evaluate(MATE_IN_ONE)
    assert (evaluation.mate, evaluation.cp, evaluation.best) == (1, None, "a1a8")


def test_a_drawn_rook_ending_evaluates_near_zero(engine):
    evaluation = engine.evaluate(ROOK_ENDING)
    assert evaluation.mate is None and evaluation.cp is not None
    assert abs(evaluation.cp) <= 30


def test_scores_are_from_whites_side_whoever_is_to_move(engine):
    # Black to move, a queen down: bad for Black, so a large positive score.
    evaluation = engine.evaluate("4k3/8/8/8/8/8/8/3QK3 b - - 0 1")
    assert (evaluation.cp is not None and evaluation.cp > 500) or (evaluation.mate or 0) > 0


def test_a_finished_position_is_judged_without_a_search(engine):
    mated = engine.evaluate(MATE_IN_ONE, ["a1a8"])
    assert (mated.mate, mated.best, mated.depth) == (0, None, 0)
    stalemate = engine.evaluate("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")
    assert (stalemate.cp, stalemate.best) == (0, None)
    assert engine.pid is None  # no engine was needed


def test_the_moves_before_a_position_stay_on_the_board_the_engine_is_sent():
    # python-chess sends the start and the moves of the board's stack ("position fen …
    # moves …"): a repetition is then the engine's to see.
    start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    board = board_of(start, ["g1f3", "g8f6", "f3g1", "f6g8"] * 2)
    assert board.root().fen() == start
    assert len(board.move_stack) == 8 and board.is_repetition(3)


def test_an_engine_killed_between_positions_is_started_again(engine):
    engine.evaluate(ROOK_ENDING)
    first = engine.pid
    assert first is not None
    os.kill(first, signal.SIGKILL)
    evaluation = engine.evaluate(MATE_IN_ONE)
    assert evaluation.mate == 1
    assert engine.pid not in (None, first)
    assert engine.restarts == 1


def test_a_hung_engine_is_killed_and_the_position_asked_again(stockfish):
    # The hang bound stays LOW_LIMITS' own: a healthy search on a loaded machine must not
    # be taken for a hang, and the stopped engine is found out all the same.
    driver = Engine(stockfish, replace(LOW_LIMITS, seconds=0.2))
    try:
        driver.evaluate(ROOK_ENDING)
        stuck = driver.pid
        assert stuck is not None
        os.kill(stuck, signal.SIGSTOP)  # alive, but answers nothing
        evaluation = driver.evaluate(MATE_IN_ONE)
        assert evaluation.mate == 1
        assert driver.pid != stuck
        with pytest.raises(ProcessLookupError):
            os.kill(stuck, 0)  # gone: killed, and reaped
    finally:
        driver.close()


def test_an_engine_slow_to_start_is_killed_and_started_again(stockfish, tmp_path):
    # Start-up has its own bound, not the search's hang bound: a first start that does
    # not finish in it is one failed attempt, and the next start serves the position.
    wrapper = slow_first_start(tmp_path, Path(stockfish))
    driver = Engine(str(wrapper), replace(LOW_LIMITS, hang_seconds=0.5, start_seconds=2.0))
    try:
        evaluation = driver.evaluate(MATE_IN_ONE)
        assert evaluation.mate == 1
        assert driver.restarts >= 1
        slow = int((tmp_path / "first-start" / "pid").read_text())
        assert driver.pid != slow
        assert not running(slow)  # killed, not left loading beside the new one
    finally:
        driver.close()


def test_an_engine_that_never_finishes_starting_is_given_up_after_the_attempts(tmp_path):
    never = tmp_path / "never-starts"
    never.write_text("#!/bin/sh\nexec sleep 3600\n")
    never.chmod(0o755)
    driver = Engine(str(never), replace(LOW_LIMITS, start_seconds=0.5, attempts=2))
    with pytest.raises(EngineFailed, match="UCI handshake"):
        driver.evaluate(ROOK_ENDING)
    assert driver.restarts == 2


def running(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie is not: it is dead, only not reaped)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rpartition(")")[2].split()[0] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.parametrize("on_go", ["exit", "hang"])
def test_an_engine_that_always_fails_is_given_up_after_the_attempts(tmp_path, on_go):
    driver = Engine(
        str(fake_engine(tmp_path, on_go=on_go)),
        replace(LOW_LIMITS, seconds=0.1, hang_seconds=2.0, attempts=2),
    )
    with pytest.raises(EngineFailed):
        driver.evaluate(ROOK_ENDING)
    assert driver.restarts == 2
    driver.close()


def test_a_missing_engine_is_unavailable(tmp_path):
    with pytest.raises(EngineUnavailable):
        Engine(str(tmp_path / "stockfish"), LOW_LIMITS).evaluate(ROOK_ENDING)


def test_a_program_that_is_no_engine_is_unavailable(tmp_path):
    with pytest.raises(EngineUnavailable):
        Engine("/bin/true", replace(LOW_LIMITS, hang_seconds=1)).evaluate(ROOK_ENDING)


def test_every_thread_of_the_engine_runs_at_the_lowest_priority(stockfish):
    driver = Engine(stockfish, replace(LOW_LIMITS, nice=7, idle_class=True, threads=2))
    try:
        driver.evaluate(ROOK_ENDING)
        assert driver.pid is not None
        threads = [int(tid) for tid in os.listdir(f"/proc/{driver.pid}/task")]
        assert len(threads) >= 3  # the UCI loop and the two search threads
        ours = os.getpriority(os.PRIO_PROCESS, 0)
        for tid in threads:
            assert os.getpriority(os.PRIO_PROCESS, tid) - ours == 7
            assert os.sched_getscheduler(tid) == os.SCHED_IDLE
    finally:
        driver.close()


def test_an_illegal_move_before_the_position_is_refused(engine):
    with pytest.raises(ValueError):
        engine.evaluate(ROOK_ENDING, ["e1e8"])


def test_without_stockfish_the_tests_skip_and_in_ci_they_fail(tmp_path):
    with pytest.raises(pytest.skip.Exception, match="not installed"):
        require_engine(tmp_path / "stockfish", {})
    with pytest.raises(pytest.fail.Exception, match="CI is set"):
        require_engine(tmp_path / "stockfish", {"CI": "true"})
