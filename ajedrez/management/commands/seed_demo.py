"""``manage.py seed_demo``: the demo administrator, players and games (idempotent)."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from ajedrez import demo


class Command(BaseCommand):
    help = "Create the demo administrator, players and games (once), and print the logins."

    def handle(self, *args, **options) -> None:
        credentials = demo.seed()
        self.stdout.write(
            self.style.SUCCESS(
                f"Demo administrator: {credentials.admin_username} / "
                f"{credentials.admin_password}"
            )
        )
        self.stdout.write(
            f"Demo players: {', '.join(credentials.players)} "
            f"(password {credentials.player_password})"
        )
