"""Game page, dashboard, profile and archive with many games stored: queries per page
and server time.

Seeds a scratch database (``--games`` games of ``--plies`` half-moves each between
``--players`` players, most of them finished), then renders each page ``--requests``
times through Django's full request path (middleware, session, view, template) with the
test client, and prints the query count and the p50/p95 time per page.

    python bench/web_pages.py [--games 10000] [--plies 20] [--requests 200]

``--dashboard-series 149,449,1349`` measures the dashboard instead for a viewer who plays
each of those numbers of games (three in ten in progress), to show whether its time
grows with them.

The database is ``DATABASE_URL`` when set (it is flushed and filled: give it a scratch
database), else a temporary SQLite file. Static files are collected into a scratch
``STATIC_ROOT`` first: pages name them by their hashed names, as in production.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from itertools import combinations
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def setup_django() -> None:
    scratch = Path(tempfile.mkdtemp(prefix="ajedrez-bench-"))
    if "DATABASE_URL" not in os.environ:
        os.environ["DATABASE_URL"] = f"sqlite:///{scratch / 'bench.sqlite3'}"
    os.environ.setdefault("STATIC_ROOT", str(scratch / "static"))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ajedrez.settings")
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    import django
    from django.conf import settings
    from django.core.management import call_command

    django.setup()
    if not (Path(settings.STATIC_ROOT) / "staticfiles.json").exists():
        call_command("collectstatic", interactive=False, verbosity=0)
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]


# fmt: off
OPENING = [
    "e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O", "Be7",
    "Re1", "b5", "Bb3", "d6", "c3", "O-O", "h3", "Nb8", "d4", "Nbd7",
    "c4", "c6", "cxb5", "axb5", "Nc3", "Bb7", "Bg5", "b4", "Nb1", "h6",
    "Bh4", "c5", "dxe5", "Nxe4", "Bxe7", "Qxe7",
]
# fmt: on


def seed(players: int, games: int, plies: int) -> tuple[int, int]:
    """Fill the database; return (the game to show, the player whose pages we load)."""
    import chess
    from django.contrib.auth import get_user_model
    from django.contrib.auth.hashers import make_password
    from django.core.management import call_command
    from django.db import transaction
    from django.utils import timezone

    from accounts.models import Preferences
    from games.models import Game, Move
    from ranking.models import PlayerRecord

    call_command("migrate", verbosity=0)
    call_command("flush", interactive=False, verbosity=0)
    User = get_user_model()

    board = chess.Board()
    line = []
    for san in OPENING[:plies]:
        move = board.parse_san(san)
        line.append((move.uci(), board.san(move)))
        board.push(move)
        line[-1] += (board.fen(),)
    final_fen = line[-1][2] if line else chess.STARTING_FEN
    from games import openings

    named = [openings.opening_at(fen, n) for n, (_, _, fen) in enumerate(line, start=1)]
    opening = next((o for o in reversed(named) if o is not None), None)

    now = timezone.now()
    password = make_password("bench-password")
    with transaction.atomic():
        users = User.objects.bulk_create(
            [User(username=f"player{i:04d}", password=password) for i in range(players)]
        )
        Preferences.objects.bulk_create([Preferences(player=u) for u in users])
        PlayerRecord.objects.bulk_create([PlayerRecord(player=u) for u in users])
    pairs = list(combinations(users, 2))[:games]
    if len(pairs) < games:
        raise SystemExit(f"{players} players make only {len(pairs)} pairs: raise --players")
    batch = 2000
    for start in range(0, games, batch):
        with transaction.atomic():
            created = Game.objects.bulk_create(
                [
                    Game(
                        white=white,
                        black=black,
                        created_at=now,
                        updated_at=now,
                        # Three in ten active (unique per pair), the rest finished.
                        status="active" if (start + k) % 10 < 3 else "finished",
                        result="*" if (start + k) % 10 < 3 else "1/2-1/2",
                        termination="" if (start + k) % 10 < 3 else "agreement",
                        finished_at=None if (start + k) % 10 < 3 else now,
                        last_move_at=now,
                        last_move_san=line[-1][1],
                        fen=final_fen,
                        next_move_number=len(line) + 1,
                        version=len(line) + 1,
                        opening_eco=opening.eco if opening else "",
                        opening_name=opening.name if opening else "",
                    )
                    for k, (white, black) in enumerate(pairs[start : start + batch])
                ]
            )
            Move.objects.bulk_create(
                [
                    Move(
                        game=game,
                        number=n,
                        uci=uci,
                        san=san,
                        fen_after=fen,
                        played_at=now,
                    )
                    for game in created
                    for n, (uci, san, fen) in enumerate(line, start=1)
                ],
                batch_size=5000,
            )
    viewer = users[0]
    shown = Game.objects.filter(white=viewer, status="active").order_by("pk").first()
    return shown.pk, viewer.pk


def measure(client, url: str, requests: int) -> tuple[int, float, float]:
    """(queries, p50 ms, p95 ms) of wall time per request."""
    queries, wall, _cpu = measure_with_cpu(client, url, requests)
    return queries, statistics.median(wall), percentile(wall, 0.95)


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, int(len(ordered) * fraction) - 1)]


def measure_with_cpu(client, url: str, requests: int) -> tuple[int, list[float], list[float]]:
    """The query count of one request, and each request's wall and CPU time in ms.

    CPU time is this process's (with SQLite, the database's work too): on a machine
    shared with other work the wall time says as much about the neighbours as about the
    page, the CPU time much less."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    for _ in range(5):
        assert client.get(url).status_code == 200, url
    with CaptureQueriesContext(connection) as queries:
        client.get(url)
    # Read now: the next request's request_started signal empties the query log.
    query_count = len(queries.captured_queries)
    wall, cpu = [], []
    for _ in range(requests):
        started, started_cpu = time.perf_counter(), time.process_time()
        response = client.get(url)
        cpu.append((time.process_time() - started_cpu) * 1000)
        wall.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 200
    return query_count, wall, cpu


