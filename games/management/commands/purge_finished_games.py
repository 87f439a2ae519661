"""Delete games finished more than N days ago (AdmChess "Eliminar Partidas"); active games stay."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.services import delete_finished_games


class Command(BaseCommand):
    help = "Delete games finished more than --days days ago. Games in progress are always kept."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--days",
            type=int,
            required=True,
            help="Delete games finished more than this many days ago (0: every finished game).",
        )

    def handle(self, *args: object, days: int, **options: object) -> None:
        if days < 0:
            raise CommandError("--days must be 0 or more.")
        deleted = delete_finished_games(older_than_days=days)
        self.stdout.write(f"Deleted {deleted} finished game(s) older than {days} day(s).")
