"""Telling a part that is down (the database, Redis) from a bug, for every door: pages
and API calls answer 503 "try again" (:mod:`ajedrez.faults`), sockets close with a code
their page retries after (:mod:`games.consumers`)."""

from __future__ import annotations

from collections.abc import Iterator

from django.db import InterfaceError, OperationalError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

_DATABASE_DOWN = (OperationalError, InterfaceError)
_REDIS_DOWN = (RedisConnectionError, RedisTimeoutError, ConnectionRefusedError)


def _chain(error: BaseException | None) -> Iterator[BaseException]:
    """``error`` and the errors it was raised from or during (a wrapper hides the cause)."""
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        yield error
        error = error.__cause__ or error.__context__


def unavailable_part(error: BaseException | None) -> str | None:
    """``"database"`` or ``"redis"`` when ``error`` says that part cannot be reached,
    else ``None`` (a bug, answered as such)."""
    for link in _chain(error):
        if isinstance(link, _REDIS_DOWN):
            return "redis"
        if isinstance(link, _DATABASE_DOWN):
            return "database"
    return None
