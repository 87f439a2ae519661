"""A 100-player multi-round tournament (groups of 10): the time to start it (450 games
created at once, every player told), and its page with all its crosstables as games end:
queries and server time, which must not grow with the games finished.

Seeds a scratch database with ``--players`` players (ratings spread), creates the event
through the services (groups of ``--group-size``), joins them all, then times
``start_tournament`` (one transaction: the groups, the Berger pairings, every game, every
notification, and the events published after the commit). Then ends games through the
services (resignations), in steps up to ``--finished``, and after each step renders the
event's page ``--requests`` times through Django's full request path.

    python bench/tournament_start.py [--players 100] [--group-size 10] [--finished 400]

The database is ``DATABASE_URL`` when set (flushed and filled: give it a scratch
database), else a temporary SQLite file.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.web_pages import (  # noqa: E402  (after the path is set)
    logged_in_client,
    measure_with_cpu,
    percentile,
    setup_django,
)


def seed(players: int, group_size: int) -> int:
    """The players and the event they all joined; returns the event's id."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.hashers import make_password
    from django.core.management import call_command
    from django.db import transaction
    from django.utils import timezone

    from accounts.models import Preferences
    from games import services
    from games.models import Tournament
    from ranking.models import PlayerRecord

    call_command("migrate", verbosity=0)
    call_command("flush", interactive=False, verbosity=0)
    User = get_user_model()
    password = make_password("bench-password")
    with transaction.atomic():
        users = User.objects.bulk_create(
            [User(username=f"player{i:04d}", password=password) for i in range(players)]
        )
        Preferences.objects.bulk_create([Preferences(player=u) for u in users])
        PlayerRecord.objects.bulk_create(
            [PlayerRecord(player=u, rating=2200 - 7 * i) for i, u in enumerate(users)]
        )
    event = services.save_tournament(tournament=Tournament(
        name="Bench Open", kind=Tournament.Kind.MULTI_ROUND, group_size=group_size,
        advance=2, min_players=2, max_players=players, days_per_move=3,
        starts_at=timezone.now() + timezone.timedelta(days=1),
    ))
    for user in users:
        services.join_tournament(tournament_id=event.pk, player=user)
    return event.pk


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=100)
    parser.add_argument("--group-size", type=int, default=10)
    parser.add_argument("--finished", type=int, default=400,
                        help="games ended by the last step (below the round's games)")
    parser.add_argument("--steps", type=int, default=4)
    parser.add_argument("--requests", type=int, default=30)
    parser.add_argument("--metrics", metavar="PATH", help="also write the figures as JSON")
    args = parser.parse_args()
    setup_django()

    from django.conf import settings
    from django.db import connection
    from django.test.utils import CaptureQueriesContext
    from django.urls import reverse

    from games import services
    from games.models import Game, Notification, Tournament

    engine = settings.DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1]
    event_id = seed(args.players, args.group_size)
    with CaptureQueriesContext(connection) as queries:
        started = time.perf_counter()
        services.start_tournament(tournament_id=event_id)
        start_seconds = time.perf_counter() - started
    event = Tournament.objects.get(pk=event_id)
    games = list(Game.objects.filter(tournament=event).order_by("pk"))
    told = Notification.objects.filter(kind="tournament_started").count()
    print(f"{engine}: {args.players} players, groups of {args.group_size}: started in "
          f"{start_seconds:.2f} s, {len(queries.captured_queries)} queries, {len(games)} games, "
          f"{told} players told ({event.status})")

    viewer = logged_in_client(games[0].white_id)
    url = reverse("tournament_detail", args=[event_id])
    print(f"{'finished games':>14} {'queries':>7} {'p50 ms':>8} {'p95 ms':>8} {'CPU p50 ms':>10}")
    pages = []
    ended = 0
    targets = [round(args.finished * step / args.steps) for step in range(args.steps + 1)]
    for target in targets:
        while ended < min(target, len(games)):
            game = games[ended]
            services.resign(game_id=game.pk, player=game.black)
            ended += 1
        count, wall, cpu = measure_with_cpu(viewer, url, args.requests)
        print(f"{ended:14d} {count:7d} {statistics.median(wall):8.1f} "
              f"{percentile(wall, 0.95):8.1f} {statistics.median(cpu):10.1f}")
        pages.append({"finished": ended, "queries": count, "p50_ms": statistics.median(wall),
                      "cpu_p50_ms": statistics.median(cpu)})
    if args.metrics:
        Path(args.metrics).write_text(json.dumps({
            "players": args.players, "games": len(games), "start_seconds": start_seconds,
            "start_queries": len(queries.captured_queries), "pages": pages,
        }))


if __name__ == "__main__":
    main()
