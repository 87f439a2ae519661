"""Settings for Ajedrez, driven by environment variables with embedded defaults.

Embedded defaults run the whole service on one machine with nothing else installed:
SQLite in WAL mode and the in-memory channel layer. ``DATABASE_URL`` (PostgreSQL) and
``REDIS_URL`` (channels-redis) are the scale-out path.
"""

from __future__ import annotations

import os
import secrets
import tempfile
from datetime import timedelta
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

BASE_DIR = Path(__file__).resolve().parent.parent


def _env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def _secret_key() -> str:
    """Return SECRET_KEY from the environment, or from a local untracked file made once."""
    if key := os.environ.get("SECRET_KEY"):
        return key
    key_file = Path(os.environ.get("SECRET_KEY_FILE", BASE_DIR / ".secret_key"))
    try:
        return key_file.read_text().strip()
    except FileNotFoundError:
        key = secrets.token_urlsafe(50)
        # Created owner-only from the start (no moment where the umask leaves it readable),
        # and exclusively: if two processes start at once, the second reads the first's.
        try:
            fd = os.open(key_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            return key_file.read_text().strip()
        with os.fdopen(fd, "w") as out:
            out.write(key)
        return key


SECRET_KEY = _secret_key()
DEBUG = _env_bool("DEBUG", False)
ALLOWED_HOSTS = [
    h.strip()
    for h in os.environ.get("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]").split(",")
    if h.strip()
]
CSRF_TRUSTED_ORIGINS = [
    o.strip() for o in os.environ.get("CSRF_TRUSTED_ORIGINS", "").split(",") if o.strip()
]

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "channels",
    "crispy_forms",
    "crispy_bootstrap5",
    "axes",
    "ajedrez",
    "accounts",
    "games",
    "ranking",
    "legacy_tcp",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last, as django-axes asks: it turns a login refused by the lock-out into its page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "ajedrez.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

ASGI_APPLICATION = "ajedrez.asgi.application"

# SQLite: WAL lets readers run beside the writer; IMMEDIATE write transactions and a busy
# timeout make concurrent writers wait for the lock instead of failing with
# "database is locked" (Django's default deferred transactions upgrade too late).
_SQLITE_DEFAULT = f"sqlite:///{BASE_DIR / 'db.sqlite3'}"
DATABASES = {"default": dj_database_url.parse(os.environ.get("DATABASE_URL", _SQLITE_DEFAULT))}
# SQLITE_SYNCHRONOUS: FULL (the default) makes each commit durable across a power loss;
# NORMAL survives a crash of the process but may lose the last commits on a power loss or
# an operating-system crash, for a cheaper commit (docs/benchmarks.md has both costs).
SQLITE_SYNCHRONOUS = os.environ.get("SQLITE_SYNCHRONOUS", "FULL").strip().upper()
if SQLITE_SYNCHRONOUS not in ("FULL", "NORMAL"):
    raise ImproperlyConfigured("SQLITE_SYNCHRONOUS must be FULL or NORMAL")
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    DATABASES["default"]["OPTIONS"] = {
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
        "init_command": f"PRAGMA journal_mode=WAL; PRAGMA synchronous={SQLITE_SYNCHRONOUS};",
    }
    # A file, not Django's shared-cache in-memory database: tests that serve real sockets
    # from other threads must see the same WAL and busy-timeout behaviour as production.
    DATABASES["default"]["TEST"] = {
        "NAME": str(Path(tempfile.gettempdir()) / f"ajedrez-test-{os.getpid()}.sqlite3")
    }
else:
    DATABASES["default"]["CONN_MAX_AGE"] = int(os.environ.get("CONN_MAX_AGE", "0"))

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# channels-redis waits for a consumer's next message with a blocking pop (BZPOPMIN) of
# 5 s (``RedisChannelLayer.brpop_timeout``). redis-py 8 gives every connection a 5 s
# ``socket_timeout`` by default, so an idle consumer's read gave up just before Redis
# answered, the consumer crashed and its WebSocket closed with 1011 (channels_redis#422,
# redis-py#4091). The layer's connections therefore get a socket timeout well above the
# pop; it stays finite so that a Redis gone without closing the connection is noticed.
REDIS_BLOCKING_POP_SECONDS = 5.0
REDIS_SOCKET_TIMEOUT = 15.0
# Below this a timeout races Redis's own answer to the pop (Redis ends timed-out blocking
# commands on its periodic tick, a little after the 5 s), so a smaller one is refused.
REDIS_SOCKET_TIMEOUT_MIN = 2 * REDIS_BLOCKING_POP_SECONDS


def _redis_layer_host(url: str) -> dict[str, Any]:
    """The channel layer's host entry for ``url``: the URL kept whole, with its query
    parameters, and a socket timeout the blocking pop cannot outlast.

    channels-redis hands ``address`` to redis-py's ``ConnectionPool.from_url`` with the
    other keys as keyword arguments, and there the URL's own parameters win: so a
    ``socket_timeout`` in the URL is honoured when it is large enough, and refused
    rather than quietly replaced when it is not.
    """
    given = parse_qs(urlsplit(url).query).get("socket_timeout")
    if given:
        try:
            seconds = float(given[0])
        except ValueError:
            raise ImproperlyConfigured(
                f"REDIS_URL: socket_timeout={given[0]!r} is not a number of seconds"
            ) from None
        if not seconds >= REDIS_SOCKET_TIMEOUT_MIN:
            raise ImproperlyConfigured(
                f"REDIS_URL: socket_timeout={given[0]} is too small for the channel layer: "
                f"its blocking pop waits {REDIS_BLOCKING_POP_SECONDS:g} s, so idle "
                f"WebSockets would be dropped. Give at least {REDIS_SOCKET_TIMEOUT_MIN:g} "
                f"s, or leave it out (default {REDIS_SOCKET_TIMEOUT:g} s)."
            )
    return {"address": url, "socket_timeout": REDIS_SOCKET_TIMEOUT}


REDIS_URL = os.environ.get("REDIS_URL", "")
if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {"hosts": [_redis_layer_host(REDIS_URL)]},
        }
    }
