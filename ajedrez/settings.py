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
from urllib.parse import parse_qs, unquote, urlsplit

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

from ajedrez import channel_layers

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
    # Background tasks (mail): Django 6's tasks framework, backported, with the database
    # backend; docs/architecture.md, "Mail".
    "django_tasks",
    "django_tasks_db",
    "ajedrez",
    "accounts",
    "games",
    "ranking",
    "legacy_tcp",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Static files, in every process that serves the application (``manage.py serve``,
    # ``daphne ajedrez.asgi:application``): WhiteNoise answers /static/ before the rest of
    # the stack runs. docs/deploy.md, "Static files".
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Each page in its reader's time zone (the player's choice, else the browser's).
    "accounts.time_zones.TimeZoneMiddleware",
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
                "games.context_processors.awaiting",
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
if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    # Django's SQLite backend with writers queued on a file lock beside the database, not
    # on SQLite's busy handler, whose sleeps grow to 100 ms (ajedrez/db/sqlite3/base.py).
    DATABASES["default"]["ENGINE"] = "ajedrez.db.sqlite3"
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
    # Persistent connections: a new PostgreSQL connection costs a live move about 10 ms
    # (21.7 ms against 11.7 ms, docs/benchmarks.md). Each thread that touches the database
    # keeps one: Daphne's one thread for sync views and database_sync_to_async (channels
    # closes only connections older than this, before and after each call), and each of
    # the ESPOL gateway's ESPOL_DB_THREADS. The health check (a cheap query before the
    # first use in each request or call) replaces a connection the server dropped, e.g.
    # after a PostgreSQL restart, instead of failing that request. 0: a connection per
    # request, as Django does by default. docs/deploy.md counts them against
    # max_connections.
    DATABASES["default"]["CONN_MAX_AGE"] = int(os.environ.get("CONN_MAX_AGE", "600"))
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = True

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# The Redis layer's connections get a socket timeout its blocking pop cannot outlast
# (channels_redis#422): ajedrez.channel_layers.redis_layer_host, with these bounds.
REDIS_BLOCKING_POP_SECONDS = channel_layers.REDIS_BLOCKING_POP_SECONDS
REDIS_SOCKET_TIMEOUT = channel_layers.REDIS_SOCKET_TIMEOUT
REDIS_SOCKET_TIMEOUT_MIN = channel_layers.REDIS_SOCKET_TIMEOUT_MIN


REDIS_URL = os.environ.get("REDIS_URL", "")
if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {"hosts": [channel_layers.redis_layer_host(REDIS_URL)]},
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

# Challenges one player may make in a window, and those to one same opponent (any door;
# those not accepted count, withdrawn ones included, so a challenge-and-withdraw loop
# cannot bury a player in notifications and mail). 0 turns a limit off.
CHALLENGES_PER_WINDOW = int(os.environ.get("CHALLENGES_PER_WINDOW", "30"))
CHALLENGES_PER_PAIR_PER_WINDOW = int(os.environ.get("CHALLENGES_PER_PAIR_PER_WINDOW", "3"))
CHALLENGE_WINDOW_SECONDS = int(os.environ.get("CHALLENGE_WINDOW_SECONDS", "3600"))
# Open challenges (seeks) one player may have waiting in the lobby at once, so that one
# client cannot flood it. 0 turns the limit off.
SEEKS_PER_PLAYER = int(os.environ.get("SEEKS_PER_PLAYER", "10"))
# Games two players may have in progress together (seed 000: one). The default only: the
# administrator's "Site rules" in the admin, once saved, rule over it.
_games_per_pair = os.environ.get("GAMES_PER_PAIR", "1").strip()
# ASCII digits only: int() would also take "٣" or "2_0".
GAMES_PER_PAIR = (
    int(_games_per_pair) if _games_per_pair.isascii() and _games_per_pair.isdigit() else 0
)
if not 1 <= GAMES_PER_PAIR <= 100:  # games.models.MAX_GAMES_PER_PAIR
    raise ImproperlyConfigured("GAMES_PER_PAIR must be a whole number from 1 to 100")

# Archive PGN downloads one player may have running at once (games.pgn_export); more are
# answered 429. 0 turns the bound off.
PGN_DOWNLOADS_PER_PLAYER = int(os.environ.get("PGN_DOWNLOADS_PER_PLAYER", "1"))

# New guest accounts (the # protocol's INSCRIBIR of a name never seen) one address may
# make in a window: a pairing loop made 1,462 in 20 s. 0 turns the limit off. Guests that
# never played a game through (both sides moved) go after GUEST_IDLE_HOURS
# (manage.py purge_guests, from cron).
GUESTS_PER_ADDRESS = int(os.environ.get("GUESTS_PER_ADDRESS", "30"))
GUESTS_WINDOW_SECONDS = int(os.environ.get("GUESTS_WINDOW_SECONDS", "3600"))
GUEST_IDLE_HOURS = int(os.environ.get("GUEST_IDLE_HOURS", "24"))

# Argon2 (argon2-cffi) hashes every new password. The PBKDF2 hashers after it still verify
# the hashes made before; a successful login with one re-hashes the password with Argon2
# (Django's check_password does, through its setter), so old hashes go as players return.
# Argon2id at OWASP's parameters (9 MiB, 4 iterations, one thread): about 15 ms of CPU
# a hash here (accounts.hashers).
PASSWORD_HASHERS = [
    "accounts.hashers.Argon2PasswordHasher",
    "accounts.hashers.PBKDF2PasswordHasher",
    "accounts.hashers.PBKDF2SHA1PasswordHasher",
]
# Django's hashers, but at most this many hashes at once in the process (web and ESPOL
# together): anonymous clients can cause hashes, and must not take every core from the
# moves (accounts.hashers). One fewer than the cores by default, at least one.
PASSWORD_HASHES_AT_ONCE = int(
    os.environ.get("PASSWORD_HASHES_AT_ONCE", str(max(1, (os.cpu_count() or 2) - 1)))
)

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
    # Logs nobody in: tells a subscription request's own password from a wrong one.
    "accounts.backends.SubscriptionRequestBackend",
]
# Counts failures as axes does, but never a subscription request's own password.
AXES_HANDLER = "accounts.throttling.LoginFailureHandler"
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
# Where ``manage.py collectstatic`` puts the files WhiteNoise serves (``manage.py serve``
# collects them at start). Every process of a deployment reads the same directory.
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT", BASE_DIR / "staticfiles"))
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    # Names with a hash of the content (cached for a year by browsers and proxies, changed
    # when the file changes) and gzip copies made once at collectstatic, not per request.
    # Without DEBUG, pages name only collected files: collectstatic must have run.
    "staticfiles": {"BACKEND": "ajedrez.static_storage.HashedStaticFilesStorage"},
}

