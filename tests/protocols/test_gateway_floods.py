"""Every gateway withstands a flood of connections from one address, as ESPOL does: a cap
per address (another address still gets in), a deadline for the first line and for the
secret, and one log line per flood. Raw sockets: what a flooding client does."""

from __future__ import annotations

import logging
import socket
from dataclasses import dataclass

import pytest

from ajedrez import settings as shipped
from legacy_tcp.chessirc.server import ChessircServer
from legacy_tcp.distribuido.server import DistribuidoServer
from legacy_tcp.espol import codec as espol
from legacy_tcp.espol.server import EspolServer
from tests.protocols.test_espol_hygiene import wait_until

pytestmark = pytest.mark.django_db(transaction=True)

TIMEOUT = 10.0


@dataclass(frozen=True)
class Gateway:
    name: str
    server_class: type
    setting_prefix: str
    # The protocol's "busy" reply, as its documentation gives it.
    busy: bytes
    # A line any connection may send first, and how its answer begins.
    probe: bytes
    answer: bytes

    def __str__(self) -> str:
        return self.name


ESPOL = Gateway(
    "espol",
    EspolServer,
    "ESPOL",
    espol.frames(espol.Code.E_BUSY, "too many connections; try later"),
    b"HELP\n",
    b"1030",
)
DISTRIBUIDO = Gateway(
    "distribuido",
    DistribuidoServer,
    "DISTRIBUIDO",
    "#NOK#Servidor ocupado; inténtelo más tarde#\n".encode(),
    b"#PARTIDAS#\n",
    b"#OK#",
)
CHESSIRC = Gateway(
    "chessirc",
    ChessircServer,
    "CHESSIRC",
    "Servidor ocupado; inténtelo más tarde.\n-###-\n".encode(),
    b"POSITION\n",
    "No hay ninguna sesión iniciada.".encode(),
)
GATEWAYS = [ESPOL, DISTRIBUIDO, CHESSIRC]
PASSWORDLESS = [DISTRIBUIDO, CHESSIRC]


def connect(port: int, source: str = "127.0.0.1") -> socket.socket:
    return socket.create_connection(
        ("127.0.0.1", port), timeout=TIMEOUT, source_address=(source, 0)
    )


def received(sock: socket.socket) -> bytes:
    """What arrives next (b"": the server closed the connection)."""
    try:
        return sock.recv(65536)
    except ConnectionResetError:
        return b""


def read_until_closed(sock: socket.socket) -> bytes:
    data = b""
    while chunk := received(sock):
        data += chunk
    return data


def answered(sock: socket.socket, gateway: Gateway) -> bool:
    sock.sendall(gateway.probe)
    return received(sock).startswith(gateway.answer)


@pytest.fixture
def opened():
    sockets: list[socket.socket] = []
    yield sockets
    for sock in sockets:
        sock.close()


def start(start_server, settings, gateway: Gateway, **values):
    for name, value in values.items():
        setattr(settings, f"{gateway.setting_prefix}_{name}", value)
    options = {"secret": values.get("SECRET", "")} if gateway in PASSWORDLESS else {}
    return start_server(server_class=gateway.server_class, **options)


@pytest.mark.parametrize("gateway", GATEWAYS, ids=str)
def test_one_address_over_its_cap_is_refused_busy_while_another_gets_in(
    start_server, settings, opened, gateway
):
    # The cap the gateway ships with (the test settings turn ESPOL's off).
    cap = getattr(shipped, f"{gateway.setting_prefix}_MAX_PER_ADDRESS")
    assert 0 < cap <= 50
    runner = start(start_server, settings, gateway, MAX_PER_ADDRESS=cap)
    for _ in range(cap):
        opened.append(connect(runner.port))
        assert answered(opened[-1], gateway)
    opened.append(connect(runner.port))
    assert read_until_closed(opened[-1]) == gateway.busy
    opened.append(connect(runner.port, source="127.0.0.2"))
    assert answered(opened[-1], gateway)