else:
    # channels' in-memory layer with expiry that is not O(n) per delivery (see the module).
    CHANNEL_LAYERS = {
        "default": {"BACKEND": "ajedrez.channel_layers.LazyExpiryInMemoryChannelLayer"}
    }

# The cache holds request counters (accounts.throttling). Local memory is per process;
# with REDIS_URL the processes share one in Redis, as they share the channel layer.
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": "ajedrez",
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# Subscription requests need no account: each costs a password hash, so they are counted
# per address (web and ESPOL together) and per ESPOL connection. 0 turns a limit off.
SUBSCRIPTION_REQUESTS_PER_ADDRESS = int(os.environ.get("SUBSCRIPTION_REQUESTS_PER_ADDRESS", "5"))
SUBSCRIPTION_REQUESTS_WINDOW = int(os.environ.get("SUBSCRIPTION_REQUESTS_WINDOW", "3600"))

# Argon2 (argon2-cffi) hashes every new password. The PBKDF2 hashers after it still verify
# the hashes made before; a successful login with one re-hashes the password with Argon2
# (Django's check_password does, through its setter), so old hashes go as players return.
# Django's Argon2 parameters: 100 MiB of memory and about a third of a second of CPU a hash.
PASSWORD_HASHERS = [
    "django.contrib.auth.hashers.Argon2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2SHA1PasswordHasher",
]

# Failed logins (django-axes): counted per user name and address, in the database, so the
# web's login, the admin's and ESPOL PASS (accounts.throttling.check_login) share one count
# whatever process serves them. After
# LOGIN_FAILURE_LIMIT failures for a name from an address, logins for that name from that
# address are refused, without checking the password, for LOGIN_COOLOFF_MINUTES after the
# last attempt; every refused attempt counts and starts the wait again. Other addresses,
# and other names from that address, are not affected: a guesser cannot lock a player out
# of her own account.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = int(os.environ.get("LOGIN_FAILURE_LIMIT", "5"))
AXES_COOLOFF_TIME = timedelta(minutes=float(os.environ.get("LOGIN_COOLOFF_MINUTES", "15")))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
# An IPv6 client is counted by its /64, as the ESPOL gateway counts it.
AXES_CLIENT_IP_CALLABLE = "accounts.throttling.axes_client_address"
AXES_RESET_ON_SUCCESS = True
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = True
AXES_LOCKOUT_CALLABLE = "accounts.views.login_locked_out"
# Log lines name the user name and the address (axes masks both by default): who is
# guessing at what is the point of the line. Passwords are always masked.
AXES_SENSITIVE_PARAMETERS: list[str] = []

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator",
     "OPTIONS": {"min_length": 6}},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "dashboard"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "es"