CRISPY_ALLOWED_TEMPLATE_PACKS = "bootstrap5"
CRISPY_TEMPLATE_PACK = "bootstrap5"

# Database sessions whose keys must look like the ones Django makes (accounts/sessions.py).
SESSION_ENGINE = "accounts.sessions"
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

# Correspondence clocks: `manage.py serve` ends the games whose time has run out every
# CLOCK_SWEEP_SECONDS (0: never; a deployment of several processes runs
# `manage.py expire_games` from cron instead). DEMO_TIME_TRAVEL lets
# `manage.py travel_clock` move deadlines, for a demonstration only.
CLOCK_SWEEP_SECONDS = float(os.environ.get("CLOCK_SWEEP_SECONDS", "60"))
DEMO_TIME_TRAVEL = _env_bool("DEMO_TIME_TRAVEL", False)
# Vacation a player may take in a calendar year, in days (chess.com gives 30 or more).
VACATION_DAYS_PER_YEAR = int(os.environ.get("VACATION_DAYS_PER_YEAR", "30"))

# Read notifications older than this many days are deleted by `manage.py
# purge_notifications` (a cron line in docs/deploy.md); unread ones are always kept.
NOTIFICATIONS_KEEP_READ_DAYS = int(os.environ.get("NOTIFICATIONS_KEEP_READ_DAYS", "90"))

