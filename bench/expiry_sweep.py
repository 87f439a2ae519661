"""The cost of the clock sweep (``services.expire_due_games``) with many games running.

Seeds ``--games`` active games with a clock (deadlines spread over the next 14 days) and
as many finished ones, then times the sweep when nothing is due (the usual minute: one
query on the ``game_deadline_running`` partial index) and when ``--due`` games have run
out (each ended in its own transaction under its row lock), and prints the query plan.
The sweep also sends the "24 hours left" warnings: timed idle in the steady state (each
game with a day or less left already warned about its deadline, so the partial index
``game_deadline_unwarned`` holds none of them) and when ``--due`` games are due one.

    python bench/expiry_sweep.py [--games 100000] [--due 100]
    DATABASE_URL=postgresql://postgres@127.0.0.1:5432/bench_db python bench/expiry_sweep.py

Without DATABASE_URL the database is a temporary SQLite file. On PostgreSQL the
database named must exist and is emptied first.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import random
import statistics
import sys
import tempfile
import time
from itertools import combinations
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def setup_django() -> None:
    if "DATABASE_URL" not in os.environ:
        scratch = Path(tempfile.mkdtemp(prefix="ajedrez-bench-")) / "bench.sqlite3"
        os.environ["DATABASE_URL"] = f"sqlite:///{scratch}"
    os.environ.pop("REDIS_URL", None)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ajedrez.settings")
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("flush", interactive=False, verbosity=0)
    call_command("migrate", verbosity=0)


def cpu_reference() -> float:
    """Best of five timings of a fixed loop, in µs: compares machines and hours."""
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        sum(range(10_000))
        best = min(best, time.perf_counter() - start)
    return best * 1e6


def seed(games: int) -> None:
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from games.models import Game

    User = get_user_model()
    players = 2
    while players * (players - 1) // 2 < games:
        players += 1
    users = User.objects.bulk_create(
        User(username=f"p{n}", password="!") for n in range(players)
    )
    now = timezone.now()
    rng = random.Random(7)
    pairs = combinations(users, 2)
    batch = []
    for n in range(2 * games):
        if n < games:
            white, black = next(pairs)
            batch.append(Game(
                white=white, black=black, days_per_move=3, next_move_number=20,
                deadline=now + dt.timedelta(seconds=rng.uniform(60, 14 * 86_400)),
            ))
        else:
            # Finished games (no deadline) between the same players: the index skips them.
            white, black = users[n % players], users[(n + 1) % players]
            batch.append(Game(
                white=white, black=black, status="finished", result="1-0",
                termination="resignation", finished_at=now, days_per_move=3,
            ))
        if len(batch) == 5_000:
            Game.objects.bulk_create(batch)
            batch = []
    Game.objects.bulk_create(batch)


def timed(call, runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        start = time.perf_counter()
        call()
        out.append((time.perf_counter() - start) * 1000)
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--due", type=int, default=100)
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()
    setup_django()
    from django.db import connection
    from django.utils import timezone

    from games import services
    from games.models import Game

    print(f"load average {os.getloadavg()}, CPU reference {cpu_reference():.0f} µs")
    start = time.perf_counter()
    seed(args.games)
    print(f"{connection.vendor}: seeded {args.games:,} active games with a clock and "
          f"{args.games:,} finished ones in {time.perf_counter() - start:.0f} s")
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE games_game")

    from django.db.models import F

    from games import clock, selectors

    # The steady state: every clock with a day or less left has had its warning.
    now = timezone.now()
    Game.objects.filter(deadline__lte=now + clock.LOW_TIME + dt.timedelta(hours=1)).update(
        low_time_warned_for=F("deadline")
    )
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE games_game")

    # The sweep's own queries (selectors.games_run_out, services.clocks.low_time_games), as the
    # service pages them.
    queries = {
        "games run out": selectors.games_run_out(now)[:500],
        "24-hour warnings": services.clocks.low_time_games(now)
        .order_by("deadline")
        .values_list("pk", flat=True)[:500],
    }
    for name, query in queries.items():
        sql, params = query.query.sql_with_params()
        with connection.cursor() as cursor:
            explain = "EXPLAIN QUERY PLAN " if connection.vendor == "sqlite" else "EXPLAIN "
            cursor.execute(explain + sql, params)
            print(f"plan, {name}:", " | ".join(
                str(row[-1] if connection.vendor == "sqlite" else row[0])
                for row in cursor.fetchall()
            ))

    warnings_query = queries["24-hour warnings"]
    alone = timed(lambda: list(warnings_query.all()), args.runs)  # .all(): no cache
    print(f"24-hour warnings' query alone, none due: p50 {statistics.median(alone):.3f} ms, "
          f"p95 {sorted(alone)[int(len(alone) * 0.95)]:.3f} ms, max {max(alone):.3f} ms")

    idle = timed(services.expire_due_games, args.runs)
    print(f"sweep, nothing due: p50 {statistics.median(idle):.3f} ms, "
          f"p95 {sorted(idle)[int(len(idle) * 0.95)]:.3f} ms, max {max(idle):.3f} ms "
          f"({args.runs} runs)")

    warn = list(Game.objects.filter(status="active").order_by("?").values_list("pk", flat=True)
                [: args.due])
    Game.objects.filter(pk__in=warn).update(
        deadline=timezone.now() + dt.timedelta(hours=23), low_time_warned_for=None
    )
    start = time.perf_counter()
    warned = services.warn_low_time()
    took = (time.perf_counter() - start) * 1000
    print(f"sweep warning {warned} games: {took:.1f} ms ({took / max(warned, 1):.2f} ms a game)")

    due = list(Game.objects.filter(status="active").order_by("?").values_list("pk", flat=True)
               [: args.due])
    Game.objects.filter(pk__in=due).update(deadline=timezone.now() - dt.timedelta(minutes=1))
    start = time.perf_counter()
    ended = services.expire_due_games()
    took = (time.perf_counter() - start) * 1000
    print(f"sweep ending {ended} games: {took:.1f} ms ({took / max(ended, 1):.2f} ms a game)")
    print(f"load average after {os.getloadavg()}")


if __name__ == "__main__":
    main()
