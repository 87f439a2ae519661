"""The chess engine: Stockfish, a process apart, spoken to in UCI through python-chess's
``chess.engine`` (``SimpleEngine.popen_uci``, ``analyse`` with a ``Limit``).

No database and no Django: the background worker (:mod:`games.analysis_tasks`) holds an
:class:`Engine` and asks it for one position at a time. An engine that crashes, is killed
or stops answering is not trusted again: its process is killed, a new one started, and the
position asked again, up to ``attempts`` times, after which :class:`EngineFailed` is raised
and the caller keeps nothing of that position. The engine runs at the lowest CPU priority
(every thread niced, and in Linux's idle scheduling class), so that on a small machine the
service's own work comes first and the analysis has what is left.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import threading
from collections.abc import Sequence
from concurrent.futures import TimeoutError as FutureTimeoutError
from dataclasses import dataclass
from typing import Any

import chess
import chess.engine

logger = logging.getLogger("ajedrez.engine")


class EngineUnavailable(Exception):
    """The engine cannot be started: no such program, or not a UCI engine."""


class EngineSlowToStart(EngineUnavailable):
    """The engine program ran but did not finish starting within ``start_seconds``: worth
    another attempt, unlike a program that is missing or speaks no UCI."""


class EngineFailed(Exception):
    """The engine failed on a position every time it was asked (crashed or hung)."""


@dataclass(frozen=True)
class Limits:
    """How far each position is searched, and how the engine is run.

    ``nodes`` and ``depth`` (None: no such limit) stop the search, whichever comes first,
    and ``seconds`` always does; a search that has not ended ``hang_seconds`` after that
    counts as hung. Starting the engine (its UCI handshake, options and first ``isready``)
    gets ``start_seconds``: it loads its network and allocates its hash, which a loaded
    machine can make slow, so it is not held to the bound of a search."""

    nodes: int | None = 250_000
    depth: int | None = None
    seconds: float = 1.5
    threads: int = 1
    hash_mb: int = 32
    nice: int = 19
    idle_class: bool = True
    hang_seconds: float = 10.0
    start_seconds: float = 60.0
    attempts: int = 3

    def search(self) -> chess.engine.Limit:
        return chess.engine.Limit(nodes=self.nodes, depth=self.depth, time=self.seconds)


@dataclass(frozen=True)
class Evaluation:
    """One position as the engine sees it, from White's point of view: centipawns or moves
    to mate (``mate == 0``: the side to move is checkmated on the board), the move it
    prefers (UCI; None when there is no move) and how deep it looked (0: no search, the
    board alone decided)."""

    cp: int | None
    mate: int | None
    best: str | None
    depth: int

    def as_dict(self) -> dict[str, Any]:
        return {"cp": self.cp, "mate": self.mate, "best": self.best, "depth": self.depth}


def board_of(fen: str, moves: Sequence[str] = ()) -> chess.Board:
    """The board at ``fen`` with ``moves`` (UCI) played: the engine then hears the moves
    too, and sees a repetition coming. Raises ValueError for a FEN or move that is not."""
    board = chess.Board(fen)
    for uci in moves:
        move = chess.Move.from_uci(uci)
        if not board.is_legal(move):
            raise ValueError(f"illegal move {uci} in {board.fen()}")
        board.push(move)
    return board


def final_evaluation(board: chess.Board) -> Evaluation | None:
    """The evaluation of a position the rules have already decided (mate, stalemate, no
    material to mate, the 75-move or fivefold rule); None when there is a game to search."""
    if board.is_checkmate():
        return Evaluation(cp=None, mate=0, best=None, depth=0)
    if board.is_game_over(claim_draw=False):
        return Evaluation(cp=0, mate=None, best=None, depth=0)
    return None


def evaluation_of(info: chess.engine.InfoDict) -> Evaluation:
    """What an ``analyse`` answer says, from White's point of view."""
    score = info["score"].white()
    pv = info.get("pv") or []
    return Evaluation(
        cp=score.score(),
        mate=score.mate(),
        best=pv[0].uci() if pv else None,
        depth=int(info.get("depth", 0)),
    )


