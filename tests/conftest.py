"""Fixtures that read like the domain: players, games started from a challenge, moves."""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator

import pytest
from django.conf import settings as django_settings
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import PBKDF2PasswordHasher

from games import services
from games.models import Game
from tests.passes import channel_layer_guard, deselect_engine_independent
from tests.servers import (
    DaphneProcess,
    collect_static,
    database_url_for_servers,
    wait_for_server_sessions_to_end,
)
from tests.smtp import Inbox, free_port
from tests.workers import use_the_workers_own_redis_database

User = get_user_model()

PASSWORD = "correct-horse"


# Django's connection per request in this process, not the persistent connections the
# servers keep (CONN_MAX_AGE in ajedrez/settings.py): a test's socket calls run in
# database_sync_to_async's thread, which would otherwise keep its PostgreSQL session
# after the test, and PostgreSQL refuses to drop a test database that has sessions. The
# servers the tests start in other processes keep the setting's default; they are
# stopped, and their sessions waited for, before the database is dropped.
django_settings.DATABASES["default"]["CONN_MAX_AGE"] = 0

# Settings are loaded before this file (by pytest-django): a worker of a parallel run
# moves to its own Redis database here, before anything uses it.
use_the_workers_own_redis_database()


def pytest_collection_modifyitems(config, items) -> None:
    """Tests marked ``postgres`` or ``redis`` skip, with the reason shown, without them.
    On PostgreSQL or Redis, the tests that use neither database nor channel layer are
    left out: they ran in the pass on the embedded defaults (tests/passes.py)."""
    on_postgres = django_settings.DATABASES["default"]["ENGINE"].endswith("postgresql")
    on_redis = bool(os.environ.get("REDIS_URL"))
    if on_postgres or on_redis:
        deselect_engine_independent(config, items)
    skip_pg = pytest.mark.skip(reason="needs PostgreSQL: set DATABASE_URL=postgresql://...")
    skip_redis = pytest.mark.skip(reason="needs Redis: set REDIS_URL=redis://...")
    for item in items:
        if "postgres" in item.keywords and not on_postgres:
            item.add_marker(skip_pg)
        if "redis" in item.keywords and not on_redis:
            item.add_marker(skip_redis)


@pytest.fixture(autouse=True)
def _channel_layer_guard(request, monkeypatch) -> Iterator[None]:
    yield from channel_layer_guard(request, monkeypatch)


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker) -> Iterator[None]:
    """pytest-django's test database, dropped only once the sessions of the servers and
    threads the last tests started have ended: PostgreSQL refuses to drop a database in
    use, and under xdist any test may be a worker's last."""
    yield
    with django_db_blocker.unblock():
        wait_for_server_sessions_to_end()


@pytest.fixture(scope="session", autouse=True)
def _collected_static_files() -> Iterator[None]:
    """Pages name static files by their hashed names, read from collectstatic's manifest:
    collect them once (kept between runs while the sources are unchanged) for this
    process and for the servers the tests start (``STATIC_ROOT`` in their environment).

    Here WhiteNoise looks files up when asked (autorefresh) instead of indexing them when
    the middleware is built, which Django's test client does for every client: 45 ms
    each. The servers the tests start index them at start, as a deployment does."""
    from django.test import override_settings

    override = override_settings(STATIC_ROOT=collect_static(), WHITENOISE_AUTOREFRESH=True)
    override.enable()
    yield
    override.disable()


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings):
    # PBKDF2 at production strength costs ~0.5 s a hash; the tests make hundreds.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def production_hashers(settings) -> list[str]:
    """The project's own password hashers (Argon2 first), for the tests of hashing itself."""
    from django.conf import global_settings

    from ajedrez import settings as project_settings

    settings.PASSWORD_HASHERS = getattr(
        project_settings, "PASSWORD_HASHERS", global_settings.PASSWORD_HASHERS
    )
    return settings.PASSWORD_HASHERS


def pbkdf2_hash(password: str) -> str:
    """``password`` hashed as accounts made before Argon2 were: PBKDF2 (with few
    iterations, so that checking it stays quick; it is upgraded all the same, since
    Argon2 is preferred)."""
    hasher = PBKDF2PasswordHasher()
    return hasher.encode(password, hasher.salt(), iterations=1000)


