"""At most PASSWORD_HASHES_AT_ONCE password hashes run at a time in the process; the
others wait for a slot (accounts.hashers)."""

from __future__ import annotations

import os
import sys
import threading

import pytest
from django.contrib.auth.hashers import MD5PasswordHasher, make_password

from accounts import hashers as bounded
from tests.accounts.hashers import HeldHasher

PATIENCE = 30.0


class HeldBoundedHasher(bounded.BoundedHashing, HeldHasher):
    algorithm = "held_bounded_md5"


def test_hashes_beyond_the_bound_wait_for_a_slot(settings):
    settings.PASSWORD_HASHES_AT_ONCE = 2
    HeldHasher.reset()
    hasher = HeldBoundedHasher()
    done: list[str] = []
    threads = [
        threading.Thread(target=lambda: done.append(hasher.encode("pw", hasher.salt())))
        for _ in range(4)
    ]
    for thread in threads:
        thread.start()
    try:
        assert HeldHasher.wait_for_in_flight(2, PATIENCE)
        # The other two wait for a slot: a third never starts while two are held.
        assert not HeldHasher.wait_for_in_flight(3, 0.5)
        assert HeldHasher.in_flight == 2
    finally:
        HeldHasher.release.set()
        for thread in threads:
            thread.join(PATIENCE)
    assert len(done) == 4


def test_a_verify_that_encodes_again_takes_one_slot_only(settings):
    # PBKDF2's verify calls its own encode: with one slot, that must not wait for itself.
    settings.PASSWORD_HASHES_AT_ONCE = 1
    hasher = bounded.PBKDF2PasswordHasher()
    encoded = hasher.encode("pw", hasher.salt(), iterations=1000)
    verified: list[bool] = []
    thread = threading.Thread(target=lambda: verified.append(hasher.verify("pw", encoded)))
    thread.start()
    thread.join(PATIENCE)
    assert verified == [True]


def test_the_project_hashers_keep_djangos_algorithms(production_hashers):
    # Hashes stored before verify, and Django still upgrades PBKDF2 ones to Argon2.
    assert bounded.Argon2PasswordHasher.algorithm == "argon2"
    assert bounded.PBKDF2PasswordHasher.algorithm == "pbkdf2_sha256"
    assert make_password("pw").startswith("argon2$")


@pytest.mark.skipif(sys.platform != "linux", reason="per-thread scheduling is Linux's")
def test_hashes_run_only_on_idle_cpu_and_the_caller_keeps_its_priority(settings):
    def policy() -> int:
        return os.sched_getscheduler(threading.get_native_id())

    seen: list[int] = []

    class Noting(MD5PasswordHasher):
        def encode(self, password: str, salt: str) -> str:
            seen.append(policy())
            return super().encode(password, salt)

    class Recording(bounded.BoundedHashing, Noting):
        algorithm = "recording_md5"

    caller = policy()
    assert caller != os.SCHED_IDLE
    hasher = Recording()
    # verify calls encode: both on a hashing thread, nested without a second one.
    assert hasher.verify("pw", hasher.encode("pw", hasher.salt()))
    assert seen == [os.SCHED_IDLE] * 2
    assert policy() == caller
