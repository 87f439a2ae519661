"""Game page and dashboard with many games stored: queries per page and server time.

Seeds a scratch database (``--games`` games of ``--plies`` half-moves each between
``--players`` players, most of them finished), then renders each page ``--requests``
times through Django's full request path (middleware, session, view, template) with the
test client, and prints the query count and the p50/p95 time per page.

    python bench/web_pages.py [--games 10000] [--plies 20] [--requests 200]

The database is ``DATABASE_URL`` when set (it is flushed and filled: give it a scratch
database), else a temporary SQLite file.
"""

from __future__ import annotations

import argparse
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
    if "DATABASE_URL" not in os.environ:
        scratch = Path(tempfile.mkdtemp(prefix="ajedrez-bench-")) / "bench.sqlite3"
        os.environ["DATABASE_URL"] = f"sqlite:///{scratch}"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ajedrez.settings")
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    import django

    django.setup()


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
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    for _ in range(5):
        assert client.get(url).status_code == 200, url
    with CaptureQueriesContext(connection) as queries:
        client.get(url)
    # Read now: the next request's request_started signal empties the query log.
    query_count = len(queries.captured_queries)
    times = []
    for _ in range(requests):
        started = time.perf_counter()
        response = client.get(url)
        times.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 200
    times.sort()
    p95 = times[int(len(times) * 0.95) - 1]
    return query_count, statistics.median(times), p95


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--plies", type=int, default=20)
    parser.add_argument("--players", type=int, default=150)
    parser.add_argument("--requests", type=int, default=200)
    args = parser.parse_args()
    setup_django()

    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.test import Client
    from django.urls import reverse

    from games.models import Game, Move

    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]
    started = time.perf_counter()
    game_id, viewer_id = seed(args.players, args.games, args.plies)
    print(
        f"seeded {Game.objects.count()} games, {Move.objects.count()} moves, "
        f"{args.players} players in {time.perf_counter() - started:.1f} s "
        f"({settings.DATABASES['default']['ENGINE'].rsplit('.', 1)[-1]})"
    )
    viewer = get_user_model().objects.get(pk=viewer_id)
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(viewer)
    own = Game.objects.filter(white=viewer).count() + Game.objects.filter(black=viewer).count()
    print(f"viewer plays in {own} games; {args.requests} requests per page")
    print(f"{'page':32} {'queries':>7} {'p50 ms':>8} {'p95 ms':>8}")
    for label, url in [
        ("game page", reverse("game_detail", args=[game_id])),
        ("game state (JSON)", reverse("game_state", args=[game_id])),
        ("dashboard", reverse("dashboard")),
        ("dashboard live part", reverse("dashboard") + "?partial=1"),
    ]:
        queries, p50, p95 = measure(client, url, args.requests)
        print(f"{label:32} {queries:7d} {p50:8.1f} {p95:8.1f}")


if __name__ == "__main__":
    main()
