"""Delete the guests that never played a game through, after a while (from cron)."""

from __future__ import annotations

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.services import purge_idle_guests


class Command(BaseCommand):
    help = (
        "Delete guest accounts older than --hours (GUEST_IDLE_HOURS by default) with no game "
        "in progress and none in which both sides moved, and their games."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--hours", type=int, default=None, help="Age of the guests to purge.")

    def handle(self, *args: object, hours: int | None, **options: object) -> None:
        hours = settings.GUEST_IDLE_HOURS if hours is None else hours
        if hours < 0:
            raise CommandError("--hours must be 0 or more.")
        purged = purge_idle_guests(older_than_hours=hours)
        self.stdout.write(f"Deleted {purged} idle guest(s) older than {hours} hour(s).")
