"""The computer analysis at the default limits (ajedrez/settings.py, ENGINE_*): how many
positions a second, how long a 40-move game takes, and what two analyses running at once
do to the players' moves.

Usage (from the project root)::

    python bench/engine_analysis.py [--moves 400] [--metrics FILE]

Needs Debian's Stockfish (``STOCKFISH_PATH``, /usr/games/stockfish by default). The
database is a throwaway SQLite file unless ``DATABASE_URL`` names a scratch database.

1. A 40-move game (80 half-moves), played by the engine against itself at 2,000 nodes a
   move from a few random first moves, is stored through the services, finished, and
   analysed as the worker does it (``run_analysis_slice`` until done): the time, and the
   positions a second that makes.
2. ``--moves`` moves through ``games.services.make_move`` in games in progress, timed one
   by one, first alone, then while two analyses run on two threads (each its own engine
   process, as two workers would), one game after another: p50 and p99 of each, and the
   ratio of the p99s (the goal: at most 2).
"""

from __future__ import annotations

import argparse
import atexit
import json
import os
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SQLITE_FILE = Path(tempfile.gettempdir()) / f"ajedrez-analysis-bench-{os.getpid()}.sqlite3"


def _remove_sqlite_file() -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{SQLITE_FILE}{suffix}").unlink(missing_ok=True)


if not os.environ.get("DATABASE_URL"):
    os.environ["DATABASE_URL"] = f"sqlite:///{SQLITE_FILE}"
    atexit.register(_remove_sqlite_file)
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ajedrez.settings")
os.environ.setdefault("LOG_LEVEL", "WARNING")

import django  # noqa: E402

django.setup()

import chess  # noqa: E402
import chess.engine  # noqa: E402
from django.conf import settings  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connections  # noqa: E402

from games import services  # noqa: E402
from games.analysis_tasks import limits_from_settings, run_analysis_slice  # noqa: E402
from games.engine import Engine  # noqa: E402
from games.models import Game, GameAnalysis  # noqa: E402

User = get_user_model()
rng = random.Random(2026)


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def engine_game(plies: int = 80) -> list[str]:
    """A game of ``plies`` half-moves that does not end before, as UCI moves: six random
    first moves, then the engine against itself at 2,000 nodes a move."""
    with chess.engine.SimpleEngine.popen_uci(settings.STOCKFISH_PATH) as engine:
        while True:
            board = chess.Board()
            for ply in range(plies):
                if ply < 6:
                    move = rng.choice(sorted(board.legal_moves, key=chess.Move.uci))
                else:
                    move = engine.play(board, chess.engine.Limit(nodes=2_000)).move
                assert move is not None
                board.push(move)
                if board.is_game_over(claim_draw=True):
                    break
            if len(board.move_stack) == plies:
                return [move.uci() for move in board.move_stack]


def player(name: str):
    return User.objects.create_user(username=name, password="!")


def finished_game(white, black, ucis: list[str]) -> Game:
    challenge = services.challenge(challenger=black, challenged=white)
    game = services.accept_challenge(challenge_id=challenge.pk, player=white, colour="white")
    for number, uci in enumerate(ucis, start=1):
        mover = white if number % 2 else black
        game = services.make_move(game_id=game.pk, player=mover, move_number=number, move=uci)
    return services.resign(game_id=game.pk, player=black)


def analyse(game: Game, requester, engine: Engine) -> float:
    """Ask for ``game``'s analysis and run it to the end as the worker does; seconds."""
    started = time.perf_counter()
    analysis = services.request_analysis(game_id=game.pk, player=requester)
    while run_analysis_slice(analysis.pk, engine=engine) != "done":
        pass
    return time.perf_counter() - started


def timed_moves(games: list[Game], count: int) -> list[float]:
    """``count`` moves, each a real service call, round the games; milliseconds each."""
    times = []
    while len(times) < count:
        for game in list(games):
            game.refresh_from_db()
            if not game.is_active:
                games.remove(game)
                continue
            board = chess.Board(game.fen)
            quiet = [m for m in board.legal_moves if not board.is_capture(m)]
            move = rng.choice(sorted(quiet or list(board.legal_moves), key=chess.Move.uci))
            mover = game.white if game.colour_to_move == "white" else game.black
            started = time.perf_counter()
            services.make_move(
                game_id=game.pk, player=mover, move_number=game.next_move_number,
                move=move.uci(),
            )
            times.append((time.perf_counter() - started) * 1000)
            if len(times) >= count:
                break
    return times