LANGUAGES = [("es", _("Spanish")), ("en", _("English"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = BASE_DIR / "staticfiles"

CRISPY_ALLOWED_TEMPLATE_PACKS = "bootstrap5"
CRISPY_TEMPLATE_PACK = "bootstrap5"

SESSION_COOKIE_HTTPONLY = True
CSRF_COOKIE_HTTPONLY = False

# HTTPS, for a deployment served over TLS (all off by default: the embedded service runs
# on plain HTTP on loopback). README, "HTTPS".
SECURE_COOKIES = _env_bool("SECURE_COOKIES", False)
SESSION_COOKIE_SECURE = SECURE_COOKIES
CSRF_COOKIE_SECURE = SECURE_COOKIES
SECURE_SSL_REDIRECT = _env_bool("SECURE_SSL_REDIRECT", False)
SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", "0"))
SECURE_HSTS_INCLUDE_SUBDOMAINS = _env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", False)
SECURE_HSTS_PRELOAD = _env_bool("SECURE_HSTS_PRELOAD", False)
# Behind a reverse proxy that terminates TLS: "HEADER,value", e.g.
# "HTTP_X_FORWARDED_PROTO,https". Only set it when the proxy always sets that header.
if _proxy_header := os.environ.get("SECURE_PROXY_SSL_HEADER", "").strip():
    _name, _sep, _value = _proxy_header.partition(",")
    if not (_name.strip() and _value.strip()):
        raise ImproperlyConfigured(
            "SECURE_PROXY_SSL_HEADER must be 'HEADER,value', e.g. HTTP_X_FORWARDED_PROTO,https"
        )
    SECURE_PROXY_SSL_HEADER = (_name.strip(), _value.strip())

# Where `manage.py seed_demo` keeps the demo administrator's generated password.
DEMO_CREDENTIALS_FILE = Path(os.environ.get("DEMO_CREDENTIALS_FILE", BASE_DIR / ".demo-admin"))

# The ESPOL TCP gateway (legacy_tcp).
ESPOL_HOST = os.environ.get("ESPOL_HOST", "127.0.0.1")
ESPOL_PORT = int(os.environ.get("ESPOL_PORT", "5757"))
ESPOL_IDLE_TIMEOUT = float(os.environ.get("ESPOL_IDLE_TIMEOUT", str(30 * 60)))
# Seconds a connection has to log in (USER, PASS) before it is closed (0: no limit).
ESPOL_LOGIN_TIMEOUT = float(os.environ.get("ESPOL_LOGIN_TIMEOUT", "60"))
# An upper bound: the gateway lowers it at start to what the open-file limit allows after
# a headroom for the rest of the process (legacy_tcp.server.connection_cap).
ESPOL_MAX_CONNECTIONS = int(os.environ.get("ESPOL_MAX_CONNECTIONS", "20000"))
# Connections from one IPv4 address or IPv6 /64 (0: no such cap).
ESPOL_MAX_PER_ADDRESS = int(os.environ.get("ESPOL_MAX_PER_ADDRESS", "20"))
ESPOL_WRITE_TIMEOUT = float(os.environ.get("ESPOL_WRITE_TIMEOUT", "30"))
ESPOL_WRITE_BUFFER = int(os.environ.get("ESPOL_WRITE_BUFFER", str(64 * 1024)))
ESPOL_DB_THREADS = int(os.environ.get("ESPOL_DB_THREADS", "8"))
# Threads that hash passwords (PASS, SUBS, UNSU), apart from the command threads.
ESPOL_AUTH_THREADS = int(os.environ.get("ESPOL_AUTH_THREADS", "2"))
ESPOL_LOGIN_DELAY = float(os.environ.get("ESPOL_LOGIN_DELAY", "0.5"))
ESPOL_LOGIN_DELAY_MAX = float(os.environ.get("ESPOL_LOGIN_DELAY_MAX", "8"))
ESPOL_SUBSCRIPTIONS_PER_CONNECTION = int(
    os.environ.get("ESPOL_SUBSCRIPTIONS_PER_CONNECTION", "3")
)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"},
    },
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    "loggers": {
        "django.db.backends": {"level": "WARNING"},
        "daphne": {"level": "WARNING"},
        # Failed logins and lock-outs (WARNING), whatever LOG_LEVEL says; axes' INFO lines
        # (each success, each clean-up of old counts) would only add noise.
        "axes": {"level": "WARNING"},
    },
}
