"""Demo time travel: move the clocks of games in progress as if time had passed.

The vacations running for their players move with them: the days jumped count as
vacation taken, a clock standing still for a vacation keeps its time, and a vacation the
jump spends ends where its allowance ran out (``games.services.advance_clocks``).

Refused unless the setting ``DEMO_TIME_TRAVEL`` is on (environment ``DEMO_TIME_TRAVEL=1``):
it is for showing a game end on time without waiting days, never for a real service.

The games whose time has then run out are left to the service's clock sweep (within
``CLOCK_SWEEP_SECONDS``), which runs in the web process: on the embedded in-memory
channel layer only an event sent there reaches the open pages, so they show the end
live. ``--end-now`` ends them from this process instead (as ``expire_games`` does), for
a deployment whose pages are reached through Redis or that runs no sweep.
"""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from games.models import Game
from games.services import advance_clocks, expire_due_games


class Command(BaseCommand):
    help = (
        "Demo only (DEMO_TIME_TRAVEL=1): move the clocks of the games in progress, or of "
        "one game, as if --days/--hours had passed (their players' vacations count the days "
        "jumped); the service's clock sweep then ends those whose time ran out (--end-now: "
        "end them from here at once)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("game", nargs="?", help="a game's number (P0000042); all by default")
        parser.add_argument("--days", type=float, default=0.0)
        parser.add_argument("--hours", type=float, default=0.0)
        parser.add_argument(
            "--end-now",
            action="store_true",
            help="end the games whose time ran out from this process, without the sweep",
        )

    def handle(self, *args: object, **options: object) -> None:
        if not settings.DEMO_TIME_TRAVEL:
            raise CommandError("Time travel is for demonstrations: set DEMO_TIME_TRAVEL=1.")
        days, hours = options["days"], options["hours"]
        assert isinstance(days, float) and isinstance(hours, float)
        if not (days >= 0 and hours >= 0):  # also refuses NaN
            raise CommandError("Say how far to travel forward: --days or --hours above 0.")
        try:
            by = dt.timedelta(days=days, hours=hours)
        except OverflowError as exc:
            raise CommandError("That is too far to travel.") from exc
        if by <= dt.timedelta(0):
            raise CommandError("Say how far to travel forward: --days or --hours above 0.")
        game_id = None
        if options["game"] is not None:
            game_id = Game.pk_from_public_id(str(options["game"]))
            if game_id is None:
                raise CommandError(f"Not a game number: {options['game']!r} (e.g. P0000042).")
        try:
            moved = advance_clocks(by=by, game_id=game_id)
        except OverflowError as exc:
            raise CommandError("That is too far to travel.") from exc
        if options["end_now"]:
            ended = expire_due_games()
            self.stdout.write(
                f"Moved the clocks of {moved} game(s) by {by}; {ended} game(s) ran out of time."
            )
            return
        due = Game.objects.filter(
            status=Game.Status.ACTIVE, deadline__lte=timezone.now(), paused_at__isnull=True
        ).count()
        self.stdout.write(
            f"Moved the clocks of {moved} game(s) by {by}; {due} game(s) have run out of time:"
            f" the service's clock sweep ends them within {settings.CLOCK_SWEEP_SECONDS} s"
            " (manage.py expire_games ends them now)."
        )
