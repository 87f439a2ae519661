"""README command (a): ``manage.py serve`` starts HTTP, WebSocket and the ESPOL gateway in
one process, on a fresh database, and stops cleanly on SIGTERM."""

from __future__ import annotations

import os
import signal
import socket
import struct
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

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


@pytest.fixture
def served(tmp_path):
    web_port, espol_port = _free_port(), _free_port()
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{tmp_path / 'serve.sqlite3'}",
        "SECRET_KEY": "test-only-secret",
        "DEMO_CREDENTIALS_FILE": str(tmp_path / "demo-admin"),
    }
    env.pop("REDIS_URL", None)
    process = subprocess.Popen(
        [sys.executable, "manage.py", "serve", "--port", str(web_port),
         "--espol-port", str(espol_port)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines: list[str] = []
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        lines.append(line)
        if "ESPOL gateway:" in line:
            break
    yield process, web_port, espol_port, "".join(lines), tmp_path
    if process.poll() is None:
        process.kill()
        process.wait(10)


def test_serve_prints_the_demo_admin_login(served):
    _process, _web, _espol, output, tmp_path = served
    password = (tmp_path / "demo-admin").read_text().strip()
    assert f"admin / {password}" in output


def test_serve_answers_http_with_static_files(served):
    _process, web_port, _espol, output, _tmp = served
    assert "ESPOL gateway:" in output, output
    with urllib.request.urlopen(f"http://127.0.0.1:{web_port}/admin/login/", timeout=10) as r:
        assert r.status == 200
    css = f"http://127.0.0.1:{web_port}/static/admin/css/base.css"
    with urllib.request.urlopen(css, timeout=10) as r:
        assert r.status == 200 and b"{" in r.read()


def test_serve_runs_the_espol_gateway_on_the_same_database(served):
    _process, _web, espol_port, output, _tmp = served
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


def test_serve_stops_on_sigterm(served):
    process, *_ = served
    process.send_signal(signal.SIGTERM)
    assert process.wait(30) is not None
