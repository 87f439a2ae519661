"""What a hostile or clumsy client may send: nothing crashes, blocks others or grows memory."""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
import select
import shlex
import socket
import ssl
import sys
import threading
import time

import pytest

from games.models import Move
from legacy_tcp.espol.client import EspolClient
from tests.conftest import PASSWORD
from tests.protocols.conftest import make_certificate
from tests.protocols.hashers import GatedHasher, PolicyRecordingHasher

pytestmark = pytest.mark.django_db(transaction=True)


def wait_until(condition, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return False


def closed_by_server(client: EspolClient, timeout: float = 10.0) -> bool:
    client.sock.settimeout(timeout)
    try:
        while True:
            if client.sock.recv(65536) == b"":
                return True
    except (ConnectionResetError, BrokenPipeError):
        return True
    except TimeoutError:
        return False


# --------------------------------------------------------------------------- line ends, bytes


@pytest.mark.parametrize("end", [b"\r\n", b"\n"], ids=["crlf", "lf"])
def test_lines_end_with_crlf_or_bare_lf(connect, alice, end):
    client = connect()
    client.send_raw(b"USER:alice" + end)
    assert client.receive().code == 101
    client.send_raw(f"PASS:{PASSWORD}".encode() + end)
    assert client.receive().code == 102


def test_several_lines_in_one_packet_get_one_reply_each(connect, alice):
    client = connect()
    client.send_raw(b"HELP\r\nUSER:alice\nQUIT\r\n")
    assert [client.receive().code, client.receive().code, client.receive()] == [103, 101, None]


def test_garbage_bytes_get_a_failure_and_the_session_goes_on(connect, alice):
    client = connect()
    client.send_raw(b"\x00\x01\x02\x03\xfe\xff garbage \x1b[2J\r\n")
    assert client.receive().code in (801, 802)
    assert client.send("USER:alice").code == 101


def test_invalid_utf8_gets_802_and_the_session_goes_on(connect, alice):
    client = connect()
    client.send_raw(b"USER:al\xc3\x28ice\r\n")
    assert client.receive().code == 802
    assert client.send("USER:alice").code == 101


def test_overlong_line_gets_802_and_the_session_goes_on(connect, alice):
    client = connect()
    client.send_raw(b"USER:" + b"a" * 10_000 + b"\r\n")
    assert client.receive().code == 802
    assert client.send("USER:alice").code == 101


def test_overlong_line_sent_in_pieces_is_skipped_to_its_end(connect, alice):
    client = connect()
    for _ in range(50):  # 1 MB with no line end yet
        client.send_raw(b"x" * 20_000)
    client.send_raw(b"tail\r\nUSER:alice\r\n")
    assert client.receive().code == 802
    assert client.receive().code == 101


def errors_logged(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]


def test_overlong_line_ended_by_the_client_closing_is_a_clean_eof(server, connect, caplog):
    caplog.set_level(logging.INFO)
    client = connect()
    client.send_raw(b"USER:" + b"a" * 10_000)  # no line end, then the client closes
    client.sock.shutdown(socket.SHUT_WR)
    assert closed_by_server(client, timeout=5)
    assert wait_until(lambda: "espol.disconnect" in caplog.text)
    # The server still serves, so its loop has run whatever the closed task left behind.
    assert connect().send("HELP").code == 103
    assert "reason=eof" in caplog.text
    assert errors_logged(caplog) == []
    assert server.connection_count == 1


def test_client_idle_in_the_middle_of_an_overlong_line_is_closed_as_idle(
    start_server, caplog
):
    caplog.set_level(logging.INFO)
    runner = start_server(idle_timeout=0.5)
    client = EspolClient("127.0.0.1", runner.port)
    client.send_raw(b"USER:" + b"a" * 10_000)  # no line end, then nothing more
    started = time.monotonic()
    assert closed_by_server(client, timeout=5)
    assert 0.4 <= time.monotonic() - started < 4
    assert wait_until(lambda: "espol.disconnect" in caplog.text)
    assert "reason=idle" in caplog.text
    assert "reason=reset" not in caplog.text
    assert errors_logged(caplog) == []
    client.close()


def test_line_of_exactly_4096_bytes_is_served(connect, alice):
    reply = connect().send("USER:" + "a" * 4091)
    assert reply.code == 814


def test_half_sent_line_does_not_block_other_clients(connect, alice, bob):
    slow = connect()
    slow.send_raw(b"USER:ali")
    other = connect()
    assert other.send("USER:bob").code == 101
    assert other.send(f"PASS:{PASSWORD}").code == 102
    slow.send_raw(b"ce\r\n")
    assert slow.receive().text == "alice"


# --------------------------------------------------------------------------- limits


def test_client_that_never_reads_is_dropped(start_server, settings, alice):
    settings.ESPOL_WRITE_TIMEOUT = 0.5
    settings.ESPOL_WRITE_BUFFER = 16 * 1024
    runner = start_server()
    hog = socket.socket()
    hog.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    hog.connect(("127.0.0.1", runner.port))
    hog.settimeout(2.0)
    try:
        # 40,000 HELP answers (~26 MB) against a few MB of socket buffers.
        for _ in range(40):
            hog.sendall(b"HELP\r\n" * 1000)
    except (TimeoutError, ConnectionError):
        pass  # the server stopped reading from us: also fine
    good = EspolClient("127.0.0.1", runner.port, timeout=5)
    assert good.send("USER:alice").code == 101
    assert wait_until(lambda: runner.connection_count == 1, timeout=20)
    assert good.send(f"PASS:{PASSWORD}").code == 102
    good.close()
    hog.close()


def test_a_client_pipelining_many_lines_does_not_hold_the_others_back(
    start_server, caplog
):
    # Lines already buffered get replies needing no database and writes the kernel takes:
    # none of that waits, so unless the server yields between lines one client's burst
    # held the loop, and every other client, until it was all answered. The order of the
    # server's own log says who was served when, whatever the machine's speed.
    caplog.set_level(logging.INFO, logger="legacy_tcp.espol")
    burst = 20_000
    runner = start_server()
    other = EspolClient("127.0.0.1", runner.port, timeout=30)
    assert other.send("HELP").code == 103  # connected and served before the burst
    bulk = socket.create_connection(("127.0.0.1", runner.port))
    bulk_peer = f"127.0.0.1:{bulk.getsockname()[1]}"

    def drain_replies() -> None:  # an honest client: it reads everything it is sent
        with contextlib.suppress(OSError):
            while bulk.recv(1 << 20):
                pass

    reader = threading.Thread(target=drain_replies, daemon=True)
    reader.start()
    bulk.sendall(b"HELP\r\n" * burst)
    assert other.send("HELP").code == 103
    answered = [
        r.getMessage() for r in caplog.records if r.getMessage().startswith("espol.command")
    ]
    other_peer = f"127.0.0.1:{other.sock.getsockname()[1]}"
    seconds = [i for i, line in enumerate(answered) if f"peer={other_peer} " in line]
    assert len(seconds) == 2
    bulk_before = sum(f"peer={bulk_peer} " in line for line in answered[: seconds[1]])
    assert bulk_before < burst
    bulk.close()
    other.close()
    reader.join(10)


def test_idle_connection_is_closed_after_the_timeout(start_server, alice):
    runner = start_server(idle_timeout=0.5)
    client = EspolClient("127.0.0.1", runner.port)
    assert client.send("USER:alice").code == 101
    started = time.monotonic()
    assert closed_by_server(client, timeout=5)
    assert 0.4 <= time.monotonic() - started < 4
    client.close()


def test_connections_beyond_the_cap_get_402_and_are_closed(start_server, db):
    runner = start_server(max_connections=3)
    held = [EspolClient("127.0.0.1", runner.port) for _ in range(3)]
    for client in held:
        assert client.send("HELP").code == 103
    extra = EspolClient("127.0.0.1", runner.port)
    reply = extra.receive()
    assert reply.code == 402
    assert extra.receive() is None
    held.pop().close()
    assert wait_until(lambda: runner.connection_count == 2)
    again = EspolClient("127.0.0.1", runner.port)
    assert again.send("HELP").code == 103
    for client in [*held, extra, again]:
        client.close()


def timed(client: EspolClient, line: str) -> tuple[int, float]:
    started = time.monotonic()
    reply = client.send(line)
    return reply.code, time.monotonic() - started


def slow_logins(settings) -> None:
    """Delays long enough to measure: 0.3 s after one failure, doubling, capped at 5 s."""
    settings.ESPOL_LOGIN_DELAY = 0.3
    settings.ESPOL_LOGIN_DELAY_MAX = 5.0


class ThrottleLog:
    """What the server's login throttle decided, on its own clock: for each check, the
    moment its turn came (``turns``), and each failure's moment (``failures``). The
    spacing the throttle guarantees is read from these, not from reply times, which also
    hold the hashes' time and whatever else a loaded machine adds."""

    def __init__(self, runner, monkeypatch) -> None:
        import accounts.throttling as throttling

        self.turns: list[tuple[str, float]] = []
        self.failures: list[tuple[str, float]] = []
        self._lock = threading.Lock()
        seen: dict[int, float] = {}

        class Clock:
            # The throttle reads the time once per call; remember it for the calling thread.
            def __getattr__(self, name):
                return getattr(time, name)

            def monotonic(self) -> float:
                now = time.monotonic()
                seen[threading.get_ident()] = now
                return now

        monkeypatch.setattr(throttling, "time", Clock())
        throttle = runner.server.throttle
        reserve, failed = throttle.reserve, throttle.failed

        def reserve_recorded(name: str, address: str) -> float:
            with self._lock:
                wait = reserve(name, address)
                self.turns.append((name, seen[threading.get_ident()] + wait))
            return wait

        def failed_recorded(name: str, address: str):
            with self._lock:
                result = failed(name, address)
                self.failures.append((name, seen[threading.get_ident()]))
            return result

        monkeypatch.setattr(throttle, "reserve", reserve_recorded)
        monkeypatch.setattr(throttle, "failed", failed_recorded)

    # The throttle's turns are sums of floats: a gap of exactly its delay reads a hair less.
    EPSILON = 1e-6

    def gaps(self) -> list[float]:
        """For each check after a failure: how long after the latest failure before it
        its turn came."""
        found = []
        for _name, turn in self.turns:
            before = [at for _n, at in self.failures if at <= turn]
            if before:
                found.append(turn - max(before) + self.EPSILON)
        return found


def test_repeated_wrong_passwords_are_checked_later_and_later(
    start_server, settings, alice, monkeypatch
):
    slow_logins(settings)
    runner = start_server()
    log = ThrottleLog(runner, monkeypatch)
    client = EspolClient("127.0.0.1", runner.port)
    client.send("USER:alice")
    assert [client.send("PASS:wrong").code for _ in range(3)] == [815, 815, 815]
    # The first check is at once; the next ones come 0.3 s, then 0.6 s after a failure.
    assert len(log.turns) == 3 and len(log.gaps()) == 2
    assert log.gaps()[0] >= 0.3 and log.gaps()[1] >= 0.6
    client.close()


def test_after_wrong_passwords_the_right_one_waits_its_turn_too(
    start_server, settings, alice, monkeypatch
):
    # Answering only the wrong guesses late would let a guesser read "no answer yet" as
    # "wrong" and move on: the check itself must wait.
    slow_logins(settings)
    runner = start_server()
    log = ThrottleLog(runner, monkeypatch)
    client = EspolClient("127.0.0.1", runner.port)
    client.send("USER:alice")
    client.send("PASS:wrong")
    client.send("PASS:wrong")
    assert client.send(f"PASS:{PASSWORD}").code == 102
    assert log.gaps()[-1] >= 0.6
    client.close()


def test_wrong_passwords_slow_down_a_name_from_one_address_across_connections(
    start_server, settings, alice, monkeypatch
):
    slow_logins(settings)
    runner = start_server()
    log = ThrottleLog(runner, monkeypatch)
    for _ in range(2):
        one_try = EspolClient("127.0.0.1", runner.port)
        one_try.send("USER:alice")
        one_try.send("PASS:wrong")
        one_try.close()
    fresh = EspolClient("127.0.0.1", runner.port)
    fresh.send("USER:alice")
    assert fresh.send(f"PASS:{PASSWORD}").code == 102
    assert log.gaps()[-1] >= 0.6
    fresh.close()


def test_parallel_guesses_on_one_name_are_checked_one_after_another(
    start_server, settings, alice, monkeypatch
):
    slow_logins(settings)
    runner = start_server()
    log = ThrottleLog(runner, monkeypatch)
    first = EspolClient("127.0.0.1", runner.port)
    first.send("USER:alice")
    assert first.send("PASS:wrong").code == 815
    guessers = [EspolClient("127.0.0.1", runner.port) for _ in range(3)]
    for guesser in guessers:
        assert guesser.send("USER:alice").code == 101
    started = time.monotonic()
    for guesser in guessers:
        guesser.send_raw(b"PASS:wrong\r\n")
    answered = []
    for guesser in guessers:
        assert guesser.receive().code == 815
        answered.append(time.monotonic() - started)
    # Side by side, all three would be checked once the first failure's 0.3 s were up;
    # queued, each check's turn comes a delay after the one before.
    turns = sorted(turn for _name, turn in log.turns[1:])
    assert len(turns) == 3
    assert all(
        later - earlier + ThrottleLog.EPSILON >= 0.3
        for earlier, later in itertools.pairwise(turns)
    )
    for client in [first, *guessers]:
        client.close()


def test_guessers_from_one_address_do_not_hold_back_the_players_login_from_another(
    start_server, settings, alice
):
    # Queued by the name alone, eight guessers held alice's right password back behind
    # their own checks (for a minute at the default delays): a lock-out weapon needing no
    # knowledge at all. Keyed by name and address, they only slow themselves.
    settings.ESPOL_LOGIN_DELAY = 0.5
    settings.ESPOL_LOGIN_DELAY_MAX = 8.0
    runner = start_server()
    first = EspolClient("127.0.0.1", runner.port)
    first.send("USER:alice")
    assert first.send("PASS:wrong").code == 815
    guessers = [EspolClient("127.0.0.1", runner.port, timeout=30.0) for _ in range(8)]
    for guesser in guessers:
        assert guesser.send("USER:alice").code == 101
    answers: list[tuple[float, int | None]] = []

    def wait_for_answer(guesser: EspolClient) -> None:
        reply = guesser.receive()
        answers.append((time.monotonic(), reply.code if reply else None))

    for guesser in guessers:
        guesser.send_raw(b"PASS:wrong\r\n")
    readers = [threading.Thread(target=wait_for_answer, args=(g,)) for g in guessers]
    for reader in readers:
        reader.start()
    # The guessers' checks are queued half a second apart: about 4 s for all eight.
    player = EspolClient("127.0.0.1", runner.port, source_address=("127.0.0.2", 0))
    assert player.send("USER:alice").code == 101
    started = time.monotonic()
    reply = player.send(f"PASS:{PASSWORD}")
    answered_at = time.monotonic()
    for reader in readers:
        reader.join(30)
    assert reply.code == 102
    assert len(answers) == 8
    assert all(code in (815, 402) for _at, code in answers)
    # Behind their queue she would be answered after all eight; she is answered before
    # most of them (and long before the last).
    answered_after_her = [at for at, _code in answers if at > answered_at]
    assert len(answered_after_her) >= 4
    assert answered_at - started < (max(at for at, _code in answers) - started) / 2
    for client in [first, player, *guessers]:
        client.close()


def test_one_address_trying_many_names_slows_down_across_connections(
    start_server, settings, alice, bob, carol, monkeypatch
):
    # Each name from there has one failure at most: the address's count slows it.
    slow_logins(settings)
    runner = start_server()
    log = ThrottleLog(runner, monkeypatch)
    for name in ("alice", "bob"):
        one_try = EspolClient("127.0.0.1", runner.port)
        one_try.send(f"USER:{name}")
        assert one_try.send("PASS:wrong").code == 815
        one_try.close()
    fresh = EspolClient("127.0.0.1", runner.port)
    fresh.send("USER:carol")
    assert fresh.send("PASS:wrong").code == 815
    # Two failures from the address before it: its turn came 0.6 s after the last.
    assert log.gaps()[-1] >= 0.6
    fresh.close()


def test_different_names_on_one_connection_slow_down_too(
    start_server, settings, alice, bob, monkeypatch
):
    slow_logins(settings)
    runner = start_server()
    log = ThrottleLog(runner, monkeypatch)
    client = EspolClient("127.0.0.1", runner.port)
    client.send("USER:alice")
    assert client.send("PASS:wrong").code == 815
    client.send("USER:bob")
    assert client.send("PASS:wrong").code == 815
    assert log.gaps()[-1] >= 0.3
    client.close()


def test_logging_into_an_account_does_not_clear_the_addresss_slowdown(
    start_server, settings, alice, bob, carol
):
    # A guesser with an account of their own could otherwise log into it between
    # guesses and try every other name at full speed.
    slow_logins(settings)
    runner = start_server()
    client = EspolClient("127.0.0.1", runner.port)
    for name in ("alice", "bob"):
        client.send(f"USER:{name}")
        assert client.send("PASS:wrong").code == 815
    client.send("USER:carol")
    assert client.send(f"PASS:{PASSWORD}").code == 102
    # The address keeps its two failures, and so the wait of the next check after them
    # (read from the throttle: a measured wait also holds the hashes' time, which a
    # loaded machine stretches either way).
    throttle = runner.server.throttle
    assert throttle.failed("dave", "127.0.0.1").for_address == 3
    client.send("USER:alice")
    assert client.send("PASS:wrong").code == 815
    client.close()


def test_slow_wrong_password_does_not_block_other_clients(start_server, settings, alice, bob):
    settings.ESPOL_LOGIN_DELAY = 5.0
    runner = start_server()
    guesser = EspolClient("127.0.0.1", runner.port)
    guesser.send("USER:alice")
    guesser.send("PASS:wrong")
    guesser.send_raw(b"PASS:wrong\r\n")  # checked in about 5 s
    other = EspolClient("127.0.0.1", runner.port)
    assert other.send("USER:bob").code == 101
    # Answered while the guesser's check still waits for its turn.
    assert not select.select([guesser.sock], [], [], 0)[0]
    assert guesser.receive().code == 815
    guesser.close()
    other.close()


def test_password_checks_in_flight_do_not_hold_the_command_threads(
    start_server, settings, make_player
):
    # A password check costs a quarter of a second of CPU with PBKDF2; a burst of logins
    # must not take the threads that serve the commands of players already logged in.
    settings.PASSWORD_HASHERS = [
        "tests.protocols.hashers.GatedHasher",
        "django.contrib.auth.hashers.MD5PasswordHasher",
    ]
    settings.ESPOL_DB_THREADS = 2
    settings.ESPOL_AUTH_THREADS = 1
    for name in ("alice", "bob", "carol", "dave", "eve"):
        make_player(name)
    GatedHasher.gate.set()
    runner = start_server()
    player = EspolClient("127.0.0.1", runner.port, timeout=10.0)
    player.send("USER:eve")
    assert player.send(f"PASS:{PASSWORD}").code == 102
    GatedHasher.gate.clear()
    logins = []
    try:
        for name in ("alice", "bob", "carol", "dave"):
            client = EspolClient("127.0.0.1", runner.port, timeout=10.0)
            assert client.send(f"USER:{name}").code == 101
            client.send_raw(f"PASS:{PASSWORD}\r\n".encode())
            logins.append(client)
        assert wait_until(lambda: GatedHasher.waiting == 1)
        # Four logins wait on the gate, more than the two command threads: still served.
        assert player.send("SRNK").code == 103
        assert GatedHasher.waiting == 1
    finally:
        GatedHasher.gate.set()
    assert [client.receive().code for client in logins] == [102, 102, 102, 102]
    for client in [player, *logins]:
        client.close()


@pytest.mark.skipif(sys.platform != "linux", reason="per-thread scheduling is Linux's")
def test_password_checks_run_only_on_cpu_the_commands_leave_idle(
    start_server, settings, make_player
):
    # A burst of logins then takes only the CPU that moves and lists leave idle.
    settings.PASSWORD_HASHERS = ["tests.protocols.hashers.PolicyRecordingHasher"]
    make_player("alice")
    PolicyRecordingHasher.seen.clear()
    runner = start_server()
    client = EspolClient("127.0.0.1", runner.port, timeout=10.0)
    assert client.send("USER:alice").code == 101
    assert client.send(f"PASS:{PASSWORD}").code == 102
    client.close()
    assert PolicyRecordingHasher.seen == [os.SCHED_IDLE]


# --------------------------------------------------------------------------- logs, TLS, shutdown


def test_logs_never_hold_passwords(connect, alice, caplog):
    caplog.set_level(logging.INFO, logger="legacy_tcp.espol")
    client = connect()
    client.send("USER:alice")
    client.send("PASS:wrong-Secret1")
    client.send(f"PASS:{PASSWORD}")
    client.send("SUBS:dora:Secret2-pass:Dora")
    client.send("UNSU:alice:Secret3-pass")
    client.send("JUEG:nobody")
    assert wait_until(lambda: "JUEG:nobody" in caplog.text)
    for secret in ("Secret1", PASSWORD, "Secret2", "Secret3"):
        assert secret not in caplog.text
    assert "PASS:***" in caplog.text
    assert "code=815" in caplog.text


def command_logs(caplog) -> list[str]:
    return [
        r.getMessage() for r in caplog.records if r.getMessage().startswith("espol.command ")
    ]


def fields_of(message: str) -> dict[str, str]:
    """The key=value fields of a log message, read as a shell would split them."""
    fields: dict[str, str] = {}
    for token in shlex.split(message)[1:]:
        key, _, value = token.partition("=")
        assert key not in fields, f"field {key} twice in {message!r}"
        fields[key] = value
    return fields


def test_client_text_in_logs_is_quoted_so_it_cannot_forge_fields(connect, alice, caplog):
    caplog.set_level(logging.INFO, logger="legacy_tcp.espol")
    client = connect()
    assert client.send("USER:x code=102 user=admin").code == 814
    client.send_raw(b"USER:a\x1b[2Jb\rc\r\n")
    assert client.receive().code == 814
    client.send("USER:alice")
    assert wait_until(lambda: len(command_logs(caplog)) == 3)
    forged, control, plain = (fields_of(message) for message in command_logs(caplog))
    assert forged["command"] == "USER:x code=102 user=admin"
    assert (forged["user"], forged["code"]) == ("None", "814")
    assert control["command"] == r"USER:a\x1b[2Jb\rc"
    assert all(c.isprintable() for c in command_logs(caplog)[1])
    assert (plain["command"], plain["code"]) == ("USER:alice", "101")


def test_commands_and_connections_are_logged(connect, alice, caplog):
    caplog.set_level(logging.INFO, logger="legacy_tcp.espol")
    client = connect()
    client.send("USER:alice")
    client.send_raw(b"QUIT\r\n")
    assert client.receive() is None
    assert wait_until(lambda: "espol.disconnect" in caplog.text)
    assert "espol.connect" in caplog.text
    assert "command=USER:alice code=101" in caplog.text
    assert "reason=quit" in caplog.text


def test_tls_sessions_work_end_to_end(start_server, alice, tmp_path):
    cert, key = make_certificate(tmp_path)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    runner = start_server(ssl_context=context)
    client = EspolClient("127.0.0.1", runner.port, tls=True)
    assert client.send("USER:alice").code == 101
    assert client.send(f"PASS:{PASSWORD}").code == 102
    client.close()


def test_shutdown_finishes_the_command_in_flight(start_server, alice, game, monkeypatch):
    from games import services

    real_make_move = services.make_move
    entered = threading.Event()

    def slow_make_move(**kwargs):
        entered.set()
        time.sleep(0.5)
        return real_make_move(**kwargs)

    monkeypatch.setattr(services, "make_move", slow_make_move)
    runner = start_server()
    client = EspolClient("127.0.0.1", runner.port)
    client.send("USER:alice")
    client.send(f"PASS:{PASSWORD}")
    idle = EspolClient("127.0.0.1", runner.port)
    assert idle.send("HELP").code == 103
    client.send_raw(f"JGDA:{game.public_id}:1:e2e4:0:1228:0\r\n".encode())
    assert entered.wait(5)
    stopper = threading.Thread(target=runner.stop, kwargs={"grace": 5.0})
    stopper.start()
    reply = client.receive()
    assert (reply.code, reply.text) == (103, "1:0:0")
    assert client.receive() is None
    assert idle.receive() is None
    stopper.join(10)
    assert Move.objects.filter(game=game).count() == 1
    with pytest.raises(OSError):
        EspolClient("127.0.0.1", runner.port, timeout=1).send("HELP")
    client.close()
    idle.close()


def test_shutdown_answers_a_line_that_arrived_as_it_began(start_server, alice, caplog):
    caplog.set_level(logging.INFO, logger="legacy_tcp.espol")
    runner = start_server()
    client = EspolClient("127.0.0.1", runner.port)
    assert client.send("USER:alice").code == 101
    server = runner.server

    async def line_arrives_then_stop() -> None:
        # In one step of the loop: the line is in the connection's buffer and its task is
        # woken but has not run yet when the shutdown starts.
        (conn,) = server._connections.values()
        conn.reader.feed_data(b"HELP\r\n")
        await server.stop(grace=5.0)

    runner.call(line_arrives_then_stop())
    assert client.receive().code == 103
    assert client.receive() is None
    assert "reason=shutdown" in caplog.text
    client.close()


def test_random_lines_each_get_one_clean_reply_and_the_session_survives(connect, alice):
    import random

    rng = random.Random(1995)
    alphabet = b"USERPASJGDTBLSQIH:0123456789P\r\x00\xff\xc3 abc"
    client = connect()
    for _ in range(300):
        line = bytes(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
        line = line.replace(b"\n", b"")
        if line.rstrip(b"\r").strip().startswith(b"QUIT"):
            continue
        client.send_raw(line + b"\r\n")
        reply = client.receive()
        assert reply is not None, line
        # Any answer the protocol defines, but never a server error.
        assert reply.code in {101, 102, 103, 105, 801, 802, 803, 814, 815, 850}, (line, reply)
    assert client.send("USER:alice").code == 101
