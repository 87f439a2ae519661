"""The database threads of a line gateway.

The event loop only moves bytes; every command that needs the database runs on a thread
of a pool the server owns (``thread_sensitive=False``). Each thread keeps its own Django
connection open between commands, so the database sees at most that many connections
however many clients are connected; a connection an error left unusable is closed after
the command (as Django's ``close_old_connections`` would), and the server's ``stop()``
closes what the threads still hold.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import wait as wait_futures
from typing import Any

from django.db import connections


def release_broken_connections() -> None:
    """Close this thread's database connections that an error left unusable.

    Healthy connections stay open: the pool has a fixed number of threads, so the database
    sees at most that many connections, and reopening one per command (``CONN_MAX_AGE=0``)
    would cost more than the command (2 ms on SQLite with its PRAGMAs, more on PostgreSQL).
    """
    for conn in connections.all(initialized_only=True):
        if conn.connection is None or not conn.errors_occurred:
            continue
        if conn.is_usable():
            conn.errors_occurred = False
        else:
            conn.close()


def run_releasing(function: Callable[..., Any], *args: Any) -> Any:
    """Run ``function`` in a worker thread, on the thread's own database connection."""
    try:
        return function(*args)
    finally:
        release_broken_connections()


def close_executor(executor: ThreadPoolExecutor, threads: int) -> None:
    """Close the database connection each worker thread holds, then end the threads."""
    barrier = threading.Barrier(threads)

    def close_own_connection() -> None:
        connections.close_all()
        # Waiting here keeps this thread busy, so each call lands on another thread.
        with contextlib.suppress(threading.BrokenBarrierError):
            barrier.wait(timeout=2.0)

    wait_futures([executor.submit(close_own_connection) for _ in range(threads)])
    executor.shutdown(wait=True)
