"""What keeps the processes of a parallel test run (pytest-xdist) apart.

Each worker already has a test database of its own (pytest-django names it after the
worker), its own free ports (``tests.servers.free_port``) and its own temporary
directories. What remains shared is Redis: this gives each worker a database there."""

from __future__ import annotations

import os
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from django.conf import settings

# Redis has databases 0-15 unless configured otherwise; 0 stays for runs in one process.
REDIS_DATABASES = 16


def redis_url_for_worker(url: str, worker: str) -> str:
    """``url`` on a Redis database of ``worker``'s own (``gw0`` → 1, ``gw1`` → 2, …).

    Game and player ids repeat across the workers' test databases, so on one Redis
    database their channel-layer groups (``game-1``…) and the servers' cache keys (request
    counters of 127.0.0.1) would mix. The number goes in the URL rather than in a key
    prefix because the servers the tests start in other processes read only
    ``REDIS_URL``."""
    index = int(worker.removeprefix("gw")) + 1
    if index >= REDIS_DATABASES:
        raise RuntimeError(f"{worker}: Redis has no database left for it; run fewer workers")
    parts = urlsplit(url)
    query = urlencode([(key, value) for key, value in parse_qsl(parts.query) if key != "db"])
    return urlunsplit(parts._replace(path=f"/{index}", query=query))


def use_the_workers_own_redis_database() -> None:
    """Under pytest-xdist with ``REDIS_URL`` set, move this worker to its own Redis
    database: in the settings, already loaded, and in the environment the servers it
    starts inherit."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if not worker or not os.environ.get("REDIS_URL"):
        return
    url = os.environ["REDIS_URL"] = redis_url_for_worker(os.environ["REDIS_URL"], worker)
    settings.REDIS_URL = url
    for host in settings.CHANNEL_LAYERS["default"]["CONFIG"]["hosts"]:
        host["address"] = url
    settings.CACHES["default"]["LOCATION"] = url
