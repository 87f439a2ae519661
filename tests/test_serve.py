"""README command (a): ``manage.py serve`` starts HTTP, WebSocket and the ESPOL gateway in
one process, on a fresh database, collects the static files it serves, runs the task
worker (mail) unless told not to, and stops cleanly on SIGTERM."""

from __future__ import annotations

import os
import queue
import re
import signal
import socket
import sqlite3
import struct
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest
from django.conf import settings

ROOT = Path(__file__).resolve().parent.parent


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _read_frame(sock: socket.socket) -> tuple[bytes, bytes, bytes]:
    header = b""
    while len(header) < 6:
        chunk = sock.recv(6 - len(header))
        assert chunk, "connection closed before a full frame header"
        header += chunk
    (length,) = struct.unpack(">H", header[4:6])
    data = b""
    while len(data) < length:
        data += sock.recv(length - len(data))
    return header[:3], header[3:4], data


def _serve(tmp_path: Path, static_root: Path, *options: str):
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{tmp_path / 'serve.sqlite3'}",
        "SECRET_KEY": "test-only-secret",
        "DEMO_CREDENTIALS_FILE": str(tmp_path / "demo-admin"),
        "STATIC_ROOT": str(static_root),
    }
    env.pop("REDIS_URL", None)
    # A free port may be taken by another process of a parallel run between the probe and
    # serve's bind: then serve says so and is started again on other ports.
    for _attempt in range(3):
        web_port, espol_port, distribuido_port = _free_port(), _free_port(), _free_port()
        chessirc_port = _free_port()
        process = subprocess.Popen(
            [sys.executable, "manage.py", "serve", "--port", str(web_port),
             "--espol-port", str(espol_port), "--distribuido-port", str(distribuido_port),
             "--chessirc-port", str(chessirc_port), *options],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        lines: list[str] = []
        taken = False
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            line = process.stdout.readline()
            if not line:
                break
            lines.append(line)
            if "Address already in use" in line:
                taken = True
                break
            if "chessirc gateway:" in line:
                break
        if not taken:
            break
        process.kill()
        process.wait(10)
    process.distribuido_port = distribuido_port  # type: ignore[attr-defined]
    process.chessirc_port = chessirc_port  # type: ignore[attr-defined]
    yield process, web_port, espol_port, "".join(lines), tmp_path
    if process.poll() is None:
        process.kill()
        process.wait(10)


@pytest.fixture
def served(tmp_path):
    """``serve`` on the files this test run collected (collecting takes seconds), without
    the demo's players (each a password hash), for a test that stops it."""
    yield from _serve(tmp_path, settings.STATIC_ROOT, "--no-collectstatic", "--no-demo")


@pytest.fixture(scope="module")
def served_once(tmp_path_factory):
    """One ``serve`` for the tests that only talk to it (each start migrates a new
    database and seeds the demo: seconds), with an empty STATIC_ROOT, as on a new
    checkout."""
    tmp_path = tmp_path_factory.mktemp("served")
    yield from _serve(tmp_path, tmp_path / "static")


def test_serve_prints_the_demo_admin_login(served_once):
    _process, _web, _espol, output, tmp_path = served_once
    password = (tmp_path / "demo-admin").read_text().strip()
    assert f"admin / {password}" in output


def test_serve_collects_the_static_files_and_serves_them_by_hashed_names(served_once):
    _process, web_port, _espol, output, tmp_path = served_once
    assert "ESPOL gateway:" in output, output
    with urllib.request.urlopen(f"http://127.0.0.1:{web_port}/admin/login/", timeout=10) as r:
        assert r.status == 200
        html = r.read().decode()
    css = re.search(r'href="(/static/admin/css/base\.[0-9a-f]{12}\.css)"', html)
    assert css, html[:2000]
    assert (tmp_path / "static" / css.group(1).removeprefix("/static/")).exists()
    with urllib.request.urlopen(f"http://127.0.0.1:{web_port}{css.group(1)}", timeout=10) as r:
        assert r.status == 200 and b"{" in r.read()


def test_serve_runs_the_espol_gateway_on_the_same_database(served_once):
    _process, _web, espol_port, output, _tmp = served_once
    assert "ESPOL gateway:" in output, output
    with socket.create_connection(("127.0.0.1", espol_port), timeout=10) as sock:
        sock.sendall(b"USER:alice\r\n")
        assert _read_frame(sock) == (b"101", b"0", b"alice")
        sock.sendall(b"PASS:ajedrez-demo\r\n")
        assert _read_frame(sock)[0] == b"102"
        sock.sendall(b"STAT:P0000001\r\n")
        code, _flag, data = _read_frame(sock)
        assert code == b"103"
        assert data.startswith(b"P0000001:alice:bob:")


def test_serve_runs_the_hash_protocol_gateway_on_the_same_database(served_once):
    process, _web, _espol, output, _tmp = served_once
    assert "# protocol gateway:" in output, output
    with socket.create_connection(("127.0.0.1", process.distribuido_port), timeout=10) as sock:
        reader = sock.makefile("rb")
        sock.sendall(b"#PARTIDAS#\n")
        listing = reader.readline().decode()
        # The demo's games in progress, as the browser shows them.
        assert listing.startswith("#OK#P000000")
        assert "#alice#" in listing or "#bob#" in listing


def test_serve_runs_the_chessirc_gateway(served_once):
    process, _web, _espol, output, _tmp = served_once
    assert "chessirc gateway:" in output, output
    with socket.create_connection(("127.0.0.1", process.chessirc_port), timeout=10) as sock:
        reader = sock.makefile("rb")
        sock.sendall(b"SESSION #demo\n")
        assert reader.readline() == "Se ha iniciado una sesión en #demo.\n".encode()
        assert reader.readline() == b"-###-\n"


def test_serve_can_leave_the_hash_protocol_gateway_off(tmp_path, settings):
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{tmp_path / 'off.sqlite3'}",
        "SECRET_KEY": "test-only-secret",
        "DEMO_CREDENTIALS_FILE": str(tmp_path / "demo-admin"),
        # The files the test run collected once: two serve processes collecting into one
        # directory at once (other tests run beside this one) rename each other's files.
        "STATIC_ROOT": str(settings.STATIC_ROOT),
    }
    env.pop("REDIS_URL", None)
    distribuido_port = _free_port()
    process = subprocess.Popen(
        [sys.executable, "manage.py", "serve", "--port", str(_free_port()), "--no-demo",
         "--no-distribuido", "--distribuido-port", str(distribuido_port), "--no-chessirc",
         "--espol-port", str(_free_port()), "--no-collectstatic"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    try:
        lines = []
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            line = process.stdout.readline()
            if not line:
                break
            lines.append(line)
            if "ESPOL gateway:" in line:
                break
        output = "".join(lines)
        assert "ESPOL gateway:" in output, output
        assert "# protocol gateway" not in output
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection(("127.0.0.1", distribuido_port), timeout=5).close()
    finally:
        process.kill()
        process.wait(10)


def _lines_of(process) -> queue.Queue[str]:
    """The rest of ``process``'s output, line by line, read on a thread of its own so
    that waiting for a line has a deadline."""
    lines: queue.Queue[str] = queue.Queue()

    def pump() -> None:
        for line in process.stdout:
            lines.put(line)
        lines.put("")  # end of output

    threading.Thread(target=pump, daemon=True).start()
    return lines


def _until(lines: queue.Queue[str], marker: str, timeout: float = 60) -> str:
    seen = []
    deadline = time.monotonic() + timeout
    while (left := deadline - time.monotonic()) > 0:
        try:
            line = lines.get(timeout=left)
        except queue.Empty:
            break
        seen.append(line)
        if marker in line or line == "":
            break
    return "".join(seen)


def _enqueue_a_task(tmp_path: Path) -> None:
    """A task in the served database, queued by another process as a web process would."""
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{tmp_path / 'serve.sqlite3'}",
        "SECRET_KEY": "test-only-secret",
    }
    env.pop("REDIS_URL", None)
    subprocess.run(
        [sys.executable, "manage.py", "shell", "-c",
         # No such notification: the task finishes at once, "skipped".
         "from games.tasks import send_notification_mail as t; t.enqueue(999999)"],
        cwd=ROOT, env=env, check=True, capture_output=True, timeout=60,
    )


def test_serve_runs_the_task_worker_and_stops_it_on_sigterm(served):
    """And ``serve`` itself stops on SIGTERM."""
    process, _web, _espol, output, tmp_path = served
    assert "Task worker: mail is sent from here" in output, output
    assert "Analysis worker: the engine runs from here" in output, output
    lines = _lines_of(process)
    _enqueue_a_task(tmp_path)
    ran = _until(lines, "state=SUCCESSFUL")
    assert "games.tasks.send_notification_mail state=SUCCESSFUL" in ran, output + ran
    process.send_signal(signal.SIGTERM)
    # Both workers stop, the mail's first: up to the engine's worker's last line.
    rest = _until(lines, "task worker serve-analysis-")
    assert process.wait(30) is not None
    everything = output + ran + rest
    assert re.search(r"task worker serve-\w+ started", everything), everything
    assert re.search(r"task worker serve-\w+ stopped", rest), everything
    assert re.search(r"task worker serve-analysis-\w+ stopped", rest), everything


def test_serve_without_the_task_worker(tmp_path):
    server = _serve(
        tmp_path, settings.STATIC_ROOT, "--no-collectstatic", "--no-demo", "--no-worker"
    )
    process, _web, _espol, output, tmp_path = next(server)
    try:
        assert "chessirc gateway:" in output, output
        assert "Task worker" not in output and "Analysis worker" not in output
        lines = _lines_of(process)
        _enqueue_a_task(tmp_path)
        process.send_signal(signal.SIGTERM)
        rest = _until(lines, "")
        assert process.wait(30) is not None
        assert "task worker" not in output + rest and "state=" not in rest, output + rest
        with sqlite3.connect(tmp_path / "serve.sqlite3") as db:
            statuses = db.execute(
                "SELECT status FROM django_tasks_database_dbtaskresult"
            ).fetchall()
        assert statuses == [("READY",)]  # left for a `manage.py db_worker`
    finally:
        next(server, None)
