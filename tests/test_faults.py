"""A part that is down answers 503 "try again", never a bare 500, and /healthz names it.

Daphne serves the project on a PostgreSQL cluster and a Redis server of this test's own,
which the test stops and starts again: the suite's shared services, which other tests may
be using at the same moment, are left alone. Requests that asked for a page get one in the
site's layout; the others (the board's ``fetch``, API clients) get JSON with a code.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urlencode

import pytest

from ajedrez.core.faults import unavailable_part
from ajedrez.faults import wants_page
from tests.servers import ROOT, ServerProcess, free_port, in_ci, server_environment

# A CSRF secret of the form Django issues (32 letters and digits), sent as cookie and
# header alike, as the site's own script does.
CSRF = "a" * 32
PAGE = {"Accept": "text/html,application/xhtml+xml,*/*;q=0.8", "Accept-Language": "en"}
FETCH = {"Accept": "*/*"}


# --------------------------------------------------------------------------- no servers


def test_a_refused_redis_or_database_connection_is_an_unavailable_part():
    from django.db import OperationalError
    from redis.exceptions import ConnectionError as RedisConnectionError

    assert unavailable_part(RedisConnectionError("refused")) == "redis"
    assert unavailable_part(OperationalError("connection refused")) == "database"
    assert unavailable_part(ValueError("a bug")) is None
    assert unavailable_part(None) is None


def test_an_unavailable_part_is_found_behind_the_error_that_wraps_it():
    from redis.exceptions import ConnectionError as RedisConnectionError

    try:
        try:
            raise RedisConnectionError("refused")
        except RedisConnectionError as cause:
            raise RuntimeError("the cache failed") from cause
    except RuntimeError as wrapper:
        assert unavailable_part(wrapper) == "redis"


def test_only_a_request_that_names_html_wants_a_page(rf):
    assert wants_page(rf.get("/", HTTP_ACCEPT=PAGE["Accept"]))
    assert not wants_page(rf.get("/", HTTP_ACCEPT="*/*"))
    assert not wants_page(rf.get("/", HTTP_ACCEPT="application/json, text/html"))
    assert not wants_page(rf.get("/"))


@pytest.mark.django_db
def test_healthz_says_every_part_is_up_on_the_embedded_defaults(settings):
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    settings.REDIS_URL = ""
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {
        "status": "ok", "database": "ok", "redis": "not used", "cache": "ok"
    }
    for method in ("post", "put", "delete", "patch"):
        # 405 with what is allowed, not the CSRF refusal's page.
        answer = getattr(client, method)("/healthz")
        assert answer.status_code == 405 and answer["Allow"] == "GET, HEAD", method


# --------------------------------------------------------------------------- real services


def _postgres_bin() -> Path | None:
    pg_config = shutil.which("pg_config")
    if pg_config is None:
        return None
    bindir = Path(subprocess.run([pg_config, "--bindir"], capture_output=True, text=True,
                                 check=True).stdout.strip())
    return bindir if (bindir / "initdb").exists() else None


def _need(tool: str, found: object) -> None:
    if not found:
        message = f"{tool} is not installed: the stopped-service tests need it"
        if in_ci(os.environ):
            pytest.fail(message)
        pytest.skip(message)


class PrivatePostgres:
    """A PostgreSQL cluster in a temporary directory, on a free loopback port, run as the
    ``postgres`` user (PostgreSQL refuses to run as root)."""

    def __init__(self, bindir: Path) -> None:
        self.bindir = bindir
        self.port = free_port()
        self.home = Path(tempfile.mkdtemp(prefix="ajedrez-pg-"))
        shutil.chown(self.home, "postgres")
        self.data = self.home / "data"
        self._as_postgres(
            str(bindir / "initdb"), "-D", str(self.data), "--auth=trust", "-U", "postgres",
            "--no-sync",
        )
        self.start()
        self._as_postgres(
            str(bindir / "createdb"), "-h", "127.0.0.1", "-p", str(self.port), "-U",
            "postgres", "ajedrez",
        )
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/ajedrez"

    def _as_postgres(self, *argv: str) -> None:
        prefix = ["runuser", "-u", "postgres", "--"] if _is_root() else []
        subprocess.run([*prefix, *argv], check=True, capture_output=True, cwd=self.home)

    def start(self) -> None:
        self._as_postgres(
            str(self.bindir / "pg_ctl"), "-D", str(self.data), "-w", "-l",
            str(self.home / "log"), "-o",
            f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.home} -c fsync=off",
            "start",
        )

    def stop(self) -> None:
        self._as_postgres(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-w", "-m",
                          "fast", "stop")

    def remove(self) -> None:
        with contextlib.suppress(subprocess.CalledProcessError):
            self.stop()
        shutil.rmtree(self.home, ignore_errors=True)


def _is_root() -> bool:
    return os.geteuid() == 0


class PrivateRedis:
    def __init__(self) -> None:
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen | None = None
        self.start()

    def start(self) -> None:
        self.process = subprocess.Popen(
            ["redis-server", "--bind", "127.0.0.1", "--port", str(self.port), "--save", "",
             "--appendonly", "no"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while subprocess.run(["redis-cli", "-p", str(self.port), "ping"], capture_output=True,
                             text=True).stdout.strip() != "PONG":
            assert time.monotonic() < deadline, "redis-server did not start"
            time.sleep(0.05)

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
            self.process = None


SETUP = """
import json
from django.contrib.auth import get_user_model
from django.test import Client
from games.models import Game
alice = get_user_model().objects.get(username="alice")
client = Client()
client.force_login(alice)
from django.conf import settings
game = Game.objects.of_player(alice, status=Game.Status.ACTIVE).order_by("pk").first()
print(json.dumps({"game": game.pk, "cookie": client.cookies[settings.SESSION_COOKIE_NAME].value}))
"""


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    """Daphne on a private PostgreSQL and Redis, seeded with the demo; alice's session."""
    bindir = _postgres_bin()
    _need("PostgreSQL (pg_config, initdb)", bindir)
    _need("redis-server", shutil.which("redis-server") and shutil.which("redis-cli"))
    postgres = PrivatePostgres(bindir)
    redis = PrivateRedis()
    env = {**server_environment(postgres.url), "REDIS_URL": redis.url}
    try:
        for argv in (["migrate", "--noinput"], ["seed_demo"]):
            subprocess.run([sys.executable, "manage.py", *argv], cwd=ROOT, env=env, check=True,
                           capture_output=True)
        made = subprocess.run([sys.executable, "manage.py", "shell", "-c", SETUP], cwd=ROOT,
                              env=env, check=True, capture_output=True, text=True)
        seeded = json.loads(made.stdout.strip().splitlines()[-1])
        log = tmp_path_factory.mktemp("faults") / "daphne.log"
        port = free_port()
        server = ServerProcess(
            [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port),
             "ajedrez.asgi:application"], port, env, log,
        )
        yield {"server": server, "postgres": postgres, "redis": redis, **seeded}
        server.stop()
    finally:
        redis.stop()
        postgres.remove()


