"""How long a move takes through ``games.services.make_move``, with 1,000 and 100,000 games stored.

Usage (from the project root)::

    python bench/core_move.py                       # throwaway SQLite file in the temp dir
    DATABASE_URL=postgresql://postgres@127.0.0.1:5432/core_bench python bench/core_move.py

With ``DATABASE_URL`` the named database must be a throwaway one: it is created when
missing and emptied first. Seeding writes games and moves directly in bulk (it is not what
is measured); each timed move is one real service call, commit and event included.
Prints p50/p95/max per stage and the number of queries per move.
"""

from __future__ import annotations

import argparse
import asyncio
import atexit
import json
import os
import random
import statistics
import sys
import tempfile
import time
import timeit
from itertools import combinations
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


SQLITE_FILE = Path(tempfile.gettempdir()) / f"ajedrez-core-bench-{os.getpid()}.sqlite3"


def _remove_sqlite_file() -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{SQLITE_FILE}{suffix}").unlink(missing_ok=True)


def _prepare_database() -> str:
    """Point Django at a throwaway database; return a label for the report."""
    url = os.environ.get("DATABASE_URL")
    if not url:
        _remove_sqlite_file()
        os.environ["DATABASE_URL"] = f"sqlite:///{SQLITE_FILE}"
        # The 100,000-game file is about 0.7 GB: never leave it behind.
        atexit.register(_remove_sqlite_file)
        return f"SQLite file {SQLITE_FILE.name}"
    if url.startswith(("postgres://", "postgresql://")):
        import dj_database_url
        import psycopg

        cfg = dj_database_url.parse(url)
        admin = psycopg.connect(
            dbname="postgres",
            user=cfg["USER"] or None,
            password=cfg["PASSWORD"] or None,
            host=cfg["HOST"] or None,
            port=cfg["PORT"] or None,
            autocommit=True,
        )
        with admin:
            exists = admin.execute(
                "SELECT 1 FROM pg_database WHERE datname = %s", [cfg["NAME"]]
            ).fetchone()
            if not exists:
                admin.execute(f'CREATE DATABASE "{cfg["NAME"]}"')
        return f"PostgreSQL database {cfg['NAME']}"
    return url.split(":", 1)[0]


DB_LABEL = _prepare_database()
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ajedrez.settings")
os.environ.setdefault("LOG_LEVEL", "WARNING")

import django  # noqa: E402

django.setup()

import chess  # noqa: E402
from asgiref.sync import sync_to_async  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection, transaction  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402
from django.utils import timezone  # noqa: E402

from games import services  # noqa: E402
from games.models import Game, Move  # noqa: E402
from ranking.models import PlayerRecord  # noqa: E402

User = get_user_model()
PLAYERS = 1_500  # 1,124,250 pairs: every seeded game gets its own pair of players
rng = random.Random(2026)


def _sample_game(plies: int = 90) -> list[tuple[str, str, str]]:
    """One legal game as (uci, san, fen_after) rows, no ending within ``plies``."""
    while True:
        board = chess.Board()
        rows = []
        for _ in range(plies):
            moves = sorted(board.legal_moves, key=chess.Move.uci)
            move = rng.choice(moves)
            san = board.san(move)
            board.push(move)
            if board.outcome(claim_draw=False) is not None:
                break
            rows.append((move.uci(), san, board.fen()))
        if len(rows) == plies:
            return rows


SAMPLE = _sample_game()


def _reset() -> None:
    call_command("migrate", verbosity=0)
    # TRUNCATE on PostgreSQL: deleting millions of rows would leave dead tuples behind
    # for autovacuum to chew on while the moves are timed.
    call_command("flush", interactive=False, verbosity=0)
    users = User.objects.bulk_create(
        User(username=f"player{n:04d}", password="!", is_active=True) for n in range(PLAYERS)
    )
    PlayerRecord.objects.bulk_create(PlayerRecord(player=u) for u in users)


def _pairs():
    ids = sorted(User.objects.values_list("pk", flat=True))
    return combinations(ids, 2)


