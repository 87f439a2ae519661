"""An ESPOL server on a loopback port (port 0) in its own thread, and clients for it."""

from __future__ import annotations

import asyncio
import subprocess
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from legacy_tcp.espol.client import EspolClient
from legacy_tcp.espol.codec import Response
from legacy_tcp.espol.server import EspolServer
from tests.conftest import PASSWORD


class ServerThread:
    """Runs an :class:`EspolServer` on its own event loop, as ``run_espol_server`` does."""

    def __init__(self, server_class: type = EspolServer, **options) -> None:
        self.server_class = server_class
        self.options = {"idle_timeout": 30.0, "max_connections": 500, **options}
        self.ready = threading.Event()
        self.server: Any = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self.port = 0

    def start(self) -> ServerThread:
        self.thread = threading.Thread(target=self._run, name="espol-test-server", daemon=True)
        self.thread.start()
        assert self.ready.wait(10), "the server did not start"
        return self

    def _run(self) -> None:
        self.loop = asyncio.new_event_loop()
        asyncio.set_event_loop(self.loop)
        self.server = self.server_class("127.0.0.1", 0, **self.options)
        self.loop.run_until_complete(self.server.start())
        self.port = self.server.port
        self.ready.set()
        self.loop.run_forever()
        self.loop.close()

    def call(self, coroutine, timeout: float = 30.0):
        assert self.loop is not None
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    @property
    def connection_count(self) -> int:
        assert self.server is not None
        return self.server.connection_count

    def stop(self, grace: float = 5.0) -> None:
        if self.loop is None or self.loop.is_closed():
            return
        if self.server is not None:
            self.call(self.server.stop(grace), timeout=grace + 15)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


@pytest.fixture
def espol_settings(settings):
    """Short login delays so that tests sending wrong passwords stay quick, and no cap per
    address: every test client comes from 127.0.0.1 (the cap's own tests set one)."""
    settings.ESPOL_LOGIN_DELAY = 0.05
    settings.ESPOL_LOGIN_DELAY_MAX = 0.2
    settings.ESPOL_WRITE_TIMEOUT = 5.0
    settings.ESPOL_MAX_PER_ADDRESS = 0
    return settings


@pytest.fixture
def start_server(transactional_db, espol_settings) -> Iterator[Callable[..., ServerThread]]:
    started: list[ServerThread] = []

    def start(**options) -> ServerThread:
        runner = ServerThread(**options).start()
        started.append(runner)
        return runner

    yield start
    for runner in started:
        runner.stop()


@pytest.fixture
def server(start_server) -> ServerThread:
    return start_server()


@pytest.fixture
def connect(server) -> Iterator[Callable[..., EspolClient]]:
    """Open a client to the test server; all are closed at the end of the test."""
    opened: list[EspolClient] = []

    def open_client(runner: ServerThread | None = None, **options) -> EspolClient:
        client = EspolClient("127.0.0.1", (runner or server).port, timeout=10.0, **options)
        opened.append(client)
        return client

    yield open_client
    for client in opened:
        client.close()


@pytest.fixture
def login(connect) -> Callable[..., EspolClient]:
    """A client logged in as ``user`` (USER then PASS)."""

    def log_in(user, password: str = PASSWORD, runner: ServerThread | None = None) -> EspolClient:
        client = connect(runner)
        assert code_of(client.send(f"USER:{user.username}")) == 101
        assert code_of(client.send(f"PASS:{password}")) == 102
        return client

    return log_in


def code_of(response: Response | None) -> int | None:
    return None if response is None else response.code


def make_certificate(tmp_path) -> tuple[str, str]:
    """A self-signed certificate and its key for localhost, as PEM files."""
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-subj", "/CN=localhost", "-keyout", str(key), "-out", str(cert)],
        check=True,
        capture_output=True,
    )
    return str(cert), str(key)
