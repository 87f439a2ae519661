"""Moves from several writer processes at once: how long each waits for the database.

Seeds a scratch database with ``--games`` games per writer (each between its own two
players), then for each count in ``--writers`` (default 1,2,4,8) starts that many
processes, each playing random legal moves through ``games.services.make_move`` on its
own games for ``--seconds``, all starting together. Prints, per count, the moves played
in total, moves per second, and the p50 / p99 / max time of a move (commit and on-commit
event included) across all writers, and any move that failed.

    python bench/writers.py [--writers 1,2,4,8] [--seconds 10] [--games 40]

The database is ``DATABASE_URL`` when set (it is flushed and filled: give it a scratch
database), else a temporary SQLite file: on SQLite every write transaction takes the one
write lock when it begins (``transaction_mode=IMMEDIATE``), so this shows how long the
writers queue behind one another.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def setup_django() -> None:
    if "DATABASE_URL" not in os.environ:
        scratch = Path(tempfile.mkdtemp(prefix="ajedrez-writers-")) / "bench.sqlite3"
        os.environ["DATABASE_URL"] = f"sqlite:///{scratch}"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ajedrez.settings")
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    import django

    django.setup()


def seed(writers: int, games_each: int) -> list[list[int]]:
    """Fresh games, ``games_each`` per writer, each between two players of its own."""
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from games import services

    call_command("migrate", verbosity=0)
    call_command("flush", interactive=False, verbosity=0)
    User = get_user_model()
    shares: list[list[int]] = []
    for w in range(writers):
        share = []
        for g in range(games_each):
            white = User.objects.create_user(f"w{w}g{g}white", password=None)
            black = User.objects.create_user(f"w{w}g{g}black", password=None)
            challenge = services.challenge(challenger=black, challenged=white)
            game = services.accept_challenge(
                challenge_id=challenge.pk, player=white, colour="white"
            )
            share.append(game.pk)
        shares.append(share)
    return shares


def write(game_ids: list[int], ready: Path, go: Path, seconds: float, seed_value: int) -> dict:
    """One writer: loads its games, says it is ``ready``, waits for the ``go`` file (the
    start time in it), then plays random legal moves on its games for ``seconds``."""
    import chess

    from ajedrez.core.errors import DomainError
    from games import services
    from games.models import Game

    rng = random.Random(seed_value)
    games = {g.pk: g for g in Game.objects.select_related("white", "black").filter(
        pk__in=game_ids
    )}
    timings: list[float] = []
    failures: dict[str, int] = {}
    ready.touch()
    while not go.exists() or not go.read_text():
        time.sleep(0.005)
    start_at = float(go.read_text())
    while time.time() < start_at:
        time.sleep(0.001)
    deadline = start_at + seconds
    while time.time() < deadline and games:
        for game_id in list(games):
            game = games[game_id]
            board = chess.Board(game.fen)
            move = rng.choice(sorted(board.legal_moves, key=chess.Move.uci)).uci()
            player = game.white if board.turn == chess.WHITE else game.black
            started = time.perf_counter()
            try:
                updated = services.make_move(
                    game_id=game_id, player=player,
                    move_number=game.next_move_number, move=move,
                )
            except DomainError as error:
                failures[error.code] = failures.get(error.code, 0) + 1
                del games[game_id]
                continue
            except Exception as error:
                failures[type(error).__name__] = failures.get(type(error).__name__, 0) + 1
                continue
            timings.append((time.perf_counter() - started) * 1000)
            if updated.is_active:
                updated.white, updated.black = game.white, game.black
                games[game_id] = updated
            else:
                del games[game_id]
            if time.time() >= deadline:
                break
    return {"timings": timings, "failures": failures, "games_left": len(games)}


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, int(len(ordered) * fraction) - 1)] if ordered else float("nan")


def run(writer_counts: list[int], seconds: float, games_each: int) -> list[dict]:
    """Each count's figures: writers, moves, moves_per_second, p50/p99/max ms, failures."""
    from django.conf import settings

    results = []
    for count in writer_counts:
        shares = seed(count, games_each)
        scratch = Path(tempfile.mkdtemp(prefix="ajedrez-writers-run-"))
        go = scratch / "go"
        env = {**os.environ, "DATABASE_URL": os.environ["DATABASE_URL"],
               "SECRET_KEY": settings.SECRET_KEY}
        processes = []
        for index, share in enumerate(shares):
            out = scratch / f"writer-{index}.json"
            processes.append((out, subprocess.Popen(
                [sys.executable, __file__, "--role", "writer", "--game-ids",
                 ",".join(map(str, share)), "--go", str(go),
                 "--seconds", str(seconds), "--seed", str(index), "--out", str(out)],
                cwd=ROOT, env=env,
            )))
        # Every writer has started Python and Django and loaded its games: start together.
        while not all(out.with_suffix(".ready").exists() for out, _ in processes):
            if any(process.poll() is not None for _, process in processes):
                raise SystemExit("a writer ended before starting")
            time.sleep(0.05)
        go.write_text(repr(time.time() + 0.2))
        timings: list[float] = []
        failures: dict[str, int] = {}
        for out, process in processes:
            if process.wait(timeout=seconds + 120) != 0:
                raise SystemExit(f"a writer failed (exit {process.returncode})")
            figures = json.loads(out.read_text())
            timings += figures["timings"]
            for code, n in figures["failures"].items():
                failures[code] = failures.get(code, 0) + n
        results.append({
            "writers": count,
            "moves": len(timings),
            "moves_per_second": len(timings) / seconds,
            "p50_ms": statistics.median(timings) if timings else float("nan"),
            "p99_ms": percentile(timings, 0.99),
            "max_ms": max(timings, default=float("nan")),
            "failures": failures,
        })
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--writers", default="1,2,4,8",
                        type=lambda text: [int(n) for n in text.split(",")])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--games", type=int, default=40, help="games per writer")
    parser.add_argument("--metrics", metavar="PATH", help="also write the figures as JSON")
    parser.add_argument("--role", default="driver", help=argparse.SUPPRESS)
    parser.add_argument("--game-ids", help=argparse.SUPPRESS)
    parser.add_argument("--go", help=argparse.SUPPRESS)
    parser.add_argument("--seed", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args()
    setup_django()
    if args.role == "writer":
        out = Path(args.out)
        figures = write([int(n) for n in args.game_ids.split(",")], out.with_suffix(".ready"),
                        Path(args.go), args.seconds, args.seed)
        out.write_text(json.dumps(figures))
        return

    from django.conf import settings

    engine = settings.DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1]
    print(f"writers: {engine}; {args.seconds:g} s each; load average "
          + " ".join(f"{v:.1f}" for v in os.getloadavg()))
    results = run(args.writers, args.seconds, args.games)
    print(f"{'writers':>7} {'moves':>7} {'moves/s':>8} {'p50 ms':>8} {'p99 ms':>8}"
          f" {'max ms':>8}  failures")
    for r in results:
        print(f"{r['writers']:7d} {r['moves']:7d} {r['moves_per_second']:8.0f}"
              f" {r['p50_ms']:8.2f} {r['p99_ms']:8.2f} {r['max_ms']:8.2f}  {r['failures'] or '-'}")
    if args.metrics:
        Path(args.metrics).write_text(json.dumps(results))


if __name__ == "__main__":
    main()
