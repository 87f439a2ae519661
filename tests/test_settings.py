"""Settings read from the environment, and the live SQLite connection's pragmas."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from channels import DEFAULT_CHANNEL_LAYER
from channels.layers import channel_layers, get_channel_layer
from django.conf import settings
from django.db import connection

ROOT = Path(__file__).resolve().parent.parent


def run_under(env: dict[str, str], code: str) -> subprocess.CompletedProcess:
    """Run ``code`` in a fresh interpreter whose environment is this one's plus ``env``
    (without DATABASE_URL or REDIS_URL unless ``env`` gives them)."""
    clean = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**clean, "SECRET_KEY": "test-only", **env},
        capture_output=True,
        text=True,
    )


def settings_under(env: dict[str, str]) -> dict:
    """Import the settings module in a fresh interpreter with ``env`` and return a few values."""
    code = (
        "import json, ajedrez.settings as s;"
        "print(json.dumps({'db': s.DATABASES['default'], 'layers': s.CHANNEL_LAYERS,"
        " 'debug': s.DEBUG, 'hosts': s.ALLOWED_HOSTS, 'secret_key': s.SECRET_KEY,"
        " 'espol': {k: v for k, v in vars(s).items() if k.startswith('ESPOL_')},"
        " 'caches': s.CACHES,"
        " 'subscriptions': {k: v for k, v in vars(s).items() if k.startswith('SUBSCRIPTION_')}},"
        " default=str))"
    )
    result = run_under(env, code)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_without_secret_key_one_is_generated_once_into_an_owner_only_file(tmp_path):
    key_file = tmp_path / "secret"
    env = {"SECRET_KEY": "", "SECRET_KEY_FILE": str(key_file)}
    first = settings_under(env)["secret_key"]
    assert len(first) >= 50
    assert key_file.read_text() == first
    assert key_file.stat().st_mode & 0o777 == 0o600
    # Restarts keep the key, so sessions and signed links survive them.
    assert settings_under(env)["secret_key"] == first


def test_secret_key_from_the_environment_wins_over_the_file(tmp_path):
    key_file = tmp_path / "secret"
    key_file.write_text("from-the-file")
    values = settings_under({"SECRET_KEY": "from-the-env", "SECRET_KEY_FILE": str(key_file)})
    assert values["secret_key"] == "from-the-env"


def test_database_url_picks_postgresql():
    values = settings_under({"DATABASE_URL": "postgresql://chess:pw@db.example:5433/ajedrez"})
    db = values["db"]
    assert db["ENGINE"] == "django.db.backends.postgresql"
    assert (db["NAME"], db["USER"], db["PASSWORD"], db["HOST"], db["PORT"]) == (
        "ajedrez",
        "chess",
        "pw",
        "db.example",
        5433,
    )
    assert "transaction_mode" not in db.get("OPTIONS", {})


def test_without_database_url_sqlite_gets_wal_and_immediate_transactions():
    db = settings_under({})["db"]
    assert db["ENGINE"] == "ajedrez.db.sqlite3"
    assert db["OPTIONS"]["transaction_mode"] == "IMMEDIATE"
    assert "journal_mode=WAL" in db["OPTIONS"]["init_command"]
    assert db["OPTIONS"]["timeout"] > 0


def test_redis_url_picks_the_redis_channel_layer():
    layers = settings_under({"REDIS_URL": "redis://127.0.0.1:6379/4"})["layers"]
    assert layers["default"]["BACKEND"] == "channels_redis.core.RedisChannelLayer"
    (host,) = layers["default"]["CONFIG"]["hosts"]
    assert host["address"] == "redis://127.0.0.1:6379/4"


def redis_connection_under(url: str) -> dict:
    """What a connection of the channel layer configured from ``url`` is set to: built by
    channels-redis and redis-py from the settings, as the layer builds it (no Redis needed
    to build one, only to connect)."""
    code = (
        "import json, django; django.setup();"
        "from channels.layers import get_channel_layer;"
        "c = get_channel_layer().create_pool(0).make_connection();"
        "print(json.dumps({k: getattr(c, k, None) for k in"
        " ('socket_timeout', 'host', 'port', 'db', 'password', 'client_name', 'path')}))"
    )
    result = run_under(
        {"REDIS_URL": url, "DJANGO_SETTINGS_MODULE": "ajedrez.settings"}, code
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize(
    "url, expected",
    [
        ("redis://127.0.0.1:6379/4", {"host": "127.0.0.1", "port": 6379, "db": 4}),
        (
            "redis://:p%40ss@cache.example:6380/2?client_name=web&socket_keepalive=true",
            {"host": "cache.example", "port": 6380, "db": 2, "password": "p@ss",
             "client_name": "web"},
        ),
        ("rediss://cache.example/0?db=5", {"host": "cache.example", "db": 5}),
        ("unix:///run/redis/redis.sock?db=3", {"path": "/run/redis/redis.sock", "db": 3}),
    ],
)
def test_channel_layer_connections_outlast_its_blocking_pop_whatever_redis_url_holds(
    url, expected
):
    # redis-py 8's default of 5 s equals the layer's pop: idle consumers crashed.
    from channels_redis.core import RedisChannelLayer

    connection = redis_connection_under(url)
    assert connection["socket_timeout"] >= 2 * RedisChannelLayer.brpop_timeout
    assert {k: connection[k] for k in expected} == expected


def test_a_large_enough_socket_timeout_in_redis_url_is_kept():
    url = "redis://127.0.0.1:6379/4?socket_timeout=60"
    assert redis_connection_under(url)["socket_timeout"] == 60.0


@pytest.mark.parametrize("value", ["5", "9.5", "0", "nan", "soon"])
def test_a_socket_timeout_in_redis_url_too_small_for_the_blocking_pop_is_refused(value):
    result = run_under(
        {"REDIS_URL": f"redis://127.0.0.1:6379/4?db=4&socket_timeout={value}"},
        "import ajedrez.settings",
    )
    assert result.returncode != 0
    assert "ImproperlyConfigured: REDIS_URL: socket_timeout=" in result.stderr


def test_the_blocking_pop_the_settings_allow_for_is_channels_redis_own():
    # The floor under the socket timeout is derived from this; a channels-redis release
    # that waits longer must raise it.
    from channels_redis.core import RedisChannelLayer

    assert RedisChannelLayer.brpop_timeout <= settings.REDIS_BLOCKING_POP_SECONDS


def test_without_redis_url_the_in_memory_layer_is_used():
    layers = settings_under({})["layers"]
    assert layers["default"]["BACKEND"] == (
        "ajedrez.channel_layers.LazyExpiryInMemoryChannelLayer"
    )


def test_redis_url_puts_the_cache_in_redis_too():
    # The request counters (accounts.throttling) must be shared by every process.
    cache = settings_under({"REDIS_URL": "redis://127.0.0.1:6379/4"})["caches"]["default"]
    assert cache["BACKEND"] == "django.core.cache.backends.redis.RedisCache"
    assert cache["LOCATION"] == "redis://127.0.0.1:6379/4"


def test_without_redis_url_the_cache_is_in_local_memory():
    cache = settings_under({})["caches"]["default"]
    assert cache["BACKEND"] == "django.core.cache.backends.locmem.LocMemCache"


def test_subscription_limits_come_from_the_environment():
    values = settings_under({})
    assert values["subscriptions"] == {
        "SUBSCRIPTION_REQUESTS_PER_ADDRESS": 5,
        "SUBSCRIPTION_REQUESTS_WINDOW": 3600,
    }
    assert values["espol"]["ESPOL_SUBSCRIPTIONS_PER_CONNECTION"] == 3
    tuned = settings_under(
        {
            "SUBSCRIPTION_REQUESTS_PER_ADDRESS": "20",
            "SUBSCRIPTION_REQUESTS_WINDOW": "600",
            "ESPOL_SUBSCRIPTIONS_PER_CONNECTION": "0",
        }
    )
    assert tuned["subscriptions"] == {
        "SUBSCRIPTION_REQUESTS_PER_ADDRESS": 20,
        "SUBSCRIPTION_REQUESTS_WINDOW": 600,
    }
    assert tuned["espol"]["ESPOL_SUBSCRIPTIONS_PER_CONNECTION"] == 0


def test_the_default_games_per_pair_comes_from_the_environment():
    code = "import ajedrez.settings as s; print(s.GAMES_PER_PAIR)"
    assert run_under({}, code).stdout.split()[-1] == "1"
    assert run_under({"GAMES_PER_PAIR": "3"}, code).stdout.split()[-1] == "3"


@pytest.mark.parametrize("value", ["0", "101", "-1", "dos", "", "2.5", "٣"])
def test_a_games_per_pair_no_pair_can_play_stops_the_start(value):
    result = run_under({"GAMES_PER_PAIR": value}, "import ajedrez.settings")
    assert result.returncode != 0
    assert "GAMES_PER_PAIR must be a whole number from 1 to 100" in result.stderr


def test_password_hashers_put_argon2_first_and_keep_pbkdf2_for_old_hashes():
    from ajedrez import settings as project_settings

    hashers = getattr(project_settings, "PASSWORD_HASHERS", [])
    # Django's own algorithms, bounded in how many run at once (accounts.hashers).
    assert hashers[:1] == ["accounts.hashers.Argon2PasswordHasher"]
    assert "accounts.hashers.PBKDF2PasswordHasher" in hashers
    # The library Django's Argon2 hasher needs is installed.
    import argon2  # noqa: F401


def test_debug_is_off_unless_asked_for():
    assert settings_under({})["debug"] is False
    assert settings_under({"DEBUG": "1"})["debug"] is True


def test_allowed_hosts_come_from_the_environment():
    assert settings_under({"ALLOWED_HOSTS": "chess.example, www.chess.example"})["hosts"] == [
        "chess.example",
        "www.chess.example",
    ]


def test_espol_gateway_settings_come_from_the_environment():
    defaults = settings_under({})["espol"]
    assert defaults["ESPOL_PORT"] == 5757
    assert defaults["ESPOL_IDLE_TIMEOUT"] == 1800.0
    assert defaults["ESPOL_LOGIN_DELAY"] == 0.5
    assert defaults["ESPOL_MAX_PER_ADDRESS"] == 20
    assert defaults["ESPOL_LOGIN_TIMEOUT"] == 60.0
    tuned = settings_under(
        {
            "ESPOL_PORT": "6000",
            "ESPOL_WRITE_TIMEOUT": "5",
            "ESPOL_WRITE_BUFFER": "1024",
            "ESPOL_DB_THREADS": "2",
            "ESPOL_LOGIN_DELAY": "1.5",
            "ESPOL_LOGIN_DELAY_MAX": "3",
            "ESPOL_MAX_PER_ADDRESS": "0",
            "ESPOL_LOGIN_TIMEOUT": "15",
        }
    )["espol"]
    assert tuned["ESPOL_PORT"] == 6000
    assert tuned["ESPOL_WRITE_TIMEOUT"] == 5.0
    assert tuned["ESPOL_WRITE_BUFFER"] == 1024
    assert tuned["ESPOL_DB_THREADS"] == 2
    assert (tuned["ESPOL_LOGIN_DELAY"], tuned["ESPOL_LOGIN_DELAY_MAX"]) == (1.5, 3.0)
    assert (tuned["ESPOL_MAX_PER_ADDRESS"], tuned["ESPOL_LOGIN_TIMEOUT"]) == (0, 15.0)


@pytest.mark.skipif(
    not settings.DATABASES["default"]["ENGINE"].endswith("sqlite3"),
    reason="checks the live SQLite connection; DATABASE_URL is not SQLite",
)
@pytest.mark.django_db
def test_live_sqlite_connection_runs_in_wal_mode():
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA journal_mode")
        assert cursor.fetchone()[0] == "wal"
        cursor.execute("PRAGMA busy_timeout")
        assert cursor.fetchone()[0] >= 1000
    assert connection.transaction_mode == "IMMEDIATE"


@pytest.mark.skipif(
    not settings.DATABASES["default"]["ENGINE"].endswith("sqlite3"),
    reason="checks the live SQLite connection; DATABASE_URL is not SQLite",
)
@pytest.mark.django_db
def test_live_sqlite_connection_is_durable_by_default():
    # PRAGMA synchronous: 2 is FULL (fsync at each commit), 1 NORMAL.
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA synchronous")
        assert cursor.fetchone()[0] == 2


def test_sqlite_durability_is_a_setting():
    assert "synchronous=NORMAL" in str(settings_under({"SQLITE_SYNCHRONOUS": "normal"})["db"])
    refused = run_under({"SQLITE_SYNCHRONOUS": "off"}, "import ajedrez.settings")
    assert refused.returncode != 0
    assert "SQLITE_SYNCHRONOUS must be FULL or NORMAL" in refused.stderr


@pytest.mark.postgres
@pytest.mark.django_db
def test_live_connection_is_postgresql():
    assert connection.vendor == "postgresql"


@pytest.mark.redis
def test_live_channel_layer_is_redis_and_crosses_processes():
    # Two layer instances stand for two server processes (web and gateway): a group
    # message sent through one reaches a channel opened through the other.
    from channels_redis.core import RedisChannelLayer

    assert isinstance(get_channel_layer(), RedisChannelLayer)

    async def round_trip() -> dict:
        receiving = channel_layers.make_backend(DEFAULT_CHANNEL_LAYER)
        sending = channel_layers.make_backend(DEFAULT_CHANNEL_LAYER)
        group = f"settings-check-{os.getpid()}"
        channel = await receiving.new_channel()
        await receiving.group_add(group, channel)
        try:
            await sending.group_send(group, {"type": "check.message", "n": 7})
            return await asyncio.wait_for(receiving.receive(channel), 5)
        finally:
            await receiving.group_discard(group, channel)

    assert asyncio.run(round_trip()) == {"type": "check.message", "n": 7}


# --------------------------------------------------------------------------- HTTPS

HTTPS_ENV = {
    "SECURE_COOKIES": "true",
    "SECURE_SSL_REDIRECT": "true",
    "SECURE_HSTS_SECONDS": "31536000",
    "SECURE_HSTS_INCLUDE_SUBDOMAINS": "true",
    "SECURE_HSTS_PRELOAD": "true",
    "SECURE_PROXY_SSL_HEADER": "HTTP_X_FORWARDED_PROTO,https",
}


def deploy_check(env: dict[str, str]) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    strong_key = "k" * 20 + "-Zq8!xR2#vL5@pN7$wT1%yB4^hF6&jM9*cD3(gS0)"
    return subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env={**clean, "SECRET_KEY": strong_key, "DEBUG": "false", **env},
        capture_output=True,
        text=True,
    )


def test_deploy_check_is_clean_with_the_https_switches_on():
    result = deploy_check(HTTPS_ENV)
    assert result.returncode == 0, result.stderr
    assert "no issues" in result.stdout


def test_deploy_check_names_what_is_missing_without_them():
    result = deploy_check({})
    assert result.returncode != 0
    for warning in ("W004", "W008", "W012", "W016"):
        assert warning in result.stderr


def test_a_malformed_proxy_header_setting_is_refused_at_start():
    env = {"SECURE_PROXY_SSL_HEADER": "HTTP_X_FORWARDED_PROTO"}
    refused = run_under(env, "import ajedrez.settings")
    assert refused.returncode != 0
    assert "SECURE_PROXY_SSL_HEADER must be" in refused.stderr


@pytest.mark.redis
def test_request_counters_are_shared_by_processes_through_redis(settings):
    # With REDIS_URL the web and the gateway may be separate processes: a count made in
    # one must hold in the other, or each would grant the whole allowance again.
    from django.core.cache import cache

    from accounts import throttling
    from ajedrez import settings as project_settings

    settings.CACHES = project_settings.CACHES
    key = f"settings-check-{uuid.uuid4().hex}"
    try:
        for _ in range(2):
            assert throttling.count_request("check", key, limit=2, window=60).allowed
        code = (
            "import django; django.setup(); from accounts import throttling;"
            f"print(throttling.count_request('check', {key!r}, limit=2, window=60).allowed)"
        )
        other_process = subprocess.run(
            [sys.executable, "-c", code],
            cwd=ROOT,
            env={
                **os.environ,
                "SECRET_KEY": "test-only",
                "DJANGO_SETTINGS_MODULE": "ajedrez.settings",
            },
            capture_output=True,
            text=True,
            check=True,
        )
        assert other_process.stdout.strip().splitlines()[-1] == "False"
    finally:
        cache.delete_many([f"throttle:check:{key}", f"throttle:check:{key}:start"])


PG_URL = "postgresql://ajedrez@127.0.0.1:5432/ajedrez"


def test_postgresql_connections_persist_with_a_health_check_by_default():
    db = settings_under({"DATABASE_URL": PG_URL})["db"]
    assert (db["CONN_MAX_AGE"], db["CONN_HEALTH_CHECKS"]) == (600, True)


def test_postgresql_connection_age_is_a_setting_and_zero_means_one_per_request():
    db = settings_under({"DATABASE_URL": PG_URL, "CONN_MAX_AGE": "0"})["db"]
    assert db["CONN_MAX_AGE"] == 0


def test_static_files_are_served_by_whitenoise_from_static_root_with_hashed_names(tmp_path):
    code = (
        "import json, ajedrez.settings as s;"
        "print(json.dumps({'root': str(s.STATIC_ROOT), 'middleware': s.MIDDLEWARE,"
        " 'storage': s.STORAGES['staticfiles']['BACKEND']}))"
    )
    result = run_under({"STATIC_ROOT": str(tmp_path)}, code)
    assert result.returncode == 0, result.stderr
    values = json.loads(result.stdout.strip().splitlines()[-1])
    assert values["root"] == str(tmp_path)
    # Right after the security middleware: a static file needs no session or user.
    assert values["middleware"][1] == "whitenoise.middleware.WhiteNoiseMiddleware"
    assert values["storage"] == "ajedrez.static_storage.HashedStaticFilesStorage"