def seed(count: int, pairs, *, active_share: float = 0.1) -> None:
    """Store ``count`` more games of 10–80 plies, most of them finished, in bulk."""
    now = timezone.now()
    move_table = Move._meta.db_table
    insert_moves = (
        f"INSERT INTO {move_table} (game_id, number, uci, san, reverse, fen_after, played_at,"
        " think_seconds) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)"
    )
    batch = 5_000
    done = 0
    while done < count:
        size = min(batch, count - done)
        games = []
        lengths = []
        for _ in range(size):
            a, b = next(pairs)
            white, black = (a, b) if rng.random() < 0.5 else (b, a)
            length = rng.randint(10, 80)
            active = rng.random() < active_share
            games.append(
                Game(
                    white_id=white,
                    black_id=black,
                    created_at=now,
                    updated_at=now,
                    finished_at=None if active else now,
                    last_move_at=now,
                    last_move_san=SAMPLE[length - 1][1],
                    status=Game.Status.ACTIVE if active else Game.Status.FINISHED,
                    result="*" if active else "1-0",
                    termination="" if active else "resignation",
                    fen=SAMPLE[length - 1][2],
                    next_move_number=length + 1,
                    version=length + 1,
                )
            )
            lengths.append(length)
        with transaction.atomic():
            Game.objects.bulk_create(games)
            rows = [
                (game.pk, n + 1, uci, san, False, fen, now, 60)
                for game, length in zip(games, lengths, strict=True)
                for n, (uci, san, fen) in enumerate(SAMPLE[:length])
            ]
            with connection.cursor() as cursor:
                cursor.executemany(insert_moves, rows)
        done += size
    # Fresh statistics (and on PostgreSQL a vacuumed heap), as a long-running database
    # would have; on SQLite, fold the seeding's write-ahead log into the database so no
    # measured commit pays for it.
    with connection.cursor() as cursor:
        if connection.vendor == "sqlite":
            cursor.execute("ANALYZE")
            cursor.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        else:
            cursor.execute("VACUUM ANALYZE")


def _next_move_text(game: Game) -> str:
    board = chess.Board(game.fen)
    quiet = [
        m for m in board.legal_moves if not board.is_capture(m) and not board.gives_check(m)
    ]
    return rng.choice(sorted(quiet or list(board.legal_moves), key=chess.Move.uci)).uci()


def _timed_moves(candidates: list[Game], moves_each: int, call) -> list[float]:
    timings: list[float] = []
    for game in candidates:
        for _ in range(moves_each):
            game.refresh_from_db(fields=["fen", "next_move_number", "status"])
            if not game.is_active:
                break
            player = game.white if game.colour_to_move == "white" else game.black
            timings.append(call(game, player, game.next_move_number, _next_move_text(game)))
    return timings


def _direct(game: Game, player, number: int, text: str) -> float:
    start = time.perf_counter()
    services.make_move(game_id=game.pk, player=player, move_number=number, move=text)
    return (time.perf_counter() - start) * 1000


class _ViaSyncToAsync:
    """Calls the service as the ASGI front doors do: ``await sync_to_async(make_move)``.

    There the on-commit event hops onto the running event loop; from a plain thread
    ``async_to_sync`` must start a thread and a loop of its own for every event.
    """

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()

    def __call__(self, game: Game, player, number: int, text: str) -> float:
        async def timed() -> float:
            start = time.perf_counter()
            await sync_to_async(services.make_move)(
                game_id=game.pk, player=player, move_number=number, move=text
            )
            return (time.perf_counter() - start) * 1000

        return self.loop.run_until_complete(timed())


def _report(label: str, timings: list[float], queries: int) -> None:
    timings = sorted(timings)
    p50 = statistics.median(timings)
    p95 = timings[max(0, int(len(timings) * 0.95) - 1)]
    print(
        f"{label:>34}: {len(timings)} moves  p50 {p50:.2f} ms  p95 {p95:.2f} ms  "
        f"max {timings[-1]:.2f} ms  queries/move {queries}",
        flush=True,
    )


def measure(label: str, games_wanted: int = 100, moves_each: int = 2) -> dict:
    """Time ``make_move`` on active stored games of realistic length (30+ plies); the
    figures: ``plain`` and ``via_async`` timings in ms, ``queries`` per move."""
    candidates = list(
        Game.objects.filter(status=Game.Status.ACTIVE, next_move_number__gt=30)
        .select_related("white", "black")
        .order_by("?")[:games_wanted]
    )
    # Counted on separate moves: capturing queries slows the cursor down a little.
    queries = 0
    for game in candidates[:10]:
        game.refresh_from_db(fields=["fen", "next_move_number", "status"])
        if not game.is_active:
            continue
        player = game.white if game.colour_to_move == "white" else game.black
        with CaptureQueriesContext(connection) as captured:
            services.make_move(
                game_id=game.pk,
                player=player,
                move_number=game.next_move_number,
                move=_next_move_text(game),
            )
        queries = max(queries, len(captured.captured_queries))
    direct = _timed_moves(candidates, moves_each, _direct)
    via_async = _timed_moves(candidates, moves_each, _ViaSyncToAsync())
    _report(f"{label}, plain thread", direct, queries)
    _report(f"{label}, via sync_to_async", via_async, queries)
    return {"plain": direct, "via_async": via_async, "queries": queries}


