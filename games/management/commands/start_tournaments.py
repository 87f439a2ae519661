"""Start the tournaments whose start time has come (for a cron line, e.g. every minute).

``manage.py serve`` does the same about once a minute; a deployment that runs the web and
the worker as separate processes runs this command. Each event starts once, under its
row's lock, however many run at once.
"""

from __future__ import annotations

from django.core.management.base import BaseCommand

from games.services import start_due_tournaments


class Command(BaseCommand):
    help = "Start (or call off, with too few players) the tournaments whose time has come."

    def handle(self, *args: object, **options: object) -> None:
        changed = start_due_tournaments()
        self.stdout.write(f"Started or called off {changed} tournament(s).")