# The ESPOL TCP gateway (legacy_tcp).
ESPOL_HOST = os.environ.get("ESPOL_HOST", "127.0.0.1")
ESPOL_PORT = int(os.environ.get("ESPOL_PORT", "5757"))
ESPOL_IDLE_TIMEOUT = float(os.environ.get("ESPOL_IDLE_TIMEOUT", str(30 * 60)))
# Seconds a connection has to log in (USER, PASS) before it is closed (0: no limit).
ESPOL_LOGIN_TIMEOUT = float(os.environ.get("ESPOL_LOGIN_TIMEOUT", "60"))
# Seconds a connection has to send its first line, at every gateway (0: no limit): a
# client that says nothing holds a place under the caps for nothing.
ESPOL_FIRST_LINE_TIMEOUT = float(os.environ.get("ESPOL_FIRST_LINE_TIMEOUT", "30"))
# An upper bound: the gateway lowers it at start to what the open-file limit allows after
# a headroom for the rest of the process (legacy_tcp.transport.limits.connection_cap).
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

# The gateways that name players without a password (docs/protocols/guests.md): the `#`
# protocol of seed 001 (docs/protocols/distribuido.md) and chessirc of seed 004
# (docs/protocols/chessirc.md). Each binds to loopback unless told otherwise; a non-empty
# secret must be the client's first line (#CLAVE#secret# / AUTH secret).
DISTRIBUIDO_HOST = os.environ.get("DISTRIBUIDO_HOST", "127.0.0.1")
DISTRIBUIDO_PORT = int(os.environ.get("DISTRIBUIDO_PORT", "5758"))
DISTRIBUIDO_SECRET = os.environ.get("DISTRIBUIDO_SECRET", "")
# A player waits in silence for the opponent's move: idle means an hour (0: no limit).
DISTRIBUIDO_IDLE_TIMEOUT = float(os.environ.get("DISTRIBUIDO_IDLE_TIMEOUT", "3600"))
DISTRIBUIDO_MAX_CONNECTIONS = int(os.environ.get("DISTRIBUIDO_MAX_CONNECTIONS", "2000"))
DISTRIBUIDO_MAX_PER_ADDRESS = int(os.environ.get("DISTRIBUIDO_MAX_PER_ADDRESS", "20"))
DISTRIBUIDO_FIRST_LINE_TIMEOUT = float(os.environ.get("DISTRIBUIDO_FIRST_LINE_TIMEOUT", "30"))
# With a secret: seconds a connection has to send it (0: no limit).
DISTRIBUIDO_LOGIN_TIMEOUT = float(os.environ.get("DISTRIBUIDO_LOGIN_TIMEOUT", "60"))
DISTRIBUIDO_DB_THREADS = int(os.environ.get("DISTRIBUIDO_DB_THREADS", "4"))
# Secret checks of one address that may wait for their turn at once after wrong guesses
# (at most ESPOL_LOGIN_DELAY_MAX seconds each): beyond, one is answered at once, unchecked.
DISTRIBUIDO_SECRET_QUEUE_PER_ADDRESS = int(
    os.environ.get("DISTRIBUIDO_SECRET_QUEUE_PER_ADDRESS", "4")
)
CHESSIRC_HOST = os.environ.get("CHESSIRC_HOST", "127.0.0.1")
CHESSIRC_PORT = int(os.environ.get("CHESSIRC_PORT", "4321"))
CHESSIRC_SECRET = os.environ.get("CHESSIRC_SECRET", "")
CHESSIRC_IDLE_TIMEOUT = float(os.environ.get("CHESSIRC_IDLE_TIMEOUT", "3600"))
CHESSIRC_MAX_CONNECTIONS = int(os.environ.get("CHESSIRC_MAX_CONNECTIONS", "200"))
# chessirc has one trusted client, the IRC bot, with one connection per channel: a bot
# serving more than 4 channels from one address needs this raised. Small against the
# total on purpose: at 20 per address, ten addresses filled all 200 places and locked the
# bot out; at 4, fifty addresses are needed (manage.py check warns when the total leaves
# fewer than eleven addresses their share: legacy_tcp.checks).
CHESSIRC_MAX_PER_ADDRESS = int(os.environ.get("CHESSIRC_MAX_PER_ADDRESS", "4"))
CHESSIRC_FIRST_LINE_TIMEOUT = float(os.environ.get("CHESSIRC_FIRST_LINE_TIMEOUT", "30"))
CHESSIRC_LOGIN_TIMEOUT = float(os.environ.get("CHESSIRC_LOGIN_TIMEOUT", "60"))
CHESSIRC_DB_THREADS = int(os.environ.get("CHESSIRC_DB_THREADS", "2"))
CHESSIRC_SECRET_QUEUE_PER_ADDRESS = int(os.environ.get("CHESSIRC_SECRET_QUEUE_PER_ADDRESS", "4"))
# Both write as ESPOL does: a client that reads nothing for ESPOL_WRITE_TIMEOUT seconds,
# with ESPOL_WRITE_BUFFER bytes waiting, is dropped.