def _insert_commit_ms(samples: int) -> list[float]:
    """A single-row INSERT and its COMMIT with the database driver alone, in the
    durability the project is configured with: on SQLite a file of its own in WAL mode
    with the settings' ``synchronous``; on PostgreSQL a plain (logged) table in the
    configured database, whose commit waits for the server's WAL flush as a move's does."""
    from django.conf import settings

    row = ("e2e4", "e4", SAMPLE[0][2])
    timings = []
    if connection.vendor == "sqlite":
        import sqlite3

        path = Path(tempfile.mkdtemp(prefix="ajedrez-limit-")) / "limit.sqlite3"
        raw = sqlite3.connect(path, isolation_level=None)
        raw.execute("PRAGMA journal_mode=WAL")
        raw.execute(f"PRAGMA synchronous={settings.SQLITE_SYNCHRONOUS}")
        raw.execute("CREATE TABLE limit_move (id INTEGER PRIMARY KEY, uci, san, fen)")
        for _ in range(samples):
            start = time.perf_counter()
            raw.execute("BEGIN IMMEDIATE")
            raw.execute("INSERT INTO limit_move (uci, san, fen) VALUES (?, ?, ?)", row)
            raw.execute("COMMIT")
            timings.append((time.perf_counter() - start) * 1000)
        raw.close()
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
        return timings
    import psycopg

    with psycopg.connect(os.environ["DATABASE_URL"], autocommit=True) as setup:
        setup.execute("DROP TABLE IF EXISTS bench_limit_move")
        setup.execute("CREATE TABLE bench_limit_move (id serial PRIMARY KEY, uci text,"
                      " san text, fen text)")
    with psycopg.connect(os.environ["DATABASE_URL"]) as raw:
        for _ in range(samples):
            start = time.perf_counter()
            raw.execute("INSERT INTO bench_limit_move (uci, san, fen) VALUES (%s, %s, %s)", row)
            raw.commit()
            timings.append((time.perf_counter() - start) * 1000)
        raw.execute("DROP TABLE bench_limit_move")
        raw.commit()
    return timings


def _python_chess_ms(samples: int) -> list[float]:
    """python-chess's own work for one move: the position from its FEN, the move read
    and played, the automatic endings checked, the new FEN written."""
    timings = []
    for n in range(samples):
        before = SAMPLE[30 + n % 50][2]
        san = SAMPLE[31 + n % 50][1]
        start = time.perf_counter()
        board = chess.Board(before)
        board.push(board.parse_san(san))
        board.is_checkmate()
        board.is_stalemate()
        board.is_insufficient_material()
        board.fen()
        timings.append((time.perf_counter() - start) * 1000)
    return timings


def physical_limit(samples: int = 300) -> dict[str, float]:
    """The least a move could cost here: p50 of a raw INSERT + COMMIT, plus p50 of
    python-chess's work for one move (ms)."""
    commit = statistics.median(_insert_commit_ms(samples))
    rules = statistics.median(_python_chess_ms(samples * 10))
    return {"insert_commit_ms": commit, "python_chess_ms": rules, "limit_ms": commit + rules}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", type=int, default=1_000, help="games stored in stage one")
    parser.add_argument("--large", type=int, default=100_000, help="games stored in stage two")
    parser.add_argument("--metrics", metavar="PATH", help="also write the figures as JSON")
    args = parser.parse_args()

    print(f"database: {DB_LABEL}; python-chess {chess.__version__}; {os.cpu_count()} CPUs")
    # Machines of the same kind differ in speed (and one machine from hour to hour): a
    # fixed pure-Python loop lets figures taken on different days be compared.
    loop_us = min(timeit.repeat("sum(range(10_000))", number=200, repeat=5)) / 200 * 1e6
    print(f"CPU reference: sum(range(10_000)) takes {loop_us:.0f} µs")
    # Other work on the machine inflates every figure: print how busy it was.
    print("load average at start: {:.1f} {:.1f} {:.1f}".format(*os.getloadavg()))
    limit = physical_limit()
    print(f"physical limit: INSERT + COMMIT {limit['insert_commit_ms']:.2f} ms + python-chess"
          f" {limit['python_chess_ms']:.3f} ms = {limit['limit_ms']:.2f} ms a move")
    _reset()
    pairs = _pairs()
    started = time.perf_counter()
    seed(args.small, pairs)
    print(f"seeded {Game.objects.count():,} games in {time.perf_counter() - started:.1f} s")
    small = measure(f"{Game.objects.count():,} games")
    started = time.perf_counter()
    seed(args.large - args.small, pairs)
    print(
        f"seeded {Game.objects.count():,} games, {Move.objects.count():,} moves "
        f"in {time.perf_counter() - started:.1f} s"
    )
    large = measure(f"{Game.objects.count():,} games")
    small_p50 = statistics.median(small["plain"])
    print(f"a move (plain thread, {args.small:,} games) is {small_p50 / limit['limit_ms']:.1f}"
          f" times the physical limit; {args.large:,} games / {args.small:,}: "
          f"{statistics.median(large['plain']) / small_p50:.2f}")
    print("load average at end: {:.1f} {:.1f} {:.1f}".format(*os.getloadavg()))
    if args.metrics:
        Path(args.metrics).write_text(json.dumps({
            "small_games": args.small, "large_games": args.large, "cpu_reference_us": loop_us,
            **limit,
            "small_p50_ms": small_p50, "large_p50_ms": statistics.median(large["plain"]),
            "small_async_p50_ms": statistics.median(small["via_async"]),
            "large_async_p50_ms": statistics.median(large["via_async"]),
            "queries": large["queries"],
        }))


if __name__ == "__main__":
    main()
