"""Browser tests against the real thing: Daphne serving the ASGI application (HTTP,
WebSocket, static files) in a subprocess on a free loopback port, on the test database,
driven by Debian's Chromium through Playwright."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from django.conf import settings
from django.db import connections
from django.test import Client

from accounts import services as account_services
from tests.servers import (
    database_url_for_servers,
    free_port,
    in_ci,
    wait_for_server_sessions_to_end,
)

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "artifacts" / "screenshots"


def require_browser(chromium: Path, env: Mapping[str, str]) -> None:
    """Skip the browser tests, with the reason, when ``chromium`` is missing; in CI fail
    instead, since a run that skipped them all would otherwise pass."""
    if chromium.exists():
        return
    reason = f"{chromium} is not installed: browser tests need Debian's chromium"
    if in_ci(env):
        pytest.fail(f"{reason}, and CI is set: install it (apt-get install -y chromium)",
                    pytrace=False)
    pytest.skip(reason)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/e2e/" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(pytest.mark.e2e)


@pytest.fixture(scope="session")
def server_url(django_db_setup, django_db_blocker, tmp_path_factory) -> Iterator[str]:
    """Daphne on a free loopback port, serving the project against the test database."""
    require_browser(CHROMIUM, os.environ)
    with django_db_blocker.unblock():
        database_url = database_url_for_servers()
    port = free_port()
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "DJANGO_SETTINGS_MODULE": "ajedrez.settings",
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "SECRET_KEY": settings.SECRET_KEY,
        "STATIC_ROOT": str(settings.STATIC_ROOT),
        "PYTHONPATH": str(ROOT),
        "LOG_LEVEL": "WARNING",
    }
    log_path = tmp_path_factory.mktemp("daphne") / "daphne.log"
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port),
             "ajedrez.asgi:application"],
            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
        )
    deadline = time.monotonic() + 30
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                break
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                pytest.fail(f"daphne did not start:\n{log_path.read_text()[-3000:]}")
            time.sleep(0.1)
    yield f"http://127.0.0.1:{port}"
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    with django_db_blocker.unblock():
        wait_for_server_sessions_to_end()


@pytest.fixture(scope="session")
def browser() -> Iterator[Callable[[], Browser]]:
    """Chromium, started once per test process (at the first page a test opens) rather
    than once per test: starting Playwright's driver and the browser took about 2 s of
    each test's 4. Each test has contexts of its own (``new_page``): cookies, storage and
    cache do not pass from one test to the next."""
    from playwright.sync_api import sync_playwright

    started: dict = {}

    def get() -> Browser:
        if not started:
            started["playwright"] = sync_playwright().start()
            started["browser"] = started["playwright"].chromium.launch(
                executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True
            )
        enter_playwrights_loop(started["browser"])
        return started["browser"]

    yield get
    if started:
        enter_playwrights_loop(started["browser"])
        started["browser"].close()
        started["playwright"].stop()
        leave_playwrights_loop()


def leave_playwrights_loop() -> None:
    """Playwright's sync API runs its event loop in this thread, suspended between its
    calls but marked as the thread's running loop (``asyncio._set_running_loop``, as
    Playwright itself does). A test ends with the mark taken off: the thread is a plain
    synchronous one again, where the next test's setup (the service layer's after-commit
    publishing calls the channel layer from sync code) and other tests' event loops run."""
    asyncio._set_running_loop(None)


def enter_playwrights_loop(browser: Browser) -> None:
    """Mark Playwright's loop as running again, as it was after its last call: its calls
    resume it and expect the mark."""
    asyncio._set_running_loop(browser._loop)  # type: ignore[attr-defined]


@pytest.fixture
def new_page(server_url, browser, transactional_db, monkeypatch) -> Iterator[Callable]:
    """Make a page in a fresh browser context, logged in as ``user`` when one is given;
    on the test run's Daphne unless ``base_url`` names another server; in the machine's
    time zone unless ``timezone_id`` names another (``"America/Bogota"``).

    While a test uses the browser, Playwright's event loop is marked as running in this
    thread, where the service layer's after-commit publishing (sync code calling the
    channel layer) cannot run. So a test does its setup through the services first, then
    opens its pages. Django's async-safety check would also refuse the test's own ORM
    reads between browser steps; they never run concurrently with anything, so it is
    switched off for these tests.
    """
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    contexts: list[BrowserContext] = []

    def make(
        user=None,
        *,
        width: int = 1280,
        height: int = 900,
        javascript: bool = True,
        color_scheme: str = "light",
        locale: str = "en-US",
        timezone_id: str | None = None,
        base_url: str = server_url,
    ):
        context = browser().new_context(
            base_url=base_url,
            viewport={"width": width, "height": height},
            locale=locale,
            timezone_id=timezone_id,
            color_scheme=color_scheme,
            java_script_enabled=javascript,
            accept_downloads=True,
        )
        contexts.append(context)
        if user is not None:
            client = Client()
            client.force_login(user)
            name = settings.SESSION_COOKIE_NAME
            context.add_cookies(
                [{"name": name, "value": client.cookies[name].value, "url": base_url}]
            )
        page = context.new_page()
        page.set_default_timeout(10_000)
        return page

    yield make
    if contexts:
        # With Playwright's loop running, Django kept the test's ORM connection per
        # context rather than per thread: close it here, or it outlives the test.
        connections.close_all()
        for context in contexts:
            context.close()
        leave_playwrights_loop()


@pytest.fixture
def make_player(make_player) -> Callable:
    """Players who send their moves without confirming them (the ``confirm_moves``
    preference off), unless made with ``confirm_moves=True``. Most browser tests are
    about something else and make many moves; ``test_move_confirmation_browser.py``
    tests confirmation, and the journey from subscribing to mate confirms its moves,
    as accounts made through the site do by default."""

    def make(username: str, *args, confirm_moves: bool = False, **fields):
        player = make_player(username, *args, **fields)
        account_services.save_preferences(player=player, values={"confirm_moves": confirm_moves})
        return player

    return make


@pytest.fixture
def screenshot() -> Callable:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)

    def take(page, name: str) -> Path:
        page.wait_for_timeout(400)  # let the board's piece animations finish
        path = SCREENSHOTS / f"{name}.png"
        page.screenshot(path=str(path), full_page=True)
        return path

    return take