@pytest.mark.parametrize("gateway", GATEWAYS, ids=str)
def test_a_connection_that_says_nothing_is_closed_at_the_first_line_deadline(
    start_server, settings, opened, gateway, caplog
):
    caplog.set_level(logging.INFO, logger=f"legacy_tcp.{gateway.name}")
    runner = start(start_server, settings, gateway, FIRST_LINE_TIMEOUT=0.3)
    talker = connect(runner.port)
    opened.append(talker)
    assert answered(talker, gateway)
    silent = connect(runner.port)
    opened.append(silent)
    assert read_until_closed(silent) == b""
    assert wait_until(lambda: "reason=first_line_timeout" in caplog.text)
    # Opened before the silent one, so past the same deadline: it spoke, and stays.
    assert answered(talker, gateway)


@pytest.mark.parametrize("gateway", PASSWORDLESS, ids=str)
def test_a_connection_without_the_secret_is_closed_at_its_deadline(
    start_server, settings, opened, gateway, caplog
):
    caplog.set_level(logging.INFO, logger=f"legacy_tcp.{gateway.name}")
    runner = start(start_server, settings, gateway, SECRET="k", LOGIN_TIMEOUT=0.3)
    stranger = connect(runner.port)
    opened.append(stranger)
    stranger.sendall(gateway.probe)  # a first line, but not the secret
    assert b"clave" in received(stranger).lower()
    assert read_until_closed(stranger) == b""
    assert wait_until(lambda: "reason=login_timeout" in caplog.text)


@pytest.mark.parametrize("gateway", GATEWAYS, ids=str)
def test_a_flood_from_one_address_is_logged_once(
    start_server, settings, opened, gateway, caplog
):
    caplog.set_level(logging.INFO, logger=f"legacy_tcp.{gateway.name}")
    runner = start(start_server, settings, gateway, MAX_PER_ADDRESS=2)
    for _ in range(2):
        opened.append(connect(runner.port))
        assert answered(opened[-1], gateway)
    for _ in range(20):
        flood = connect(runner.port)
        opened.append(flood)
        assert read_until_closed(flood) == gateway.busy
    refusals = [
        record
        for record in caplog.records
        if record.name == f"legacy_tcp.{gateway.name}" and ".refused " in record.getMessage()
    ]
    assert len(refusals) == 1
    assert "reason=address" in refusals[0].getMessage()


# --------------------------------------------------------------------------- wrong secrets

SECRET_LINES = {
    "distribuido": lambda secret: f"#CLAVE#{secret}#\n".encode(),
    "chessirc": lambda secret: f"AUTH {secret}\n".encode(),
}
SECRET_ACCEPTED = {"distribuido": b"#OK#\n", "chessirc": b"Clave aceptada.\n-###-\n"}


def send_secret(sock: socket.socket, gateway: Gateway, secret: str) -> bytes:
    sock.sendall(SECRET_LINES[gateway.name](secret))
    return received(sock)


@pytest.mark.parametrize("gateway", PASSWORDLESS, ids=str)
def test_wrong_secrets_make_the_next_checks_from_that_address_wait(
    start_server, settings, opened, gateway
):
    runner = start(start_server, settings, gateway, SECRET="k", MAX_PER_ADDRESS=0)
    for _ in range(3):
        guesser = connect(runner.port)
        opened.append(guesser)
        assert send_secret(guesser, gateway, "guess") != SECRET_ACCEPTED[gateway.name]
    throttle = runner.server.throttle
    # A new connection from that address waits its turn; one from another does not.
    assert throttle.reserve("another connection", "127.0.0.1") > 0
    assert throttle.reserve("another connection", "127.0.0.2") == 0
    # The right secret is still accepted, after its wait.
    bot = connect(runner.port)
    opened.append(bot)
    assert send_secret(bot, gateway, "k") == SECRET_ACCEPTED[gateway.name]


@pytest.mark.parametrize("gateway", PASSWORDLESS, ids=str)
def test_a_flood_of_wrong_secrets_is_logged_once(
    start_server, settings, opened, gateway, caplog
):
    caplog.set_level(logging.INFO, logger=f"legacy_tcp.{gateway.name}")
    runner = start(start_server, settings, gateway, SECRET="k", MAX_PER_ADDRESS=0)
    guesser = connect(runner.port)
    opened.append(guesser)
    for attempt in range(6):
        assert send_secret(guesser, gateway, f"guess{attempt}") != SECRET_ACCEPTED[gateway.name]
    logged = [
        record.getMessage()
        for record in caplog.records
        if record.name == f"legacy_tcp.{gateway.name}" and ".wrong_secret " in record.getMessage()
    ]
    assert len(logged) == 1
    assert "connection_failures=1 " in logged[0]
