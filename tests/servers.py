"""What tests that start the service in another process share: a free port, the test
database's URL for that process, a Daphne process, and waiting for its database sessions
to end."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import quote

import pytest
from django.conf import settings
from django.db import connection

ROOT = Path(__file__).resolve().parent.parent


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


class DaphneProcess:
    """``daphne ajedrez.asgi:application`` on the test database, with this environment's
    REDIS_URL (none: the in-memory layer, within that process)."""

    def __init__(self, database_url: str, log_path: Path) -> None:
        self.port = free_port()
        self.log_path = log_path
        env = {
            **os.environ,
            "DATABASE_URL": database_url,
            "DJANGO_SETTINGS_MODULE": "ajedrez.settings",
            "SECRET_KEY": settings.SECRET_KEY,
            "ALLOWED_HOSTS": "127.0.0.1",
            "LOG_LEVEL": "WARNING",
        }
        with open(log_path, "wb") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(self.port),
                 "ajedrez.asgi:application"],
                cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + 30
        while True:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    self.kill()
                    pytest.fail(f"daphne did not start:\n{self.log()[-3000:]}")
                time.sleep(0.1)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def kill(self) -> None:
        """End the process at once: its sockets drop without a closing handshake."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()
