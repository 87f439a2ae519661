"""Queue the daily digests that are due (for a cron line, e.g. every 10 minutes).

``manage.py serve`` does the same about once a minute; a deployment that runs the web and
the worker as separate processes runs this command (runs at once send each digest once).
"""

from __future__ import annotations

from django.core.management.base import BaseCommand

from games.digest import queue_due_digests


class Command(BaseCommand):
    help = "Queue the daily e-mail of the games waiting for each player whose hour it is."

    def handle(self, *args: object, **options: object) -> None:
        queued = queue_due_digests()
        self.stdout.write(f"Queued {queued} daily digest(s).")