# Game chat (games.chat): messages one player may send in a window of seconds.
CHAT_MESSAGES_PER_WINDOW = int(os.environ.get("CHAT_MESSAGES_PER_WINDOW", "5"))
CHAT_WINDOW_SECONDS = float(os.environ.get("CHAT_WINDOW_SECONDS", "10"))

# Mail (games.mail): Django's e-mail framework. The console backend prints each message
# on the standard output of the process that sends it (``manage.py serve`` runs the
# worker), so a newcomer reads the mail where the server logs; EMAIL_URL or the usual
# EMAIL_HOST… variables switch to SMTP.
def _email_settings() -> dict[str, Any]:
    """EMAIL_* settings from EMAIL_URL (smtp:// or smtps://, console:, dummy:, file:),
    else from EMAIL_HOST and its companions, else the console backend."""
    url = os.environ.get("EMAIL_URL", "").strip()
    if not url:
        host = os.environ.get("EMAIL_HOST", "").strip()
        if not host:
            return {"EMAIL_BACKEND": "django.core.mail.backends.console.EmailBackend"}
        return {
            "EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
            "EMAIL_HOST": host,
            "EMAIL_PORT": int(os.environ.get("EMAIL_PORT", "25")),
            "EMAIL_HOST_USER": os.environ.get("EMAIL_HOST_USER", ""),
            "EMAIL_HOST_PASSWORD": os.environ.get("EMAIL_HOST_PASSWORD", ""),
            "EMAIL_USE_TLS": _env_bool("EMAIL_USE_TLS", False),
            "EMAIL_USE_SSL": _env_bool("EMAIL_USE_SSL", False),
        }
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    simple = {
        "console": "django.core.mail.backends.console.EmailBackend",
        "dummy": "django.core.mail.backends.dummy.EmailBackend",
        "memory": "django.core.mail.backends.locmem.EmailBackend",
    }
    if scheme in simple:
        return {"EMAIL_BACKEND": simple[scheme]}
    if scheme == "file":
        return {
            "EMAIL_BACKEND": "django.core.mail.backends.filebased.EmailBackend",
            "EMAIL_FILE_PATH": parts.path,
        }
    if scheme not in {"smtp", "smtps"}:
        raise ImproperlyConfigured(
            f"EMAIL_URL: unknown scheme {parts.scheme!r} (smtp, smtps, console, file, dummy)"
        )
    query = {key.lower(): values[-1] for key, values in parse_qs(parts.query).items()}

    def flag(name: str) -> bool:
        return query.get(name, "").strip().lower() in {"1", "true", "yes", "on"}

    try:
        port = parts.port
    except ValueError as exc:
        raise ImproperlyConfigured(f"EMAIL_URL: {exc}") from exc
    use_ssl = scheme == "smtps" or flag("ssl")
    return {
        "EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
        "EMAIL_HOST": parts.hostname or "localhost",
        "EMAIL_PORT": port or (465 if use_ssl else 25),
        # Percent-encoded in the URL, so a password may hold "@", ":" or "/".
        "EMAIL_HOST_USER": unquote(parts.username or ""),
        "EMAIL_HOST_PASSWORD": unquote(parts.password or ""),
        "EMAIL_USE_TLS": flag("tls"),
        "EMAIL_USE_SSL": use_ssl,
    }


