"""A game registered over the ``#`` protocol and finished in Chromium: ``manage.py serve``
runs the web and the gateways in one process (the in-memory channel layer joins them),
on the test database; the players' names are linked to their accounts and the gateway
requires its secret."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest
from django.conf import settings
from playwright.sync_api import expect

from accounts.services import make_gateway_key
from games.models import Game
from legacy_tcp.models import LinkedName
from tests.e2e.conftest import CHROMIUM, ROOT, require_browser
from tests.servers import database_url_for_servers, free_port, wait_for_server_sessions_to_end

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"


@pytest.fixture
def served(transactional_db, tmp_path) -> Iterator[dict[str, int]]:
    require_browser(CHROMIUM, os.environ)
    ports = {"web": free_port(), "espol": free_port(), "distribuido": free_port()}
    env = {
        **os.environ,
        "DATABASE_URL": database_url_for_servers(),
        "SECRET_KEY": settings.SECRET_KEY,
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "DISTRIBUIDO_SECRET": "club-key",
        "LOG_LEVEL": "WARNING",
        # The files the test run collected once (collecting beside other tests' servers
        # into one directory would rename each other's files).
        "STATIC_ROOT": str(settings.STATIC_ROOT),
    }
    env.pop("REDIS_URL", None)
    log_path = tmp_path / "serve.log"
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            [sys.executable, "manage.py", "serve", "--no-migrate", "--no-demo", "--no-chessirc",
             "--no-collectstatic",
             "--port", str(ports["web"]), "--espol-port", str(ports["espol"]),
             "--distribuido-port", str(ports["distribuido"])],
            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
        )
    deadline = time.monotonic() + 60
    while b"# protocol gateway:" not in log_path.read_bytes():
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            pytest.fail(f"serve did not start:\n{log_path.read_text()[-3000:]}")
        time.sleep(0.2)
    yield ports
    process.terminate()
    try:
        process.wait(20)
    except subprocess.TimeoutExpired:
        # A loaded machine may take longer to stop it gracefully: what is tested is done.
        process.kill()
        process.wait()
    wait_for_server_sessions_to_end()


class HashClient:
    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.lines = self.sock.makefile("rb")

    def line(self) -> str:
        return self.lines.readline().decode().rstrip("\n")

    def ask(self, text: str) -> str:
        self.sock.sendall(text.encode() + b"\n")
        return self.line()


def test_a_game_registered_over_tcp_is_finished_in_the_browser(served, alice, bob, new_page):
    LinkedName.objects.create(gateway="distribuido", name="ali", player=alice)
    LinkedName.objects.create(gateway="distribuido", name="bo", player=bob)
    keys = {"ali": make_gateway_key(player=alice), "bo": make_gateway_key(player=bob)}
    white, black = HashClient(served["distribuido"]), HashClient(served["distribuido"])
    for client, name, colour in ((white, "ali", "B"), (black, "bo", "N")):
        assert client.ask("#CLAVE#club-key#") == "#OK#"
        assert client.ask(f"#INSCRIBIR#{name}:{keys[name]}#") == f"#OK#{colour}#"
    assert black.line() == white.line() == f"#INICIO#B#{START}#"
    assert white.ask("#MOVIMIENTO#ali#e4#").startswith("#OK#N#")
    assert black.line().startswith("#OK#N#")
    game = Game.objects.get()

    page = new_page(bob, base_url=f"http://127.0.0.1:{served['web']}")
    page.goto(f"/games/{game.pk}/")
    expect(page.locator("#game")).to_have_attribute("data-connection", "connected")
    # The move made over TCP is on bob's board; he resigns in the browser.
    expect(page.locator("#move-list")).to_contain_text("e4")
    page.locator("#resign summary").click()
    page.locator("#btn-resign-confirm").click()
    expect(page.locator("#result-banner")).to_contain_text("1-0")
    for client in (white, black):
        assert client.line() == "#OK#B#"
        assert client.line() == "#FIN#GANADOR_B#"
    game.refresh_from_db()
    assert (game.result, game.termination, game.rated) == ("1-0", "resignation", True)
