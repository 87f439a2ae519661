"""Presence across processes (accounts.presence) on Redis: a mark written by one
process is read by another, a process closing its sockets leaves the others' marks, and
the mark of a process that died lapses (by the clock, and in Redis by the key's TTL)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
import time_machine

from accounts import presence

pytestmark = pytest.mark.redis

ROOT = Path(__file__).resolve().parent.parent.parent
TTL = 90


@pytest.fixture
def redis_cache(settings):
    """The cache of the settings on REDIS_URL (the tests' default is a local one)."""
    prefix = f"test-presence-{uuid.uuid4().hex}"
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": os.environ["REDIS_URL"],
            "KEY_PREFIX": prefix,
        }
    }
    settings.PRESENCE_TTL_SECONDS = TTL
    yield prefix
    presence._open.clear()


@pytest.fixture
def player_id(redis_cache):
    from django.core.cache import cache

    player = 10_000_000 + uuid.uuid4().int % 1_000_000
    yield player
    cache.delete(presence._key(player))


def _redis_ttl(key: str) -> int:
    """The TTL Redis itself holds for a presence key (-2: no such key)."""
    from django.core.cache import cache

    raw = cache._cache  # type: ignore[attr-defined]
    full = cache.make_and_validate_key(key)
    return raw.get_client(full).ttl(full)


def _other_process(prefix: str, code: str, tmp_path: Path) -> str:
    """Run ``code`` in another Python process, on the same Redis with the same prefix."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "ajedrez.settings",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'unused.sqlite3'}",
        "SECRET_KEY": "test-only-secret",
        "PRESENCE_TTL_SECONDS": str(TTL),
        "PRESENCE_TEST_PREFIX": prefix,
    }
    script = (
        "import os, django; django.setup()\n"
        "from django.conf import settings\n"
        "settings.CACHES['default']['KEY_PREFIX'] = os.environ['PRESENCE_TEST_PREFIX']\n"
        "from accounts import presence\n" + code
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_mark_made_in_another_process_is_seen_here(player_id, redis_cache, tmp_path):
    assert not presence.is_online(player_id)
    # The other process opens a socket and dies without closing it (nothing renews).
    other = _other_process(
        redis_cache, f"presence.socket_opened({player_id}); print(presence.PROCESS)", tmp_path
    ).strip()
    assert other and other != presence.PROCESS
    assert presence.is_online(player_id)
    # Redis drops the key by itself when the mark lapses.
    assert 0 < _redis_ttl(presence._key(player_id)) <= TTL
    # And it counts as gone from then on, whatever the key's TTL says.
    with time_machine.travel(time.time() + TTL + 1, tick=False):
        assert not presence.is_online(player_id)


def test_a_mark_made_here_is_seen_by_another_process(player_id, redis_cache, tmp_path):
    presence.socket_opened(player_id)
    seen = _other_process(redis_cache, f"print(presence.is_online({player_id}))", tmp_path)
    assert seen.strip() == "True"
    presence.socket_closed(player_id)
    seen = _other_process(redis_cache, f"print(presence.is_online({player_id}))", tmp_path)
    assert seen.strip() == "False"
    assert _redis_ttl(presence._key(player_id)) == -2  # the key itself is gone


def test_another_process_closing_its_sockets_keeps_this_mark(
    player_id, redis_cache, tmp_path
):
    presence.socket_opened(player_id)
    _other_process(
        redis_cache,
        f"presence.socket_opened({player_id}); presence.socket_closed({player_id})",
        tmp_path,
    )
    assert presence.is_online(player_id)
    presence.socket_closed(player_id)
    assert not presence.is_online(player_id)


def test_renewal_here_keeps_the_mark_past_the_first_ttl(player_id, redis_cache):
    start = time.time()
    with time_machine.travel(start, tick=False) as clock:
        presence.socket_opened(player_id)
        for _ in range(4):
            clock.shift(TTL / 3)
            presence.renew()
        assert presence.is_online(player_id)
        assert 0 < _redis_ttl(presence._key(player_id)) <= TTL
    presence.socket_closed(player_id)
