"""Every gateway withstands a flood of connections from one address, as ESPOL does: a cap
per address (another address still gets in), a deadline for the first line and for the
secret, and one log line per flood. Raw sockets: what a flooding client does."""

from __future__ import annotations

import logging
import socket
import time
from dataclasses import dataclass

import pytest

from ajedrez import settings as shipped
from legacy_tcp.chessirc.server import ChessircServer
from legacy_tcp.distribuido.server import DistribuidoServer
from legacy_tcp.espol import codec as espol
from legacy_tcp.espol.server import EspolServer
from legacy_tcp.transport import backoff
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


def storm_reply(
    port: int, opened: list[socket.socket], source: str = "127.0.0.1"
) -> bytes | None:
    """A new connection's reply until the server closes it (busy), or None when the
    server reset it without a word (the accept back-off; the reset may already reach
    ``connect()``)."""
    try:
        sock = connect(port, source=source)
    except ConnectionResetError:
        return None
    opened.append(sock)
    return storm_reply_of(sock)


def storm_reply_of(sock: socket.socket) -> bytes | None:
    sock.settimeout(TIMEOUT)
    try:
        data = sock.recv(65536)
    except ConnectionResetError:
        return None
    return data + read_until_closed(sock)


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
    # Short of the back-off's threshold: every one of them is answered.
    for _ in range(backoff.THRESHOLD - 1):
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


def backoff_lines(caplog, gateway: Gateway) -> list[str]:
    return [
        record.getMessage()
        for record in caplog.records
        if record.name == f"legacy_tcp.{gateway.name}" and ".backoff " in record.getMessage()
    ]


@pytest.mark.parametrize("gateway", GATEWAYS, ids=str)
def test_an_address_refused_again_and_again_is_dropped_without_a_reply_and_another_is_not(
    start_server, settings, opened, gateway, caplog
):
    caplog.set_level(logging.INFO, logger=f"legacy_tcp.{gateway.name}")
    runner = start(start_server, settings, gateway, MAX_PER_ADDRESS=1)
    # However slowly this machine connects, the storm counts as one; its dropped
    # connections are reset soon after, not a second after (the pen's own test).
    runner.server.accept_backoff.window = runner.server.accept_backoff.hold = 60.0
    runner.server.pen.seconds = 0.05
    opened.append(connect(runner.port))
    assert answered(opened[-1], gateway)
    replies = [storm_reply(runner.port, opened) for _ in range(3 * backoff.THRESHOLD)]
    # The first refusals are answered; from the threshold on, nothing but a reset.
    assert replies == [gateway.busy] * backoff.THRESHOLD + [None] * (2 * backoff.THRESHOLD)
    # One line for the whole storm, none per dropped connection.
    lines = backoff_lines(caplog, gateway)
    assert len(lines) == 1, lines
    assert "address=127.0.0.1 " in lines[0]
    # A newcomer from another address is served as ever, and the one that held its
    # place goes on.
    opened.append(connect(runner.port, source="127.0.0.2"))
    assert answered(opened[-1], gateway)
    assert answered(opened[0], gateway)
    # Still held, but a place freed under its cap: that connection is served as ever.
    opened[0].close()
    assert wait_until(lambda: runner.connection_count == 1)
    opened.append(connect(runner.port))
    assert answered(opened[-1], gateway)


@pytest.mark.parametrize("gateway", PASSWORDLESS, ids=str)
def test_an_address_that_calms_down_is_served_again(start_server, settings, opened, gateway):
    runner = start(start_server, settings, gateway, MAX_PER_ADDRESS=1)
    runner.server.accept_backoff.hold = 0.5
    runner.server.accept_backoff.window = 60.0
    runner.server.pen.seconds = 0.05
    opened.append(connect(runner.port))
    assert answered(opened[-1], gateway)
    for _ in range(backoff.THRESHOLD):
        assert storm_reply(runner.port, opened) == gateway.busy
    assert storm_reply(runner.port, opened) is None
    # Quiet for longer than the hold: refused with the protocol's reply again, and once
    # its connection closes, admitted.
    time.sleep(0.8)
    assert storm_reply(runner.port, opened) == gateway.busy
    opened[0].close()
    assert wait_until(lambda: runner.connection_count == 0)
    opened.append(connect(runner.port))
    assert answered(opened[-1], gateway)