_email = _email_settings()
EMAIL_BACKEND: str = _email["EMAIL_BACKEND"]
EMAIL_HOST: str = _email.get("EMAIL_HOST", "localhost")
EMAIL_PORT: int = _email.get("EMAIL_PORT", 25)
EMAIL_HOST_USER: str = _email.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD: str = _email.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS: bool = _email.get("EMAIL_USE_TLS", False)
EMAIL_USE_SSL: bool = _email.get("EMAIL_USE_SSL", False)
if "EMAIL_FILE_PATH" in _email:
    EMAIL_FILE_PATH = _email["EMAIL_FILE_PATH"]
if EMAIL_USE_TLS and EMAIL_USE_SSL:
    raise ImproperlyConfigured("EMAIL_USE_TLS and EMAIL_USE_SSL are exclusive: choose one")
# A mail server that does not answer must not hold a worker for ever.
EMAIL_TIMEOUT = float(os.environ.get("EMAIL_TIMEOUT", "30"))
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "Ajedrez <ajedrez@localhost>")
SERVER_EMAIL = DEFAULT_FROM_EMAIL
# Links in mail: a worker has no request to take the host from.
SITE_URL = os.environ.get("SITE_URL", "http://127.0.0.1:8000").rstrip("/")
# At most one "your move" mail per game and player in this many hours; later moves wait
# for the window's end (and are dropped if the player has moved or looked meanwhile).
MAIL_MOVE_INTERVAL_HOURS = float(os.environ.get("MAIL_MOVE_INTERVAL_HOURS", "6"))
# A send that fails is tried again after MAIL_RETRY_SECONDS, then twice that, and so
# on, MAIL_SEND_ATTEMPTS times in all; the last failure is logged as an error and kept
# as a failed task in the admin ("Django Tasks DB" › "Task results").
MAIL_SEND_ATTEMPTS = int(os.environ.get("MAIL_SEND_ATTEMPTS", "5"))
MAIL_RETRY_SECONDS = float(os.environ.get("MAIL_RETRY_SECONDS", "60"))
# A player with a socket open is on the site and is not mailed. Each process renews
# its players' marks every PRESENCE_TTL_SECONDS / 3; a process that dies leaves marks
# that lapse after PRESENCE_TTL_SECONDS.
PRESENCE_TTL_SECONDS = float(os.environ.get("PRESENCE_TTL_SECONDS", "90"))

# The lichess-compatible API (games.api, docs/protocols/lichess.md): requests one token
# may make a minute (beyond: 429, as lichess answers), the largest request body an
# endpoint reads (a chat line or a challenge's form is far smaller), the seconds between
# the keep-alive newlines of its streams (lichess: 7), and the streams one token may hold
# open in one process at once. 0 turns a limit off.
API_REQUESTS_PER_MINUTE = int(os.environ.get("API_REQUESTS_PER_MINUTE", "300"))
API_MAX_BODY_BYTES = int(os.environ.get("API_MAX_BODY_BYTES", "16384"))
API_STREAM_KEEPALIVE_SECONDS = float(os.environ.get("API_STREAM_KEEPALIVE_SECONDS", "6"))
API_STREAMS_PER_TOKEN = int(os.environ.get("API_STREAMS_PER_TOKEN", "16"))
# The export of a player's games is read and sent this many games at a time; POST
# /api/import takes this many games per token an hour (lichess: 200).
API_EXPORT_PAGE_GAMES = int(os.environ.get("API_EXPORT_PAGE_GAMES", "50"))
API_IMPORTS_PER_HOUR = int(os.environ.get("API_IMPORTS_PER_HOUR", "200"))
# OAuth2's token exchange (POST /api/token) takes no token: it is counted per address.
API_TOKEN_REQUESTS_PER_MINUTE = int(os.environ.get("API_TOKEN_REQUESTS_PER_MINUTE", "30"))

# Live sockets one login session, and one address, may hold open in one process
# (accounts/socket_limits.py): a player with ten game pages open holds about twenty; an
# office or a school behind one address, more. 0: no such bound.
SOCKETS_PER_SESSION = int(os.environ.get("SOCKETS_PER_SESSION", "30"))
SOCKETS_PER_ADDRESS = int(os.environ.get("SOCKETS_PER_ADDRESS", "200"))

