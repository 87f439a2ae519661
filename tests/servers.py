"""What tests that start the service in another process share: a free port, the test
database's URL for that process, and waiting for its database sessions to end."""

from __future__ import annotations

import socket
import time
from urllib.parse import quote

from django.db import connection


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def database_url_for_servers() -> str:
    """The URL of the test database this pytest process created, for a server process."""
    db = connection.settings_dict
    if db["ENGINE"] == "django.db.backends.sqlite3":
        return f"sqlite:///{db['NAME']}"
    auth = quote(db["USER"] or "")
    if db.get("PASSWORD"):
        auth += ":" + quote(db["PASSWORD"])
    return f"postgresql://{auth}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


def wait_for_server_sessions_to_end(timeout: float = 5.0) -> None:
    """PostgreSQL ends a dead client's backend a moment after the client exits; the test
    database cannot be flushed or dropped until it has."""
    if connection.vendor != "postgresql":
        return
    deadline = time.monotonic() + timeout
    with connection.cursor() as cursor:
        while time.monotonic() < deadline:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity"
                " WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
            if cursor.fetchone()[0] == 0:
                return
            time.sleep(0.1)
