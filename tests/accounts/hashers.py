"""Password hashers that let a test see when and where a hash runs."""

from __future__ import annotations

import threading

from django.contrib.auth.hashers import MD5PasswordHasher
from django.db import transaction


class HeldHasher(MD5PasswordHasher):
    """MD5 whose ``encode`` stays open until the test lets it go, as a slow PBKDF2 would.

    ``in_flight`` counts the hashes begun and not yet let go; ``changed`` is notified when
    it grows, so a test can wait for several hashes to be running at once.
    """

    algorithm = "held_md5"
    release = threading.Event()
    changed = threading.Condition()
    in_flight = 0

    @classmethod
    def reset(cls) -> None:
        cls.release = threading.Event()
        cls.changed = threading.Condition()
        cls.in_flight = 0

    @classmethod
    def wait_for_in_flight(cls, count: int, timeout: float) -> bool:
        with cls.changed:
            return cls.changed.wait_for(lambda: cls.in_flight >= count, timeout)

    def encode(self, password: str, salt: str) -> str:
        with HeldHasher.changed:
            HeldHasher.in_flight += 1
            HeldHasher.changed.notify_all()
        try:
            # Bounded, so that a failing test cannot hang the run.
            HeldHasher.release.wait(timeout=60)
            return super().encode(password, salt)
        finally:
            with HeldHasher.changed:
                HeldHasher.in_flight -= 1


class RecordingHasher(MD5PasswordHasher):
    """MD5 that records, for each hash, whether it ran inside a transaction."""

    algorithm = "recording_md5"
    inside_transaction: list[bool] = []

    def encode(self, password: str, salt: str) -> str:
        RecordingHasher.inside_transaction.append(transaction.get_connection().in_atomic_block)
        return super().encode(password, salt)
