"""The repository's nginx site (``deploy/nginx/ajedrez.conf``) in front of two Daphne
processes, as docs/deploy.md deploys them: pages, static files, sockets and a move's
HTTP post all go through nginx, and a move reaches the opponent's socket on the other
process (Redis carries it between them)."""

from __future__ import annotations

import asyncio
import gzip
import json
import os
import re
import subprocess
import urllib.parse
import urllib.request

import pytest
import websockets
from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from django.conf import settings

from tests.nginx import NGINX, SITE, NginxProcess, render_site, require_nginx
from tests.servers import ROOT, session_cookie

FRAME_TIMEOUT = 15.0


def test_the_site_is_rendered_with_the_ports_given_and_nothing_else_changed():
    original = SITE.read_text()
    rendered = render_site(original, 18080, [18001, 18002, 18003])
    assert "listen 127.0.0.1:18080;" in rendered
    assert re.findall(r"server 127\.0\.0\.1:(\d+);", rendered) == ["18001", "18002", "18003"]
    kept = [line for line in original.splitlines()
            if "listen 80;" not in line and "server 127.0.0.1:" not in line]
    assert [line for line in rendered.splitlines()
            if "listen 127.0.0.1:" not in line and "server 127.0.0.1:" not in line] == kept


@pytest.fixture
def nginx(daphne, tmp_path):
    require_nginx(NGINX, os.environ)
    webs = [daphne("--proxy-headers"), daphne("--proxy-headers")]
    proxy = NginxProcess(tmp_path / "nginx", [web.port for web in webs])
    yield proxy
    proxy.stop()


async def open_socket(base_port: int, game_id: int, cookie: str):
    """A game page's socket through nginx; returns it and the process that took it."""
    ws = await websockets.connect(
        f"ws://127.0.0.1:{base_port}/ws/games/{game_id}/",
        origin=f"http://127.0.0.1:{base_port}",
        additional_headers={"Cookie": cookie},
        open_timeout=FRAME_TIMEOUT,
    )
    snapshot = json.loads(await asyncio.wait_for(ws.recv(), FRAME_TIMEOUT))
    assert snapshot["type"] == "snapshot"
    return ws, ws.response.headers["X-Upstream"]


async def next_event(ws) -> dict:
    while True:
        frame = json.loads(await asyncio.wait_for(ws.recv(), FRAME_TIMEOUT))
        if frame["type"] != "ack":
            return frame


@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
async def test_a_move_through_nginx_reaches_the_opponent_on_the_other_process(
    nginx, alice, bob, start_game
):
    base = f"http://127.0.0.1:{nginx.port}"
    game = await database_sync_to_async(start_game)(alice, bob)
    cookies = {u.username: await database_sync_to_async(session_cookie)(u) for u in (alice, bob)}

    # A page and its static files, through nginx, gzipped from WhiteNoise.
    page = urllib.request.Request(f"{base}/games/{game.pk}/", headers={"Cookie": cookies["bob"]})
    with await sync_to_async(urllib.request.urlopen)(page, timeout=10) as response:
        html = response.read().decode()
    css = re.search(r'href="(/static/css/game\.[0-9a-f]{12}\.css)"', html)
    assert css, html[:2000]
    static = urllib.request.Request(base + css.group(1), headers={"Accept-Encoding": "gzip"})
    with await sync_to_async(urllib.request.urlopen)(static, timeout=10) as response:
        assert response.headers["Content-Encoding"] == "gzip"
        assert gzip.decompress(response.read()) == (
            settings.BASE_DIR / "static/css/game.css"
        ).read_bytes()

    # Round robin: open sockets until alice's and bob's are on different processes.
    alice_ws, alice_process = await open_socket(nginx.port, game.pk, cookies["alice"])
    for _ in range(4):
        bob_ws, bob_process = await open_socket(nginx.port, game.pk, cookies["bob"])
        if bob_process != alice_process:
            break
        await bob_ws.close()
    assert bob_process != alice_process

    # alice moves in her socket; bob's socket, on the other process, gets it.
    await alice_ws.send(json.dumps({"type": "move", "number": 1, "move": "e2e4"}))
    for ws in (bob_ws, alice_ws):
        event = await next_event(ws)
        assert (event["event"], event["move"]["uci"]) == ("move", "e2e4")

    # bob answers with the page's HTTP fallback, through nginx; alice's socket gets it.
    token = "c" * 32
    post = urllib.request.Request(
        f"{base}/games/{game.pk}/move/",
        data=urllib.parse.urlencode({"number": 2, "move": "e7e5"}).encode(),
        headers={
            "Cookie": f"{cookies['bob']}; csrftoken={token}",
            "X-CSRFToken": token,
            "Accept": "application/json",
            "Origin": base,
        },
    )
    with await sync_to_async(urllib.request.urlopen)(post, timeout=10) as response:
        assert response.status == 200
    event = await next_event(alice_ws)
    assert (event["event"], event["move"]["uci"]) == ("move", "e7e5")
    await alice_ws.close()
    await bob_ws.close()


@pytest.mark.django_db(transaction=True)
def test_a_client_cannot_choose_the_address_its_failed_logins_count_against(nginx, alice):
    """nginx replaces X-Forwarded-For with the address it sees: a guesser who sends one
    of his own still has his failures counted against his own address."""
    from axes.models import AccessAttempt

    base = f"http://127.0.0.1:{nginx.port}"
    token = "d" * 32
    login = urllib.request.Request(
        f"{base}/accounts/login/",
        data=urllib.parse.urlencode(
            {"username": "alice", "password": "wrong", "csrfmiddlewaretoken": token}
        ).encode(),
        headers={"Cookie": f"csrftoken={token}", "Origin": base,
                 "X-Forwarded-For": "203.0.113.9"},
    )
    with urllib.request.urlopen(login, timeout=10) as response:
        assert response.status == 200  # the form again, with the error

    assert list(AccessAttempt.objects.values_list("username", "ip_address")) == [
        ("alice", "127.0.0.1")
    ]


def test_missing_nginx_skips_outside_ci(tmp_path):
    with pytest.raises(pytest.skip.Exception, match="not installed"):
        require_nginx(tmp_path / "nginx", {})


def test_missing_nginx_fails_in_ci(tmp_path):
    with pytest.raises(pytest.fail.Exception, match="CI is set"):
        require_nginx(tmp_path / "nginx", {"CI": "true"})


@pytest.mark.parametrize(("ci", "code", "says"), [("true", 1, "CI is set"), ("", 0, "skipped")])
def test_the_check_script_fails_in_ci_and_warns_elsewhere_without_nginx(tmp_path, ci, code, says):
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    result = subprocess.run(
        [str(ROOT / "scripts" / "check_nginx")],
        env={**env, "CI": ci, "AJEDREZ_NGINX": str(tmp_path / "nginx")},
        capture_output=True, text=True, timeout=30, check=False,
    )
    assert result.returncode == code
    assert says in result.stdout + result.stderr
