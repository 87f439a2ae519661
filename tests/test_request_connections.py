"""An HTTP request served by Daphne closes its database connections when it ends: each
request's synchronous code runs on a thread of its own, which no later request reuses
(``ajedrez.apps.close_request_connections``). Before, every request left a PostgreSQL
connection open until the garbage collector came by, and the API's tests reached
``max_connections``."""

from __future__ import annotations

import time
import urllib.request

import pytest
from django.db import connection

pytestmark = pytest.mark.postgres

REQUESTS = 30


def other_sessions() -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        return cursor.fetchone()[0]


def test_requests_leave_no_database_connection_open(daphne):
    server = daphne()
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))

    for _ in range(REQUESTS):
        with opener.open(f"http://127.0.0.1:{server.port}/healthz", timeout=10) as answer:
            assert answer.status == 200

    # Without the fix: one connection per request (30 and more). A connection closed by
    # its client leaves pg_stat_activity when its server process has ended, a moment
    # later: the count is read until it has come down, for a few seconds at most.
    deadline = time.monotonic() + 3
    while (left := other_sessions()) > 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert left <= 2
