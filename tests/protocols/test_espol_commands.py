"""``manage.py run_espol_server`` and ``manage.py espol_client`` as people run them."""

from __future__ import annotations

import io
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import connection

from legacy_tcp.client import EspolClient

pytestmark = pytest.mark.django_db(transaction=True)

ROOT = Path(__file__).resolve().parents[2]


def database_url() -> str:
    """The test database as a DATABASE_URL, for a child process."""
    db = connection.settings_dict
    if db["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{db['NAME']}"
    user = db["USER"] + (f":{db['PASSWORD']}" if db["PASSWORD"] else "")
    return f"postgresql://{user}@{db['HOST']}:{db['PORT'] or 5432}/{db['NAME']}"


def test_run_espol_server_serves_and_stops_on_sigterm(alice):
    env = {**os.environ, "DATABASE_URL": database_url(), "PYTHONUNBUFFERED": "1"}
    env.pop("REDIS_URL", None)
    child = subprocess.Popen(
        [sys.executable, "manage.py", "run_espol_server", "--port", "0"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        banner = child.stdout.readline()
        port = int(re.search(r":(\d+)", banner).group(1))
        client = EspolClient("127.0.0.1", port)
        # USER proves the child reads the test database (its password hashers differ).
        assert client.send("USER:alice").code == 101
        child.send_signal(signal.SIGTERM)
        assert child.wait(timeout=20) == 0
        assert client.receive() is None
        client.close()
    finally:
        if child.poll() is None:
            child.kill()


def test_run_espol_server_refuses_a_certificate_without_its_key(db):
    from django.core.management.base import CommandError

    with pytest.raises(CommandError):
        call_command("run_espol_server", "--port", "0", "--certfile", "cert.pem")


def test_espol_client_prints_decoded_responses(server, alice):
    out = io.StringIO()
    call_command(
        "espol_client",
        "--port",
        str(server.port),
        "-c",
        "USER:alice",
        "-c",
        "JUEG:bob",
        "-c",
        "QUIT",
        stdout=out,
    )
    assert out.getvalue().splitlines() == [
        "> USER:alice",
        "101 [5 bytes] alice",
        "> JUEG:bob",
        "803 [30 bytes] login required: USER then PASS",
        "> QUIT",
        "(connection closed)",
    ]
