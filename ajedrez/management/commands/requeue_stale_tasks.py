"""Put back in the queue the background tasks left "Running" by a worker that died."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from ajedrez.task_worker import requeue_stale


class Command(BaseCommand):
    help = (
        "Put back in the queue the tasks marked running for more than --minutes minutes "
        "(default 10): a worker killed in the middle of one (SIGKILL, the machine lost) "
        "leaves it so for good. Each runs again from the start, so the time must be well "
        "above what a task takes (a mail: EMAIL_TIMEOUT seconds per attempt)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--minutes", type=int, default=10)

    def handle(self, *args: object, minutes: int, **options: object) -> None:
        # Below twice a send's time limit a task still in hand could be run twice at once.
        least = max(1, int(2 * settings.EMAIL_TIMEOUT // 60) + 1)
        if minutes < least:
            raise CommandError(
                f"--minutes must be at least {least} (twice EMAIL_TIMEOUT, rounded up)."
            )
        count = requeue_stale(older_than=timedelta(minutes=minutes))
        self.stdout.write(
            f"Put {count} task(s) running for more than {minutes} minute(s) back in the queue."
        )
