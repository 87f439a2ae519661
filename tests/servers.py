"""What tests that start the service in another process share: a free port, the test
database's URL for that process, the collected static files, a Daphne process, and
waiting for its database sessions to end."""

from __future__ import annotations

import fcntl
import hashlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import quote

import pytest
from django.conf import settings
from django.db import connection

ROOT = Path(__file__).resolve().parent.parent
# collectstatic's output for the test run, kept between runs (``var/`` is not tracked).
TEST_STATIC_ROOT = ROOT / "var" / "test-static"


def in_ci(env: Mapping[str, str]) -> bool:
    """Whether ``env`` says this runs in CI (``CI`` set, as ``.ci/run`` does): there a
    missing tool fails the tests that need it instead of skipping them."""
    return env.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _static_sources_fingerprint() -> str:
    """A digest of every file collectstatic would collect (name, size, mtime) and of the
    storage's code: when it is unchanged, the collected files are still right."""
    from importlib.metadata import version

    from django.contrib.staticfiles import finders

    digest = hashlib.sha256(f"{version('django')} {version('whitenoise')}".encode())
    digest.update(Path(ROOT / "ajedrez" / "static_storage.py").read_bytes())
    entries = []
    for finder in finders.get_finders():
        for path, storage in finder.list(None):
            stat = os.stat(storage.path(path))
            prefix = getattr(storage, "prefix", None) or ""
            entries.append(f"{prefix}/{path} {stat.st_size} {stat.st_mtime_ns}")
    digest.update("\n".join(sorted(entries)).encode())
    return digest.hexdigest()


def collect_static(root: Path = TEST_STATIC_ROOT) -> Path:
    """Run collectstatic into ``root`` unless it already holds these sources' files.

    Pages name the hashed files of the manifest, so every test that renders one needs
    them; collecting takes seconds, checking the fingerprint milliseconds. A lock keeps
    two test runs of one checkout from collecting into the same place at once.
    """
    from django.core.management import call_command
    from django.test import override_settings

    root.parent.mkdir(parents=True, exist_ok=True)
    with open(root.parent / f".{root.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        fingerprint = _static_sources_fingerprint()
        stamp = root.parent / f".{root.name}.fingerprint"
        if stamp.exists() and stamp.read_text() == fingerprint:
            return root
        with override_settings(STATIC_ROOT=root):
            call_command("collectstatic", interactive=False, clear=True, verbosity=0)
        stamp.write_text(fingerprint)
    return root


def database_url_for_servers() -> str:
    """The URL of the test database this pytest process created, for a server process."""
    # Refused (by pytest-django) unless the test asked for the database: a test that
    # starts a server on it is then one that runs on PostgreSQL too (tests/passes.py).
    # A connection opened only for this check (in another thread, say) is closed again:
    # left open, it would keep the test database from being dropped.
    opened_here = connection.connection is None
    connection.ensure_connection()
    if opened_here:
        connection.close()
    db = connection.settings_dict
    if db["ENGINE"].endswith("sqlite3"):
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


def session_cookie(user) -> str:
    """A ``Cookie`` header's value that logs a server process in as ``user``."""
    from django.test import Client

    client = Client()
    client.force_login(user)
    name = settings.SESSION_COOKIE_NAME
    return f"{name}={client.cookies[name].value}"


def server_environment(database_url: str) -> dict[str, str]:
    """The environment of a server process on the test database, with this test run's
    collected static files and this environment's REDIS_URL (none: the in-memory layer,
    within that process)."""
    return {
        **os.environ,
        "DATABASE_URL": database_url,
        "DJANGO_SETTINGS_MODULE": "ajedrez.settings",
        "SECRET_KEY": settings.SECRET_KEY,
        "STATIC_ROOT": str(settings.STATIC_ROOT),
        "ALLOWED_HOSTS": "127.0.0.1",
        "LOG_LEVEL": "WARNING",
    }


class ServerProcess:
    """A command serving ``port`` on loopback in a process of its own, its output in
    ``log_path``; the constructor returns once the port accepts connections."""

    name = "server"

    def __init__(
        self, argv: list[str], port: int, env: dict[str, str], log_path: Path
    ) -> None:
        self.port = port
        self.log_path = log_path
        with open(log_path, "wb") as log:
            self.process = subprocess.Popen(
                argv, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT
            )
        deadline = time.monotonic() + 30
        while True:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    self.kill()
                    pytest.fail(f"{self.name} did not start:\n{self.log()[-3000:]}")
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


class DaphneProcess(ServerProcess):
    """``daphne ajedrez.asgi:application`` on the test database."""

    name = "daphne"

    def __init__(self, database_url: str, log_path: Path, *options: str) -> None:
        port = free_port()
        super().__init__(
            [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), *options,
             "ajedrez.asgi:application"],
            port, server_environment(database_url), log_path,
        )


class EspolProcess(ServerProcess):
    """``manage.py run_espol_server``, the ESPOL gateway alone, on the test database."""

    name = "the ESPOL gateway"

    def __init__(
        self, database_url: str, log_path: Path, env: Mapping[str, str] | None = None
    ) -> None:
        port = free_port()
        environment = {
            **server_environment(database_url),
            "ESPOL_LOGIN_DELAY": "0",
            # Every test client comes from 127.0.0.1.
            "ESPOL_MAX_PER_ADDRESS": "0",
            **(env or {}),
        }
        super().__init__(
            [sys.executable, "manage.py", "run_espol_server", "--host", "127.0.0.1",
             "--port", str(port)],
            port, environment, log_path,
        )


class ServeProcess(ServerProcess):
    """``manage.py serve`` on the test database, its web only (no gateways, no demo, no
    migrations: the test database has them), with the clock sweep every
    ``sweep_seconds`` and its INFO lines (what each sweep ended) in the log."""

    name = "manage.py serve"

    def __init__(self, database_url: str, log_path: Path, *, sweep_seconds: float) -> None:
        port = free_port()
        environment = {
            **server_environment(database_url),
            "CLOCK_SWEEP_SECONDS": str(sweep_seconds),
            "LOG_LEVEL": "INFO",
        }
        super().__init__(
            [sys.executable, "manage.py", "serve", "--port", str(port), "--no-espol",
             "--no-distribuido", "--no-chessirc", "--no-demo", "--no-migrate",
             "--no-collectstatic"],
            port, environment, log_path,
        )