def logged_in_client(user_id: int):
    from django.contrib.auth import get_user_model
    from django.test import Client

    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(get_user_model().objects.get(pk=user_id))
    return client


def dashboard_for_viewer_with(viewer_games: int, *, plies: int, requests: int) -> dict:
    """Seed a database where the viewer plays ``viewer_games`` games (against as many
    players) and measure the dashboard and its live part:
    {label: (queries, wall times in ms, CPU times in ms)}."""
    from django.urls import reverse

    _game_id, viewer_id = seed(viewer_games + 1, viewer_games, plies)
    client = logged_in_client(viewer_id)
    return {
        label: measure_with_cpu(client, url, requests)
        for label, url in [
            ("dashboard", reverse("dashboard")),
            ("dashboard live part", reverse("dashboard") + "?partial=1"),
        ]
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--plies", type=int, default=20)
    parser.add_argument("--players", type=int, default=150)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument(
        "--dashboard-series",
        type=lambda text: [int(n) for n in text.split(",")],
        help="comma-separated numbers of the viewer's games: the dashboard for each",
    )
    parser.add_argument("--metrics", metavar="PATH",
                        help="with --dashboard-series, also write the figures as JSON")
    args = parser.parse_args()
    setup_django()

    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.urls import reverse

    from games.models import Game, Move

    engine = settings.DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1]
    if args.dashboard_series:
        print(f"dashboard by the viewer's games ({engine}); {args.requests} requests each")
        print(f"{'viewer games':>12} {'page':22} {'queries':>7} {'p50 ms':>8} {'p95 ms':>8}"
              f" {'CPU p50 ms':>10}")
        series = []
        for count in args.dashboard_series:
            figures = dashboard_for_viewer_with(count, plies=args.plies, requests=args.requests)
            for label, (queries, wall, cpu) in figures.items():
                print(f"{count:12d} {label:22} {queries:7d} {statistics.median(wall):8.1f}"
                      f" {percentile(wall, 0.95):8.1f} {statistics.median(cpu):10.1f}")
                series.append({"viewer_games": count, "page": label, "queries": queries,
                               "p50_ms": statistics.median(wall),
                               "cpu_p50_ms": statistics.median(cpu)})
        if args.metrics:
            Path(args.metrics).write_text(json.dumps(series))
        return

    started = time.perf_counter()
    game_id, viewer_id = seed(args.players, args.games, args.plies)
    print(
        f"seeded {Game.objects.count()} games, {Move.objects.count()} moves, "
        f"{args.players} players in {time.perf_counter() - started:.1f} s ({engine})"
    )
    client = logged_in_client(viewer_id)
    viewer = get_user_model().objects.get(pk=viewer_id)
    own = Game.objects.filter(white=viewer_id).count() + Game.objects.filter(
        black=viewer_id
    ).count()
    print(f"viewer plays in {own} games; {args.requests} requests per page")
    print(f"{'page':32} {'queries':>7} {'p50 ms':>8} {'p95 ms':>8}")
    for label, url in [
        ("game page", reverse("game_detail", args=[game_id])),
        ("game state (JSON)", reverse("game_state", args=[game_id])),
        ("dashboard", reverse("dashboard")),
        ("dashboard live part", reverse("dashboard") + "?partial=1"),
        ("profile", reverse("player_detail", args=[viewer.username])),
        ("archive", reverse("player_archive", args=[viewer.username])),
        ("archive, drawn as black", reverse("player_archive", args=[viewer.username])
         + "?result=drawn&colour=black"),
        ("archive, opponent + opening", reverse("player_archive", args=[viewer.username])
         + "?opponent=player0007&opening=C6"),
        ("archive, search", reverse("player_archive", args=[viewer.username]) + "?q=ruy"),
    ]:
        queries, p50, p95 = measure(client, url, args.requests)
        print(f"{label:32} {queries:7d} {p50:8.1f} {p95:8.1f}")


if __name__ == "__main__":
    main()
