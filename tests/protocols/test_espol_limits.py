"""What idle and unauthenticated connections may cost the gateway's process: a cap derived
from the open-file limit, a cap per address, a time limit to log in, and accepting that
pauses instead of failing over and over when descriptors run out.

Some tests run ``manage.py serve`` in a subprocess whose open-file limit is lowered at its
start (``setrlimit`` before it runs) or while it runs (``prlimit``), on its own SQLite
database: real descriptors, really exhausted.
"""

from __future__ import annotations

import logging
import os
import re
import resource
import signal
import socket
import ssl
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from django.conf import settings

from ajedrez.demo import PLAYER_PASSWORD
from legacy_tcp.espol.client import EspolClient
from legacy_tcp.transport.limits import address_key, connection_cap
from tests.conftest import PASSWORD
from tests.protocols.conftest import make_certificate
from tests.protocols.test_espol_hygiene import closed_by_server, wait_until

ROOT = Path(__file__).resolve().parents[2]

# Only there so that a broken server fails a test instead of hanging it.
TIMEOUT = 20.0


# --------------------------------------------------------------------------- the cap's rule


def test_the_cap_leaves_a_quarter_of_the_open_file_limit_and_at_least_128():
    assert connection_cap(20_000, open_files=20_000) == 15_000
    assert connection_cap(20_000, open_files=1_024) == 768
    assert connection_cap(20_000, open_files=256) == 128
    assert connection_cap(20_000, open_files=100) == 0
    # A smaller cap asked for is kept.
    assert connection_cap(500, open_files=20_000) == 500


def test_the_cap_per_address_counts_an_ipv6_64_as_one_address():
    assert address_key("203.0.113.7") == "203.0.113.7"
    assert address_key("2001:db8:1:2:aaaa::1") == address_key("2001:db8:1:2:bbbb::2")
    assert address_key("2001:db8:1:2::1") != address_key("2001:db8:1:3::1")
    assert address_key("::ffff:203.0.113.7") == "203.0.113.7"


# --------------------------------------------------------------------------- in process


def other_loopback_address() -> str:
    """A second local address (all of 127.0.0.0/8 is loopback on Linux)."""
    return "127.0.0.2"


@pytest.mark.django_db(transaction=True)
def test_connections_over_the_cap_per_address_get_402_while_a_logged_in_one_plays_on(
    start_server, settings, alice
):
    settings.ESPOL_MAX_PER_ADDRESS = 3
    runner = start_server()
    player = EspolClient("127.0.0.1", runner.port, timeout=TIMEOUT)
    assert player.send("USER:alice").code == 101
    assert player.send(f"PASS:{PASSWORD}").code == 102
    idle = [EspolClient("127.0.0.1", runner.port, timeout=TIMEOUT) for _ in range(2)]
    for client in idle:
        assert client.send("HELP").code == 103
    extra = EspolClient("127.0.0.1", runner.port, timeout=TIMEOUT)
    assert extra.receive().code == 402
    assert extra.receive() is None
    assert player.send("SRNK").code == 103
    elsewhere = EspolClient(
        "127.0.0.1", runner.port, timeout=TIMEOUT, source_address=(other_loopback_address(), 0)
    )
    assert elsewhere.send("HELP").code == 103
    # A place freed on the address is taken again.
    idle.pop().close()
    assert wait_until(lambda: runner.connection_count == 3)
    again = EspolClient("127.0.0.1", runner.port, timeout=TIMEOUT)
    assert again.send("HELP").code == 103
    for client in [player, *idle, extra, elsewhere, again]:
        client.close()


@pytest.mark.django_db(transaction=True)
def test_tls_connections_over_the_cap_get_402_over_tls(start_server, tmp_path, db):
    cert, key = make_certificate(tmp_path)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    runner = start_server(ssl_context=context, max_connections=1)
    held = EspolClient("127.0.0.1", runner.port, tls=True, timeout=TIMEOUT)
    assert held.send("HELP").code == 103
    extra = EspolClient("127.0.0.1", runner.port, tls=True, timeout=TIMEOUT)
    assert extra.receive().code == 402
    held.close()
    extra.close()


@pytest.mark.django_db(transaction=True)
def test_a_connection_not_logged_in_in_time_is_closed_while_a_logged_in_idle_one_stays(
    start_server, settings, alice, caplog
):
    caplog.set_level(logging.INFO, logger="legacy_tcp.espol")
    settings.ESPOL_LOGIN_TIMEOUT = 0.5
    runner = start_server(idle_timeout=30.0)
    player = EspolClient("127.0.0.1", runner.port, timeout=TIMEOUT)
    assert player.send("USER:alice").code == 101
    assert player.send(f"PASS:{PASSWORD}").code == 102
    stranger = EspolClient("127.0.0.1", runner.port, timeout=TIMEOUT)
    assert stranger.send("USER:alice").code == 101  # and never a password
    assert closed_by_server(stranger, timeout=TIMEOUT)
    assert wait_until(lambda: "reason=login_timeout" in caplog.text)
    # Idle far longer than the time to log in, well within the idle timeout.
    time.sleep(1.5)
    assert player.send("SRNK").code == 103
    player.close()
    stranger.close()


