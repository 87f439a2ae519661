"""What the API's long answers share: newline-delimited JSON, and database reads run on
the loop's pool."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from channels.db import database_sync_to_async

NDJSON = "application/x-ndjson"


def in_pool(function: Callable[..., Any]) -> Callable[..., Awaitable[Any]]:
    """``function`` run on the event loop's thread pool, not on the request's own
    thread: a stream is a request that lasts hours, and each request's thread keeps its
    database connection until the request ends. On the pool's few threads, every stream
    of the process shares their few connections (``docs/deploy.md``)."""
    return database_sync_to_async(function, thread_sensitive=False)


def ndjson(line: dict[str, Any]) -> bytes:
    return (json.dumps(line, separators=(",", ":")) + "\n").encode()