def _request(stack, path, *, method="GET", headers=None, data=None, session=True):
    cookies = [f"csrftoken={CSRF}"]
    if session:
        cookies.append(f"sessionid={stack['cookie']}")
    request = urllib.request.Request(
        f"http://127.0.0.1:{stack['server'].port}{path}", method=method,
        headers={"Cookie": "; ".join(cookies), "X-CSRFToken": CSRF,
                 "Content-Type": "application/x-www-form-urlencoded", **(headers or {})},
        data=data,
    )
    try:
        with urllib.request.urlopen(request, timeout=20) as response:
            return response.status, dict(response.headers), response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read().decode()


def _socket_close_code(stack, path: str) -> int | None:
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    port = stack["server"].port
    with connect(
        f"ws://127.0.0.1:{port}{path}", open_timeout=20,
        additional_headers={"Cookie": f"sessionid={stack['cookie']}",
                            "Origin": f"http://127.0.0.1:{port}"},
    ) as socket:
        try:
            socket.recv(timeout=20)
        except ConnectionClosed as closed:
            return closed.rcvd.code if closed.rcvd else None
    return None


def _healthz(stack):
    status, _headers, body = _request(stack, "/healthz")
    return status, json.loads(body)


def test_with_redis_stopped_json_gets_503_a_page_gets_the_layout_and_healthz_says_redis(stack):
    assert _healthz(stack) == (
        200, {"status": "ok", "database": "ok", "redis": "ok", "cache": "ok"}
    )
    stack["redis"].stop()
    try:
        status, body = _healthz(stack)
        assert (status, body["redis"], body["database"]) == (503, "down", "ok")

        # A chat post counts its rate in the cache, which is Redis here.
        status, headers, text = _request(
            stack, f"/games/{stack['game']}/chat/", method="POST",
            headers={"Accept": "application/json"}, data=b"text=hola",
        )
        assert status == 503, text[:500]
        assert headers["Retry-After"] == "5"
        assert json.loads(text)["unavailable"] == "redis"

        # A live socket cannot join its groups: closed with the code the pages read as
        # "offline, try again later", not with a traceback.
        assert _socket_close_code(stack, "/ws/lobby/") == 4503

        # The subscription form counts requests per address in the cache too.
        form = urlencode({"username": "newcomer", "password1": "a long pass phrase 1",
                          "password2": "a long pass phrase 1", "comment": "",
                          "email": ""}).encode()
        status, headers, text = _request(stack, "/accounts/subscribe/", method="POST",
                                         headers=PAGE, data=form, session=False)
        assert status == 503, text[:500]
        assert "briefly unavailable" in text and "<nav" in text
    finally:
        stack["redis"].start()
    deadline = time.monotonic() + 20
    while _healthz(stack)[0] != 200:
        assert time.monotonic() < deadline, "healthz did not recover after Redis returned"
        time.sleep(0.2)


def test_with_postgres_stopped_json_gets_503_and_a_page_gets_the_layout(stack):
    state = f"/games/{stack['game']}/state/"
    assert _request(stack, state, headers=FETCH)[0] == 200
    stack["postgres"].stop()
    try:
        status, headers, text = _request(stack, state, headers=FETCH)
        assert status == 503, text[:500]
        assert headers["Retry-After"] == "5"
        assert json.loads(text)["code"] == "unavailable"
        assert json.loads(text)["unavailable"] == "database"

        status, headers, text = _request(stack, "/", headers=PAGE)
        assert status == 503
        assert "text/html" in headers["Content-Type"]
        assert "briefly unavailable" in text and "<nav" in text
        spanish = {**PAGE, "Accept-Language": "es"}
        status, headers, text = _request(stack, "/", headers=spanish)
        assert status == 503 and "no está disponible por un momento" in text

        status, body = _healthz(stack)
        assert (status, body["database"], body["redis"]) == (503, "down", "ok")
    finally:
        stack["postgres"].start()
    deadline = time.monotonic() + 20
    while _request(stack, state, headers=FETCH)[0] != 200:
        assert time.monotonic() < deadline, "the game did not read again after PostgreSQL"
        time.sleep(0.2)
    assert _healthz(stack)[0] == 200
