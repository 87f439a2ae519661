"""Password hashers that never take every core of the process.

An Argon2 hash costs tens of milliseconds of CPU, and anyone may cause one: a
subscription request, a login with a wrong password, an unknown name (hashed too, so
that the answer's time does not tell which names exist). Without a bound, a handful of
anonymous clients kept every core hashing, and a player's move, a few milliseconds of
work, waited its turn for the CPU among them. With these hashers every hash runs on the
process's hashing threads, web and ESPOL together: ``PASSWORD_HASHES_AT_ONCE`` of them
(by default one fewer than the cores, at least one), at a lower priority than the rest
of the process. The other hashes queue, so logins wait under such an attack and moves
do not, neither for a thread nor for the CPU.

The algorithms are Django's own, under their own names: hashes stored before verify,
and Django upgrades them as it always does.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from django.conf import settings
from django.contrib.auth import hashers

# The hashing threads run under Linux's SCHED_IDLE policy: the scheduler gives them a
# core only when no other thread wants it, and takes it back the moment one does. A burst
# of logins then fills the cores' idle time, and a move arriving meanwhile is not queued
# behind the hashes for the CPU (bench/espol_logins.py). Only the hash runs there, never
# a query: a thread this low holding a database lock would hold up the moves waiting
# for it. Where the policy is refused, a niceness this much above the process's instead.
HASHING_NICENESS = 10

_T = TypeVar("_T")

_pool: tuple[int, ThreadPoolExecutor] | None = None
_pool_lock = threading.Lock()
# Set in the pool's threads: a hasher's verify may call its own encode (PBKDF2 does),
# which then runs where it is instead of waiting for a thread of its own.
_in_pool = threading.local()


def lower_this_threads_priority() -> None:
    """Make the calling thread, one kept for hashing, yield the CPU to the others."""
    # Only on Linux do these calls with a thread's id mean that thread alone; elsewhere
    # the id could name another process. Left as it is there.
    if sys.platform != "linux":
        return
    tid = threading.get_native_id()
    try:
        os.sched_setscheduler(tid, os.SCHED_IDLE, os.sched_param(0))
    except OSError:
        with contextlib.suppress(OSError):
            os.setpriority(
                os.PRIO_PROCESS, tid, os.getpriority(os.PRIO_PROCESS, tid) + HASHING_NICENESS
            )


def _start_hashing_thread() -> None:
    _in_pool.active = True
    lower_this_threads_priority()


def _hashing_pool() -> ThreadPoolExecutor:
    """The process's hashing threads, made anew if the setting changed (tests change it)."""
    global _pool
    size = max(1, settings.PASSWORD_HASHES_AT_ONCE)
    with _pool_lock:
        if _pool is None or _pool[0] != size:
            if _pool is not None:
                _pool[1].shutdown(wait=False)
            _pool = (size, ThreadPoolExecutor(
                max_workers=size, thread_name_prefix="hashing", initializer=_start_hashing_thread
            ))
        return _pool[1]


def run_hash(function: Callable[..., _T], *args: Any, **kwargs: Any) -> _T:
    """``function(*args, **kwargs)`` on one of the process's hashing threads, waiting for
    it: at most ``PASSWORD_HASHES_AT_ONCE`` at a time, the others queued."""
    if getattr(_in_pool, "active", False):
        return function(*args, **kwargs)
    return _hashing_pool().submit(function, *args, **kwargs).result()


class BoundedHashing:
    """Mixin for a Django hasher: ``encode`` and ``verify`` run on the hashing threads."""

    def encode(self, password: str, salt: str, *args: Any, **kwargs: Any) -> str:
        return run_hash(super().encode, password, salt, *args, **kwargs)  # type: ignore[misc]

    def verify(self, password: str, encoded: str) -> bool:
        return run_hash(super().verify, password, encoded)  # type: ignore[misc]


class Argon2PasswordHasher(BoundedHashing, hashers.Argon2PasswordHasher):
    """Argon2id at one of the OWASP Password Storage Cheat Sheet's configurations, which
    it holds equally strong: 9 MiB of memory, 4 iterations, parallelism 1. Of its five
    (19 MiB × 2, 12 × 3, 9 × 4, 7 × 5, 46 × 1) this one checks fastest here: 15.0 ms p50
    on one core against 19.6 ms for 19 × 2 (bench/espol_logins.py's machine). Django's
    default (100 MiB, 2, 8) took 124 ms wall and 193 ms of CPU per check, nearly two
    cores. Hashes made with other parameters are re-made at the next login (Django's
    ``must_update``)."""

    time_cost = 4
    memory_cost = 9 * 1024  # KiB
    parallelism = 1


class PBKDF2PasswordHasher(BoundedHashing, hashers.PBKDF2PasswordHasher):
    pass


class PBKDF2SHA1PasswordHasher(BoundedHashing, hashers.PBKDF2SHA1PasswordHasher):
    pass