def _kill_process(pid: int) -> None:
    """A search past its bound: the process is killed, and python-chess then ends the
    search with :class:`chess.engine.EngineTerminatedError` as for any crash."""
    logger.warning("engine pid %s hung: killed", pid)
    with contextlib.suppress(OSError, ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


class Engine:
    """One engine process, started when first needed and again after each failure.

    Not for two threads at once: each worker thread holds its own."""

    def __init__(self, path: str, limits: Limits) -> None:
        self.path = path
        self.limits = limits
        self._engine: chess.engine.SimpleEngine | None = None
        self.name = ""
        self.restarts = 0

    @property
    def pid(self) -> int | None:
        """The running engine process's id (None before it starts)."""
        return None if self._engine is None else self._engine.transport.get_pid()

    def start(self) -> None:
        if self._engine is not None:
            return
        if not os.access(self.path, os.X_OK):
            raise EngineUnavailable(f"no engine at {self.path}")
        try:
            engine = chess.engine.SimpleEngine.popen_uci(
                self.path, timeout=self.limits.start_seconds
            )
        except (TimeoutError, FutureTimeoutError) as exc:
            raise EngineSlowToStart(
                f"{self.path} did not answer the UCI handshake within "
                f"{self.limits.start_seconds:g} s"
            ) from exc
        except (OSError, chess.engine.EngineError) as exc:
            raise EngineUnavailable(f"{self.path} did not start as a UCI engine: {exc!r}") from exc
        self._engine = engine
        pid = engine.transport.get_pid()
        # Lowered before the options are set: Stockfish makes its search threads anew
        # when told how many, and a new thread takes its maker's priority.
        self._lower_priority(pid)
        try:
            wanted = {"Threads": self.limits.threads, "Hash": self.limits.hash_mb}
            # Only the options it has: a UCI engine need not have either.
            engine.configure({k: v for k, v in wanted.items() if k in engine.options})
            engine.ping()  # the options applied, the threads made
        except (TimeoutError, FutureTimeoutError) as exc:
            self._kill()
            raise EngineSlowToStart(
                f"{self.path} did not apply its options within {self.limits.start_seconds:g} s"
            ) from exc
        except Exception:
            self._kill()
            raise
        # From here on a search is held to the hang bound by a watchdog that kills the
        # process (evaluate), not by python-chess's own time-out: that one cancels the
        # search's task, and the kill after it then fails inside python-chess
        # (InvalidStateError), leaving its thread waiting for ever for an exit code.
        engine.timeout = None
        self._lower_priority(pid)
        self.name = engine.id.get("name", os.path.basename(self.path))
        logger.info("engine %s started (pid %s)", self.name, pid)

    def _lower_priority(self, pid: int) -> None:
        """Put every thread of the engine process below the service's own work: a niceness
        of ``nice`` and, with ``idle_class``, Linux's idle scheduling class (it runs only
        on CPU time nothing else wants). On Linux both are per thread."""
        try:
            threads = [int(tid) for tid in os.listdir(f"/proc/{pid}/task")]
        except OSError:
            threads = [pid]
        for tid in threads:
            with contextlib.suppress(OSError, AttributeError):
                if self.limits.nice:
                    os.setpriority(os.PRIO_PROCESS, tid, self.limits.nice)
                if self.limits.idle_class:
                    os.sched_setscheduler(tid, os.SCHED_IDLE, os.sched_param(0))

    def evaluate(self, fen: str, moves: Sequence[str] = ()) -> Evaluation:
        """The position at ``fen`` after ``moves``, searched within the limits.

        A crash, a kill or a hang costs the engine process, not the answer: it is started
        again and asked again, ``attempts`` times in all, then :class:`EngineFailed`."""
        board = board_of(fen, moves)
        decided = final_evaluation(board)
        if decided is not None:
            return decided
        failure: BaseException | None = None
        for attempt in range(1, self.limits.attempts + 1):
            try:
                self.start()
            except EngineUnavailable as exc:
                if not self.name and not isinstance(exc, EngineSlowToStart):
                    raise  # it never ran: a wrong path or program, not a failure to retry
                logger.warning(
                    "engine %s did not start (attempt %d of %d): %s",
                    self.name or self.path, attempt, self.limits.attempts, exc,
                )
                failure = exc
                self.restarts += 1
                continue
            assert self._engine is not None
            watchdog = threading.Timer(
                self.limits.seconds + self.limits.hang_seconds,
                _kill_process,
                args=(self._engine.transport.get_pid(),),
            )
            watchdog.daemon = True
            watchdog.start()
            try:
                info = self._engine.analyse(board, self.limits.search())
                return evaluation_of(info)
            except (
                chess.engine.EngineTerminatedError,
                chess.engine.EngineError,
                TimeoutError,
                FutureTimeoutError,
                KeyError,  # an answer without a score: not an engine to trust
            ) as exc:
                failure = exc
                logger.warning(
                    "engine %s failed on %s (attempt %d of %d): %r; restarting it",
                    self.name or self.path, board.fen(), attempt, self.limits.attempts, exc,
                )
                self._kill()
                self.restarts += 1
            finally:
                watchdog.cancel()
        raise EngineFailed(f"gave up on {board.fen()}: {failure!r}") from failure

    def _kill(self) -> None:
        engine, self._engine = self._engine, None
        if engine is None:
            return
        pid = engine.transport.get_pid()
        # A hung engine may not read "quit": it is killed, whatever state it is in.
        with contextlib.suppress(OSError, ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        engine.close()

    def close(self) -> None:
        """Stop the engine process (a new one starts if the engine is asked again)."""
        engine, self._engine = self._engine, None
        if engine is None:
            return
        try:
            engine.quit()
        except Exception:
            with contextlib.suppress(OSError, ProcessLookupError):
                os.kill(engine.transport.get_pid(), signal.SIGKILL)
        finally:
            engine.close()
