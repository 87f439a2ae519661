"""What unauthenticated connections may cost the gateway: a time limit to log in."""

from __future__ import annotations

import logging
import time

import pytest

from legacy_tcp.client import EspolClient
from tests.conftest import PASSWORD
from tests.protocols.test_espol_hygiene import closed_by_server, wait_until

# Only there so that a broken server fails a test instead of hanging it.
TIMEOUT = 20.0


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