# Background tasks: rows in the database, run by `manage.py db_worker` (a thread of
# `manage.py serve`, or a process of its own: docs/deploy.md). TASK_WORKER_IN_SERVE=false
# leaves `serve` without it.
TASKS = {
    "default": {
        "BACKEND": "django_tasks_db.DatabaseBackend",
        "QUEUES": ["default", "mail", "analysis"],
    }
}
TASK_WORKER_IN_SERVE = _env_bool("TASK_WORKER_IN_SERVE", True)
TASK_WORKER_INTERVAL = float(os.environ.get("TASK_WORKER_INTERVAL", "1"))

# Computer analysis (docs/analysis.md): Stockfish over UCI, driven by the worker of the
# "analysis" queue (a thread of `manage.py serve` beside the mail's, or
# `manage.py db_worker --queue-name analysis`), never by a request. Each position is
# searched to ENGINE_NODES nodes (or ENGINE_DEPTH plies, when set), and never longer than
# ENGINE_SECONDS; a search that has not answered ENGINE_HANG_SECONDS after that counts as
# hung, and the engine is killed, started again and asked again, ENGINE_ATTEMPTS times
# at most per position. Starting it gets ENGINE_START_SECONDS (it loads its network and
# allocates its hash, slow on a loaded machine), and a start that took longer is tried
# again like a hang. The defaults suit a 2-core machine that also serves the games:
# one engine thread, a small hash, and the lowest CPU priority (ENGINE_NICE, and Linux's
# idle scheduling class with ENGINE_IDLE_CLASS) so that moves keep their latency while
# analyses run (docs/benchmarks.md, "Computer analysis").
STOCKFISH_PATH = os.environ.get("STOCKFISH_PATH", "/usr/games/stockfish")
ENGINE_NODES = int(os.environ.get("ENGINE_NODES", "250000"))
ENGINE_DEPTH = int(os.environ.get("ENGINE_DEPTH", "0"))
ENGINE_SECONDS = float(os.environ.get("ENGINE_SECONDS", "1.5"))
ENGINE_THREADS = int(os.environ.get("ENGINE_THREADS", "1"))
ENGINE_HASH_MB = int(os.environ.get("ENGINE_HASH_MB", "32"))
ENGINE_NICE = int(os.environ.get("ENGINE_NICE", "19"))
ENGINE_IDLE_CLASS = _env_bool("ENGINE_IDLE_CLASS", True)
ENGINE_HANG_SECONDS = float(os.environ.get("ENGINE_HANG_SECONDS", "10"))
ENGINE_START_SECONDS = float(os.environ.get("ENGINE_START_SECONDS", "60"))
ENGINE_ATTEMPTS = int(os.environ.get("ENGINE_ATTEMPTS", "3"))
# A game's analysis runs in slices of at most this many seconds, each a task of its own:
# a position asked for on the analysis board waits for the end of a slice, not of a game.
ANALYSIS_SLICE_SECONDS = float(os.environ.get("ANALYSIS_SLICE_SECONDS", "5"))
# `manage.py serve` runs the analysis queue's worker on a thread of its own (the mail's
# worker leaves that queue to it, so a long analysis never holds a mail back).
ANALYSIS_WORKER_IN_SERVE = _env_bool("ANALYSIS_WORKER_IN_SERVE", TASK_WORKER_IN_SERVE)
# Requests one player may make in a window (counted in the cache, as the chat's): game
# analyses, and positions of the analysis board. 0 turns a limit off.
ANALYSIS_REQUESTS_PER_WINDOW = int(os.environ.get("ANALYSIS_REQUESTS_PER_WINDOW", "10"))
ANALYSIS_WINDOW_SECONDS = float(os.environ.get("ANALYSIS_WINDOW_SECONDS", "3600"))
POSITION_EVALUATIONS_PER_WINDOW = int(os.environ.get("POSITION_EVALUATIONS_PER_WINDOW", "30"))
POSITION_EVALUATION_WINDOW_SECONDS = float(
    os.environ.get("POSITION_EVALUATION_WINDOW_SECONDS", "60")
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
        # Each mail sent, retried or given up (games.mail), whatever LOG_LEVEL says.
        "ajedrez.mail": {"level": "INFO"},
    },
}
