"""Replay every game's stored moves from the start and report those that do not replay."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser, no_translations

from games.integrity import DEFAULT_BATCH_SIZE, check_games


class Command(BaseCommand):
    help = (
        "Replay every game's stored moves from the starting position and list the games "
        "whose moves are no moves or illegal, whose stored SAN or positions differ from the "
        "replay, or whose position, move number or status do not match where the moves "
        "lead. Exits with status 1 when any game is listed."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--batch-size",
            type=int,
            default=DEFAULT_BATCH_SIZE,
            help=f"Games read per query, with their moves (default {DEFAULT_BATCH_SIZE}).",
        )

    @no_translations
    def handle(self, *args: object, batch_size: int, **options: object) -> None:
        if batch_size < 1:
            raise CommandError("--batch-size must be 1 or more.")
        checked = failing = 0
        for report in check_games(batch_size=batch_size):
            checked += 1
            if report.problems:
                failing += 1
                self.stdout.write(f"{report.public_id}: {'; '.join(report.problems)}")
        if failing:
            raise CommandError(
                f"{failing} of {checked} game(s) do not replay from the start.", returncode=1
            )
        self.stdout.write(f"Checked {checked} game(s): every one replays from the start.")
