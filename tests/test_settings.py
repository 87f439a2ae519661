"""Settings read from the environment, and the live SQLite connection's pragmas."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from channels import DEFAULT_CHANNEL_LAYER
from channels.layers import channel_layers, get_channel_layer
from django.conf import settings
from django.db import connection

ROOT = Path(__file__).resolve().parent.parent


def settings_under(env: dict[str, str]) -> dict:
    """Import the settings module in a fresh interpreter with ``env`` and return a few values."""
    code = (
        "import json, ajedrez.settings as s;"
        "print(json.dumps({'db': s.DATABASES['default'], 'layers': s.CHANNEL_LAYERS,"
        " 'debug': s.DEBUG, 'hosts': s.ALLOWED_HOSTS, 'secret_key': s.SECRET_KEY,"
        " 'espol': {k: v for k, v in vars(s).items() if k.startswith('ESPOL_')}}, default=str))"
    )
    clean = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**clean, "SECRET_KEY": "test-only", **env},
        capture_output=True,
        text=True,
        check=True,
    )
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
    assert db["ENGINE"] == "django.db.backends.sqlite3"
    assert db["OPTIONS"]["transaction_mode"] == "IMMEDIATE"
    assert "journal_mode=WAL" in db["OPTIONS"]["init_command"]
    assert db["OPTIONS"]["timeout"] > 0


def test_redis_url_picks_the_redis_channel_layer():
    layers = settings_under({"REDIS_URL": "redis://127.0.0.1:6379/4"})["layers"]
    assert layers["default"]["BACKEND"] == "channels_redis.core.RedisChannelLayer"
    assert layers["default"]["CONFIG"]["hosts"] == ["redis://127.0.0.1:6379/4"]


def test_without_redis_url_the_in_memory_layer_is_used():
    layers = settings_under({})["layers"]
    assert layers["default"]["BACKEND"] == (
        "ajedrez.channel_layers.LazyExpiryInMemoryChannelLayer"
    )


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
    tuned = settings_under(
        {
            "ESPOL_PORT": "6000",
            "ESPOL_WRITE_TIMEOUT": "5",
            "ESPOL_WRITE_BUFFER": "1024",
            "ESPOL_DB_THREADS": "2",
            "ESPOL_LOGIN_DELAY": "1.5",
            "ESPOL_LOGIN_DELAY_MAX": "3",
        }
    )["espol"]
    assert tuned["ESPOL_PORT"] == 6000
    assert tuned["ESPOL_WRITE_TIMEOUT"] == 5.0
    assert tuned["ESPOL_WRITE_BUFFER"] == 1024
    assert tuned["ESPOL_DB_THREADS"] == 2
    assert (tuned["ESPOL_LOGIN_DELAY"], tuned["ESPOL_LOGIN_DELAY_MAX"]) == (1.5, 3.0)


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