@pytest.mark.django_db(transaction=True)
def test_dripping_bytes_does_not_stretch_the_time_to_log_in(start_server, settings, db):
    settings.ESPOL_LOGIN_TIMEOUT = 0.5
    runner = start_server(idle_timeout=30.0)
    client = EspolClient("127.0.0.1", runner.port, timeout=TIMEOUT)
    client.sock.settimeout(0.1)
    closed = False
    deadline = time.monotonic() + TIMEOUT
    while not closed and time.monotonic() < deadline:
        try:
            client.send_raw(b"U")  # a line that never ends
            closed = client.sock.recv(100) == b""
        except TimeoutError:
            continue
        except (ConnectionResetError, BrokenPipeError):
            closed = True
    assert closed
    client.close()


@pytest.mark.django_db(transaction=True)
def test_logging_out_with_user_starts_a_new_time_to_log_in(start_server, settings, alice, bob):
    settings.ESPOL_LOGIN_TIMEOUT = 0.5
    runner = start_server(idle_timeout=30.0)
    client = EspolClient("127.0.0.1", runner.port, timeout=TIMEOUT)
    assert client.send("USER:alice").code == 101
    assert client.send(f"PASS:{PASSWORD}").code == 102
    time.sleep(1.0)  # logged in all along: the first window's end does not count
    assert client.send("USER:bob").code == 101  # logged out until PASS
    assert closed_by_server(client, timeout=TIMEOUT)
    client.close()


# --------------------------------------------------------------------------- a real process


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class ServeProcess:
    """``manage.py serve`` (web and gateway in one process) with an open-file limit."""

    def __init__(self, tmp_path: Path, *, nofile: tuple[int, int], env: dict[str, str],
                 demo: bool = False) -> None:
        self.web_port, self.espol_port = _free_port(), _free_port()
        self.log_path = tmp_path / "serve.log"
        environment = {
            k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")
        }
        environment.update(
            DATABASE_URL=f"sqlite:///{tmp_path / 'serve.sqlite3'}",
            SECRET_KEY="test-only-secret",
            DEMO_CREDENTIALS_FILE=str(tmp_path / "demo-admin"),
            LOG_LEVEL="WARNING",
            # No clock sweep (nor its digests): its database connection would compete for
            # the descriptors these tests ration, and log when it finds none.
            CLOCK_SWEEP_SECONDS="0",
            # The files the test run collected once: serve processes of other tests
            # collecting into the same directory at once would rename each other's files.
            STATIC_ROOT=str(settings.STATIC_ROOT),
            **env,
        )

        def lower_limit() -> None:
            resource.setrlimit(resource.RLIMIT_NOFILE, nofile)

        # The other gateways stay off: on their default ports they would meet whatever
        # else runs on this machine, and these tests are about ESPOL's descriptors.
        args = ["--port", str(self.web_port), "--espol-port", str(self.espol_port),
                "--no-distribuido", "--no-chessirc", "--no-collectstatic"]
        with open(self.log_path, "wb") as log:
            self.process = subprocess.Popen(
                [sys.executable, "manage.py", "serve", *args, *([] if demo else ["--no-demo"])],
                cwd=ROOT, env=environment, stdout=log, stderr=subprocess.STDOUT,
                preexec_fn=lower_limit,
            )
        if not wait_until(lambda: "ESPOL gateway:" in self.log() or self.process.poll() is not None,
                          timeout=120):
            self.stop()
            pytest.fail(f"serve did not start:\n{self.log()[-3000:]}")
        if self.process.poll() is not None:
            pytest.fail(f"serve ended:\n{self.log()[-3000:]}")

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def client(self) -> EspolClient:
        return EspolClient("127.0.0.1", self.espol_port, timeout=TIMEOUT)

    def open_files_limit(self) -> tuple[int, int]:
        """The process's soft and hard limits, as the kernel reports them."""
        for line in Path(f"/proc/{self.process.pid}/limits").read_text().splitlines():
            if line.startswith("Max open files"):
                soft, hard = line.split()[3:5]
                return int(soft), int(hard)
        raise AssertionError("no open-file limit in /proc")

    def lowest_free_descriptor(self) -> int:
        return self.limit_leaving_free(0)

    def limit_leaving_free(self, free: int) -> int:
        """The soft limit under which exactly `free` descriptors are left to open."""
        used = {int(fd) for fd in os.listdir(f"/proc/{self.process.pid}/fd")}
        holes = [fd for fd in range(len(used) + free + 1) if fd not in used]
        return holes[free]

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)


@pytest.fixture
def serve(tmp_path) -> Iterator[Callable[..., ServeProcess]]:
    started: list[ServeProcess] = []

    def start(**options) -> ServeProcess:
        directory = tmp_path / f"serve-{len(started)}"
        directory.mkdir()
        process = ServeProcess(directory, **options)
        started.append(process)
        return process

    yield start
    for process in started:
        process.stop()


