"""End the games whose time per move has run out (for a cron line, e.g. every minute).

``manage.py serve`` runs the same sweep every ``CLOCK_SWEEP_SECONDS`` itself; a
deployment that runs the web and the gateway as separate processes runs this command
instead (or as well: sweeps running at once end each game once).
"""

from __future__ import annotations

from django.core.management.base import BaseCommand

from games.services import expire_due_games


class Command(BaseCommand):
    help = "End every game whose deadline has passed (a loss on time, a draw, or an abort)."

    def handle(self, *args: object, **options: object) -> None:
        ended = expire_due_games()
        self.stdout.write(f"Ended {ended} game(s) whose time had run out.")