class AnalysisLoad(threading.Thread):
    """One worker's analyses, one after another, until stopped: its own engine."""

    def __init__(self, game: Game, requester) -> None:
        super().__init__(daemon=True)
        self.game, self.requester = game, requester
        self.running = True
        self.positions = 0

    def run(self) -> None:
        engine = Engine(settings.STOCKFISH_PATH, limits_from_settings())
        try:
            while self.running:
                GameAnalysis.objects.filter(game=self.game).delete()
                analysis = services.request_analysis(game_id=self.game.pk, player=self.requester)
                while self.running and run_analysis_slice(analysis.pk, engine=engine) != "done":
                    pass
                self.positions += analysis.positions
        finally:
            engine.close()
            connections.close_all()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=400)
    parser.add_argument("--metrics", type=Path)
    args = parser.parse_args()
    limits = limits_from_settings()
    print(f"engine {settings.STOCKFISH_PATH}; limits {limits}")
    print(f"database {connections['default'].vendor}; {os.cpu_count()} CPUs")
    call_command("migrate", verbosity=0)
    call_command("flush", interactive=False, verbosity=0)
    # Requests and the engine's queue as a deployment runs them, without the limits a
    # benchmark would trip over.
    settings.ANALYSIS_REQUESTS_PER_WINDOW = 0
    settings.CHALLENGES_PER_WINDOW = settings.CHALLENGES_PER_PAIR_PER_WINDOW = 0

    players = [player(f"p{n:02d}") for n in range(24)]
    ucis = engine_game()
    game = finished_game(players[0], players[1], ucis)
    engine = Engine(settings.STOCKFISH_PATH, limits)
    seconds = analyse(game, players[2], engine)
    engine.close()
    positions = len(ucis) + 1
    rate = positions / seconds
    print(f"40-move game ({positions} positions) analysed in {seconds:.1f} s: "
          f"{rate:.2f} positions/s")

    loads_games = [finished_game(players[3], players[4], ucis),
                   finished_game(players[5], players[6], ucis)]
    playing = []
    for n in range(8, 24, 2):
        challenge = services.challenge(challenger=players[n + 1], challenged=players[n])
        playing.append(
            services.accept_challenge(challenge_id=challenge.pk, player=players[n], colour="white")
        )
    timed_moves(list(playing), 20)  # warm up
    alone = timed_moves(list(playing), args.moves)
    loads = [AnalysisLoad(g, players[7]) for g in loads_games]
    for load in loads:
        load.start()
    time.sleep(2)  # both engines searching
    loaded = timed_moves(list(playing), args.moves)
    for load in loads:
        load.running = False
    for load in loads:
        load.join(60)
    figures = {
        "positions": positions,
        "game_seconds": round(seconds, 2),
        "positions_per_second": round(rate, 2),
        "alone_p50_ms": round(statistics.median(alone), 2),
        "alone_p99_ms": round(percentile(alone, 0.99), 2),
        "loaded_p50_ms": round(statistics.median(loaded), 2),
        "loaded_p99_ms": round(percentile(loaded, 0.99), 2),
    }
    figures["p99_ratio"] = round(figures["loaded_p99_ms"] / figures["alone_p99_ms"], 2)
    print(f"moves alone:              p50 {figures['alone_p50_ms']} ms, "
          f"p99 {figures['alone_p99_ms']} ms ({len(alone)} moves)")
    print(f"moves, two analyses run:  p50 {figures['loaded_p50_ms']} ms, "
          f"p99 {figures['loaded_p99_ms']} ms ({len(loaded)} moves)")
    print(f"p99 with / without: {figures['p99_ratio']}x (goal: at most 2)")
    if args.metrics:
        args.metrics.write_text(json.dumps(figures))


if __name__ == "__main__":
    main()