linux_only = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="reads /proc and lowers limits the Linux way"
)


@linux_only
def test_under_a_low_open_file_limit_the_cap_leaves_descriptors_for_the_web(serve):
    # 256 descriptors: the gateway keeps 128 of them for the rest of the process.
    server = serve(nofile=(256, 256), env={"ESPOL_MAX_PER_ADDRESS": "0"})
    codes = []
    clients = []
    for _ in range(300):
        client = server.client()
        clients.append(client)
        client.send_raw(b"HELP\r\n")
        codes.append(client.receive().code)
    assert codes == [103] * 128 + [402] * 172
    with urllib.request.urlopen(
        f"http://127.0.0.1:{server.web_port}/admin/login/", timeout=TIMEOUT
    ) as response:
        assert response.status == 200
    assert "Traceback" not in server.log()
    for client in clients:
        client.close()


@linux_only
def test_the_soft_open_file_limit_is_raised_at_start_as_far_as_the_hard_one_allows(serve):
    server = serve(nofile=(256, 1024), env={})
    assert server.open_files_limit() == (1024, 1024)


@linux_only
def test_out_of_descriptors_the_gateway_pauses_accepting_logs_it_once_and_resumes(serve):
    server = serve(
        nofile=(256, 256),
        # One thread of each kind: both open their database connection at the login
        # below, so the logged-in player's commands need no new descriptor later.
        env={"ESPOL_MAX_PER_ADDRESS": "0", "ESPOL_DB_THREADS": "1",
             "ESPOL_AUTH_THREADS": "1"},
        demo=True,
    )
    player = server.client()
    assert player.send("USER:alice").code == 101
    assert player.send(f"PASS:{PLAYER_PASSWORD}").code == 102
    assert player.send("SRNK").code == 103
    idle = [server.client() for _ in range(20)]
    for client in idle:
        assert client.send("HELP").code == 103

    # From now on the process cannot open one more descriptor.
    log_before = len(server.log())
    resource.prlimit(
        server.process.pid, resource.RLIMIT_NOFILE, (server.lowest_free_descriptor(), 256)
    )
    waiting = [server.client() for _ in range(5)]  # taken by the kernel, not accepted
    for client in waiting:
        client.send_raw(b"HELP\r\n")
    assert wait_until(lambda: "Too many open files" in server.log()
                      or "EMFILE" in server.log(), timeout=TIMEOUT)
    time.sleep(3.0)  # several attempts to accept again meanwhile
    meanwhile = server.log()[log_before:].splitlines()
    assert len(meanwhile) == 1, f"{len(meanwhile)} log lines: {meanwhile[:8]}"
    assert "espol.accept_paused error=EMFILE" in meanwhile[0]
    # Those already in are served all along.
    assert player.send("SRNK").code == 103
    assert player.send("PPEN:0").code == 103

    # Descriptors free up: the connections that waited are served.
    for client in idle:
        client.close()
    assert [client.receive().code for client in waiting] == [103] * 5
    assert wait_until(lambda: "espol.accept_resumed" in server.log(), timeout=TIMEOUT)
    episode = server.log()[log_before:].splitlines()
    assert len(episode) == 2, f"{len(episode)} log lines: {episode[:8]}"
    assert "espol.accept_resumed" in episode[1]
    for client in [player, *waiting]:
        client.close()


@linux_only
def test_a_backlog_drained_with_no_descriptor_left_ends_the_pause(serve):
    # Linux takes a descriptor before it looks at the backlog: a process at its limit
    # gets EMFILE from accept() even when nobody waits. That must not read as "still
    # out of descriptors" once everyone waiting has been taken.
    server = serve(nofile=(256, 256), env={"ESPOL_MAX_PER_ADDRESS": "0"})
    first = server.client()
    assert first.send("HELP").code == 103
    log_before = len(server.log())
    resource.prlimit(
        server.process.pid, resource.RLIMIT_NOFILE, (server.lowest_free_descriptor(), 256)
    )
    waiting = [server.client() for _ in range(3)]
    for client in waiting:
        client.send_raw(b"HELP\r\n")
    assert wait_until(lambda: "espol.accept_paused" in server.log(), timeout=TIMEOUT)

    # Room for exactly the three waiting: the last accept() meets the limit again.
    resource.prlimit(
        server.process.pid, resource.RLIMIT_NOFILE, (server.limit_leaving_free(3), 256)
    )
    assert [client.receive().code for client in waiting] == [103] * 3
    assert wait_until(lambda: "espol.accept_resumed" in server.log(), timeout=TIMEOUT)
    episode = server.log()[log_before:].splitlines()
    assert len(episode) == 2, f"{len(episode)} log lines: {episode[:8]}"
    # How many of the three were taken before the pause's end was logged depends on when
    # the server's other threads hold a descriptor (under a loaded parallel run, one was
    # taken just after): each is served, and the episode is logged once, either way.
    assert re.search(r"accepted_meanwhile=[123]\b", episode[1]), episode[1]
    for client in [first, *waiting]:
        client.close()