def test_dropped_connections_wait_in_a_bounded_pen_before_their_reset(
    start_server, settings, opened
):
    runner = start(start_server, settings, DISTRIBUIDO, MAX_PER_ADDRESS=1)
    runner.server.accept_backoff.window = runner.server.accept_backoff.hold = 60.0
    runner.server.pen.size, runner.server.pen.seconds = 2, 60.0
    opened.append(connect(runner.port))
    assert answered(opened[-1], DISTRIBUIDO)
    for _ in range(backoff.THRESHOLD):
        assert storm_reply(runner.port, opened) == DISTRIBUIDO.busy
    storm = [connect(runner.port) for _ in range(2)]
    opened.extend(storm)
    # Two wait in the pen, unanswered; the pen is full, so the others are reset at once.
    assert wait_until(lambda: len(runner.server.pen) == 2)
    assert [storm_reply(runner.port, opened) for _ in range(3)] == [None] * 3
    for sock in storm:
        sock.settimeout(0.2)
        with pytest.raises(TimeoutError):
            sock.recv(1)
    # Stopping the gateway resets them too.
    runner.stop()
    assert [storm_reply_of(sock) for sock in storm] == [None] * 2


def test_the_back_off_holds_an_address_while_it_floods_and_forgets_it_once_calm():
    lines: list[tuple] = []
    held = backoff.AcceptBackoff(
        log=lambda *args: lines.append(args), threshold=3, window=1.0, hold=5.0
    )
    assert [held.refused("a", t) for t in (0.0, 0.1, 0.2)] == [False, False, True]
    assert not held.holding("b", 0.3)  # another address
    # During the hold every connection is dropped; flooding on renews the hold.
    assert all(held.holding("a", 1.0 + i / 10) for i in range(5))
    assert held.holding("a", 5.3)  # 5 came during the hold: held again until 10.3
    assert held.holding("a", 6.0)
    assert not held.holding("a", 10.4)  # one in the last hold: calm, forgotten
    assert not held.holding("a", 10.5)
    # Refusals spread out never start a hold, and only the start of a hold is logged.
    assert not any(held.refused("c", t) for t in (20.0, 21.5, 23.0, 24.5))
    assert len(lines) == 1 and lines[0][0] == logging.WARNING
    assert held.dropped == 7


def test_the_back_off_remembers_a_bounded_number_of_addresses():
    held = backoff.AcceptBackoff(log=lambda *args: None, threshold=2, max_addresses=100)
    for i in range(1000):
        held.refused(f"10.0.{i // 256}.{i % 256}", i / 1000)
    assert len(held._addresses) <= 100


def test_ten_addresses_at_their_chessirc_cap_leave_a_place_for_an_eleventh(
    start_server, settings, opened
):
    # The shipped caps, total and per address: chessirc's one trusted client per channel
    # (the IRC bot) must find a place however ten other addresses hold theirs.
    per_address = settings.CHESSIRC_MAX_PER_ADDRESS = shipped.CHESSIRC_MAX_PER_ADDRESS
    runner = start_server(
        server_class=ChessircServer, secret="",
        max_connections=shipped.CHESSIRC_MAX_CONNECTIONS,
    )
    for host in range(2, 12):
        source = f"127.0.0.{host}"
        for _ in range(per_address):
            opened.append(connect(runner.port, source=source))
            assert answered(opened[-1], CHESSIRC)
        assert storm_reply(runner.port, opened, source=source) == CHESSIRC.busy
    opened.append(connect(runner.port, source="127.0.0.12"))
    assert answered(opened[-1], CHESSIRC)


