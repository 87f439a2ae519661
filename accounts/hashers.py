"""Password hashers that never take every core of the process.

An Argon2 hash costs tens of milliseconds of CPU, and anyone may cause one: a
subscription request, a login with a wrong password, an unknown name (hashed too, so
that the answer's time does not tell which names exist). Without a bound, a handful of
anonymous clients kept every core hashing, and a player's move, a few milliseconds of
work, waited its turn for the CPU among them. With these hashers at most
``PASSWORD_HASHES_AT_ONCE`` hashes run at a time in the process, web and ESPOL together
(by default one fewer than the cores, at least one); the others queue, so logins wait
under such an attack and moves do not.

The algorithms are Django's own, under their own names: hashes stored before verify,
and Django upgrades them as it always does.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.conf import settings
from django.contrib.auth import hashers

_slots: tuple[int, threading.BoundedSemaphore] | None = None
_slots_lock = threading.Lock()
# A hasher's verify may call its own encode (PBKDF2 does): one slot per outer call.
_depth = threading.local()


def _hash_slots() -> threading.BoundedSemaphore:
    """The process's slots, made anew if the setting changed (tests change it)."""
    global _slots
    size = max(1, settings.PASSWORD_HASHES_AT_ONCE)
    with _slots_lock:
        if _slots is None or _slots[0] != size:
            _slots = (size, threading.BoundedSemaphore(size))
        return _slots[1]


@contextmanager
def hash_slot() -> Iterator[None]:
    """Hold one of the process's hashing slots (waiting for one) while hashing."""
    depth = getattr(_depth, "value", 0)
    if depth:
        _depth.value = depth + 1
        try:
            yield
        finally:
            _depth.value = depth
        return
    with _hash_slots():
        _depth.value = 1
        try:
            yield
        finally:
            _depth.value = 0


class BoundedHashing:
    """Mixin for a Django hasher: ``encode`` and ``verify`` run in a hashing slot."""

    def encode(self, password: str, salt: str, *args: Any, **kwargs: Any) -> str:
        with hash_slot():
            return super().encode(password, salt, *args, **kwargs)  # type: ignore[misc]

    def verify(self, password: str, encoded: str) -> bool:
        with hash_slot():
            return super().verify(password, encoded)  # type: ignore[misc]


class Argon2PasswordHasher(BoundedHashing, hashers.Argon2PasswordHasher):
    """Argon2id at the OWASP Password Storage Cheat Sheet's first configuration: 19 MiB
    of memory, 2 iterations, parallelism 1. Django's default (100 MiB, 2, 8) took 124 ms
    wall and 193 ms of CPU per check here, nearly two cores; this takes about 20 ms on
    one. Hashes made with other parameters are re-made at the next login (Django's
    ``must_update``)."""

    time_cost = 2
    memory_cost = 19 * 1024  # KiB
    parallelism = 1


class PBKDF2PasswordHasher(BoundedHashing, hashers.PBKDF2PasswordHasher):
    pass


class PBKDF2SHA1PasswordHasher(BoundedHashing, hashers.PBKDF2SHA1PasswordHasher):
    pass
