"""``manage.py name_openings``: name the opening of every stored game that has none."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games import services


class Command(BaseCommand):
    help = (
        "Give each stored game without an opening the named opening its moves reached "
        "(for games stored before openings were kept). Safe to run again."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--batch-size", type=int, default=500)

    def handle(self, *args, **options) -> None:
        if options["batch_size"] < 1:
            raise CommandError("--batch-size must be at least 1")
        named = services.name_openings(batch_size=options["batch_size"])
        self.stdout.write(f"{named} games named")