def test_the_check_warns_of_caps_that_ten_addresses_can_fill(settings):
    from legacy_tcp.checks import gateway_caps

    assert gateway_caps() == []  # the shipped values
    settings.CHESSIRC_MAX_CONNECTIONS, settings.CHESSIRC_MAX_PER_ADDRESS = 200, 20
    warnings = gateway_caps()
    assert [w.id for w in warnings] == ["legacy_tcp.W001"]
    assert "CHESSIRC_MAX_CONNECTIONS (200)" in warnings[0].msg
    settings.CHESSIRC_MAX_PER_ADDRESS = 0  # no cap per address: a choice, not flagged
    assert gateway_caps() == []


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


SECRET_NOT_CHECKED = {
    "distribuido": "#NOK#Demasiadas claves en espera desde esta dirección; inténtelo más "
    "tarde#\n".encode(),
    "chessirc": "Demasiadas claves en espera desde esta dirección; inténtelo más tarde.\n"
    "-###-\n".encode(),
}


def guessed_from(runner, address: str, guesses: int) -> None:
    """``guesses`` wrong secrets from ``address`` (on another connection), as the
    throttle records them."""
    for _ in range(guesses):
        runner.server.throttle.failed("127.0.0.1:1", address)


@pytest.mark.parametrize("gateway", PASSWORDLESS, ids=str)
def test_a_secret_whose_turn_comes_after_the_deadline_is_not_checked_and_the_connection_ends(
    start_server, settings, opened, gateway, caplog
):
    caplog.set_level(logging.INFO, logger=f"legacy_tcp.{gateway.name}")
    settings.ESPOL_LOGIN_DELAY, settings.ESPOL_LOGIN_DELAY_MAX = 1.0, 8.0
    runner = start(start_server, settings, gateway, SECRET="k", LOGIN_TIMEOUT=0.5,
                   MAX_PER_ADDRESS=0)
    guessed_from(runner, "127.0.0.1", 4)  # the address's next check is 8 s away
    late = connect(runner.port)
    opened.append(late)
    # The right secret, but its turn would come long after the connection's deadline:
    # answered at once, unchecked, and the connection closed at its deadline.
    assert send_secret(late, gateway, "k") == SECRET_NOT_CHECKED[gateway.name]
    assert read_until_closed(late) == b""
    assert wait_until(lambda: "reason=login_timeout" in caplog.text)
    assert "secret_not_checked" in caplog.text
    # Not queued: the turn it did not take is not waited for by the next check.
    assert runner.server.throttle.reserve("another", "127.0.0.1") < 8.5
    # Another address is checked at once.
    bot = connect(runner.port, source="127.0.0.2")
    opened.append(bot)
    assert send_secret(bot, gateway, "k") == SECRET_ACCEPTED[gateway.name]


@pytest.mark.parametrize("gateway", PASSWORDLESS, ids=str)
def test_the_secret_checks_waiting_from_one_address_are_bounded(
    start_server, settings, opened, gateway
):
    settings.ESPOL_LOGIN_DELAY, settings.ESPOL_LOGIN_DELAY_MAX = 0.5, 8.0
    runner = start(start_server, settings, gateway, SECRET="k", MAX_PER_ADDRESS=0,
                   SECRET_QUEUE_PER_ADDRESS=2)
    guessed_from(runner, "127.0.0.1", 1)
    waiting = [connect(runner.port) for _ in range(2)]
    opened.extend(waiting)
    for sock in waiting:
        sock.sendall(SECRET_LINES[gateway.name]("k"))
    assert wait_until(lambda: runner.server.secrets_waiting["127.0.0.1"] == 2)
    # A third from the address is answered at once, unchecked; the two waiting ones,
    # right, are admitted at their turns.
    third = connect(runner.port)
    opened.append(third)
    assert send_secret(third, gateway, "k") == SECRET_NOT_CHECKED[gateway.name]
    assert [received(sock) for sock in waiting] == [SECRET_ACCEPTED[gateway.name]] * 2
    assert runner.server.secrets_waiting["127.0.0.1"] == 0
