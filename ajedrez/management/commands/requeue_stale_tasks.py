"""Put back in the queue the background tasks left "Running" by a worker that died."""

from __future__ import annotations

import math
from datetime import timedelta

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from ajedrez.task_worker import requeue_stale


class Command(BaseCommand):
    help = (
        "Put back in the queue the tasks marked running for more than --minutes minutes "
        "(default 10): a worker killed in the middle of one (SIGKILL, the machine lost) "
        "leaves it so for good. Each runs again from the start, so the time must be well "
        "above what a task can take: a mail's SMTP exchange is some eight steps, each "
        "allowed EMAIL_TIMEOUT seconds."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--minutes", type=int, default=10)

    def handle(self, *args: object, minutes: int, **options: object) -> None:
        # A send still in hand must not be run a second time beside itself: it may take
        # EMAIL_TIMEOUT for each step of the SMTP exchange (connect, EHLO, STARTTLS,
        # AUTH, MAIL, RCPT, DATA, QUIT), so ten of them is the least allowed.
        least = max(1, math.ceil(10 * settings.EMAIL_TIMEOUT / 60))
        if minutes < least:
            raise CommandError(
                f"--minutes must be at least {least} (ten times EMAIL_TIMEOUT, in minutes)."
            )
        count = requeue_stale(older_than=timedelta(minutes=minutes))
        self.stdout.write(
            f"Put {count} task(s) running for more than {minutes} minute(s) back in the queue."
        )
