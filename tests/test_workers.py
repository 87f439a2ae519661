"""A parallel test run's workers each get a Redis database of their own (tests/workers.py)."""

from __future__ import annotations

import pytest

from tests.workers import redis_url_for_worker


def test_each_worker_gets_a_redis_database_of_its_own_after_the_default_one():
    urls = [redis_url_for_worker("redis://127.0.0.1:6379/0", f"gw{n}") for n in range(3)]
    assert urls == [
        "redis://127.0.0.1:6379/1",
        "redis://127.0.0.1:6379/2",
        "redis://127.0.0.1:6379/3",
    ]


def test_a_worker_redis_url_keeps_its_options_but_not_another_database_number():
    url = redis_url_for_worker("redis://:pw@127.0.0.1:6379/0?db=7&socket_timeout=20", "gw1")
    assert url == "redis://:pw@127.0.0.1:6379/2?socket_timeout=20"


def test_more_workers_than_redis_databases_are_refused():
    with pytest.raises(RuntimeError, match="gw15: Redis has no database left"):
        redis_url_for_worker("redis://127.0.0.1:6379/0", "gw15")