@pytest.fixture(autouse=True)
def _fresh_redis_channel_layer() -> Iterator[None]:
    """Each test runs on an event loop of its own, and a channels-redis layer keeps
    loop-bound locks (one for all of a process's own channels): a socket a test left
    receiving would leave it held for the next test's loop ("bound to a different event
    loop"). Over Redis a new layer instance per test changes nothing else; the in-memory
    layer, whose instance is the only place its messages live, is kept."""
    yield
    if os.environ.get("REDIS_URL"):
        from channels.layers import channel_layers

        channel_layers.backends.clear()


@pytest.fixture(autouse=True)
def _fresh_cache(settings):
    # Request counters (accounts.throttling) live in the cache and every test client comes
    # from 127.0.0.1: each test starts from zero in a cache of its own, never in Redis.
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": f"test-{uuid.uuid4().hex}",
        }
    }


@pytest.fixture(autouse=True)
def _english_texts(settings):
    # The site speaks Spanish unless the browser asks otherwise (LANGUAGE_CODE "es");
    # tests read the English texts unless they choose a language themselves, as
    # tests/web/test_i18n.py does. Changing the setting also resets the active language.
    settings.LANGUAGE_CODE = "en"


@pytest.fixture
def smtp_server(settings) -> Iterator[Inbox]:
    """A real SMTP server on loopback, Django's SMTP backend pointed at it: what it
    received is in the inbox's ``messages``."""
    from aiosmtpd.controller import Controller

    inbox = Inbox()
    controller = Controller(inbox, hostname="127.0.0.1", port=free_port())
    controller.start()
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST = "127.0.0.1"
    settings.EMAIL_PORT = controller.port
    settings.EMAIL_USE_TLS = settings.EMAIL_USE_SSL = False
    settings.EMAIL_HOST_USER = settings.EMAIL_HOST_PASSWORD = ""
    settings.EMAIL_TIMEOUT = 10
    yield inbox
    controller.stop()


@pytest.fixture
def make_player(db) -> Callable[..., User]:
    def make(username: str, password: str = PASSWORD, **fields) -> User:
        return User.objects.create_user(username=username, password=password, **fields)

    return make


@pytest.fixture
def alice(make_player) -> User:
    return make_player("alice")


@pytest.fixture
def bob(make_player) -> User:
    return make_player("bob")


@pytest.fixture
def carol(make_player) -> User:
    return make_player("carol")


@pytest.fixture
def start_game() -> Callable[[User, User], Game]:
    """Start a game the way players do: ``black`` challenges, ``white`` accepts as white."""

    def start(white: User, black: User) -> Game:
        challenge = services.challenge(challenger=black, challenged=white)
        return services.accept_challenge(challenge_id=challenge.pk, player=white, colour="white")

    return start


@pytest.fixture
def play() -> Callable[..., Game]:
    """Play moves (UCI or SAN) in order, each by the side to move; returns the fresh game."""

    def play_moves(game: Game, *moves: str) -> Game:
        for text in moves:
            game.refresh_from_db()
            player = game.white if game.colour_to_move == "white" else game.black
            services.make_move(
                game_id=game.pk, player=player, move_number=game.next_move_number, move=text
            )
        game.refresh_from_db()
        return game

    return play_moves


@pytest.fixture
def game(alice, bob, start_game) -> Game:
    """A fresh game: alice has white, bob black."""
    return start_game(alice, bob)


@pytest.fixture
def daphne(transactional_db, tmp_path) -> Iterator[Callable[..., DaphneProcess]]:
    started: list[DaphneProcess] = []
    database_url = database_url_for_servers()

    def start(*options: str) -> DaphneProcess:
        server = DaphneProcess(database_url, tmp_path / f"daphne-{len(started)}.log", *options)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()
    wait_for_server_sessions_to_end()


@pytest.fixture(scope="module")
def module_daphne(django_db_setup, django_db_blocker, tmp_path_factory) -> Iterator[DaphneProcess]:
    """One Daphne on the test database for a module's tests that only send it requests
    that read nothing of the database (each start costs seconds)."""
    with django_db_blocker.unblock():
        database_url = database_url_for_servers()
    server = DaphneProcess(database_url, tmp_path_factory.mktemp("daphne") / "daphne.log")
    yield server
    server.stop()
    with django_db_blocker.unblock():
        wait_for_server_sessions_to_end()


@pytest.fixture
def stockfish() -> str:
    """The path of Debian's Stockfish; the test skips without it (fails in CI)."""
    from tests.engines import STOCKFISH, require_engine

    require_engine(STOCKFISH, os.environ)
    return str(STOCKFISH)
