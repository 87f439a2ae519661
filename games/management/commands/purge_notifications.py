"""Delete notifications read long ago (NOTIFICATIONS_KEEP_READ_DAYS); unread ones stay."""

from __future__ import annotations

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.notifications import delete_old_read


class Command(BaseCommand):
    help = (
        "Delete notifications read more than --days days ago (default: the "
        "NOTIFICATIONS_KEEP_READ_DAYS setting). Unread notifications are always kept."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--days",
            type=int,
            default=None,
            help="Delete notifications read more than this many days ago.",
        )

    def handle(self, *args: object, days: int | None, **options: object) -> None:
        if days is None:
            days = settings.NOTIFICATIONS_KEEP_READ_DAYS
        if days < 0:
            raise CommandError("--days must be 0 or more.")
        deleted = delete_old_read(older_than_days=days)
        self.stdout.write(f"Deleted {deleted} notification(s) read more than {days} day(s) ago.")
