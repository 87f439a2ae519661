"""A password hasher that holds every check until a test lets it go."""

from __future__ import annotations

import os
import threading

from django.contrib.auth.hashers import MD5PasswordHasher

from accounts.hashers import BoundedHashing


class GatedHasher(MD5PasswordHasher):
    """MD5 whose ``verify`` waits for ``gate``, counting the checks that are waiting.

    It shows which threads a gateway spends on password checks: while the gate is shut,
    the checks in flight keep their threads busy exactly as a slow PBKDF2 would.
    """

    algorithm = "gated_md5"
    gate = threading.Event()
    waiting = 0
    _lock = threading.Lock()

    def verify(self, password: str, encoded: str) -> bool:
        with GatedHasher._lock:
            GatedHasher.waiting += 1
        try:
            GatedHasher.gate.wait(timeout=60)
        finally:
            with GatedHasher._lock:
                GatedHasher.waiting -= 1
        return super().verify(password, encoded)


class _PolicyRecording(MD5PasswordHasher):
    """MD5 that notes the scheduling policy of each thread that checks a password."""

    seen: list[int] = []

    def verify(self, password: str, encoded: str) -> bool:
        _PolicyRecording.seen.append(
            os.sched_getscheduler(threading.get_native_id())
        )
        return super().verify(password, encoded)


class PolicyRecordingHasher(BoundedHashing, _PolicyRecording):
    """The same, on the project's hashing threads (accounts.hashers)."""

    algorithm = "policy_md5"
