"""How often someone may ask for something: request counters kept in Django's cache, and
the address by which clients are counted.

Used for subscription requests, which anyone may send without an account: each costs a
password hash and a row for an administrator to read, so they are counted per address,
over the web and ESPOL together (a client cannot double its allowance by using both).

Failed logins are counted by django-axes (settings ``AXES_*``), per user name and
address, in the database. The web's login pages reach it through Django's ``authenticate``;
a door that is not a web page (ESPOL ``PASS``) checks a password with :func:`check_login`,
which goes through the same ``authenticate``, so both doors add to one count and are
refused by one lock-out. :func:`client_address` is the address counted, at every door.

The counters live in the default cache. Without ``REDIS_URL`` that is Django's local
memory cache, which is per process: run the web and the ESPOL gateway as separate
processes (or several web workers) and each counts on its own, so an address gets the
allowance once per process. With ``REDIS_URL`` the settings put the cache in Redis, shared
by every process. The cache must keep a key's expiry when the key is incremented: local
memory, Redis and Memcached do; Django's database and file caches do not.

The TCP gateways also space out their own password and secret checks after wrong ones
(:class:`LoginThrottle`), in the memory of the process that holds their connections.
"""

from __future__ import annotations

import ipaddress
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

from axes.handlers.database import AxesDatabaseHandler
from django.conf import settings
from django.contrib.auth import authenticate
from django.contrib.auth.signals import user_logged_in
from django.core.cache import cache
from django.db import transaction
from django.http import HttpRequest

from accounts.backends import request_state
from accounts.types import Player


@dataclass(frozen=True)
class Allowance:
    """Whether a request may go ahead; if not, in how many seconds the count starts over."""

    allowed: bool
    retry_after: int = 0


def count_request(scope: str, key: str, *, limit: int, window: float) -> Allowance:
    """Count one request of ``key`` (an address, a name) in ``scope``, against ``limit``.

    A window opens at the first request counted and closes ``window`` seconds later,
    forgetting the count; requests beyond ``limit`` within it are refused (and counted,
    so that insisting does not help). A ``limit`` of 0 or less turns the limit off.
    """
    if limit <= 0:
        return Allowance(True)
    now = time.time()
    count_key, start_key = f"throttle:{scope}:{key}", f"throttle:{scope}:{key}:start"
    cache.add(start_key, now, timeout=window)
    cache.add(count_key, 0, timeout=window)
    try:
        count = cache.incr(count_key)
    except ValueError:
        # The window closed between add and incr: this request opens the next one.
        cache.set(start_key, now, timeout=window)
        cache.set(count_key, 1, timeout=window)
        count = 1
    if count <= limit:
        return Allowance(True)
    started = cache.get(start_key, now)
    return Allowance(False, retry_after=max(1, math.ceil(started + window - now)))


def subscription_request(address: str) -> Allowance:
    """Count a subscription request from ``address`` (web or ESPOL) against the settings'
    ``SUBSCRIPTION_REQUESTS_PER_ADDRESS`` per ``SUBSCRIPTION_REQUESTS_WINDOW`` seconds."""
    return count_request(
        "subscription",
        address or "?",
        limit=settings.SUBSCRIPTION_REQUESTS_PER_ADDRESS,
        window=settings.SUBSCRIPTION_REQUESTS_WINDOW,
    )


def minutes_to_wait(allowance: Allowance) -> int:
    """``retry_after`` in whole minutes, at least one: how the refusals say it."""
    return max(1, math.ceil(allowance.retry_after / 60))


def client_address(host: str | None) -> str | None:
    """The address a client is counted by: an IPv4 address as it is (also when mapped
    into IPv6), an IPv6 address as its /64, or None for what is not an IP address.

    One subscriber usually holds a whole IPv6 /64, so counting single IPv6 addresses would
    give each client 2^64 allowances. The /64 is written as its first address, which is an
    address itself and so fits where one is stored (axes' ``ip_address`` column).
    """
    try:
        ip = ipaddress.ip_address((host or "").split("%", 1)[0])
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False).network_address)
    return str(ip)


class LoginFailureHandler(AxesDatabaseHandler):
    """``AXES_HANDLER``: django-axes' database handler, except that a login with a
    subscription request's own password (:mod:`accounts.backends`) is not counted as a
    failure at any door: a right password is no guess, and a subscriber checking whether
    she was approved must not lock herself out. The lock-out itself is untouched: a name
    locked out is refused before any password is checked, that one's included."""

    def user_login_failed(
        self, sender: Any, credentials: dict, request: HttpRequest | None = None, **kwargs: Any
    ) -> None:
        if request_state(request) is not None:
            return
        super().user_login_failed(sender, credentials, request, **kwargs)


def axes_client_address(request: HttpRequest) -> str | None:
    """``AXES_CLIENT_IP_CALLABLE``: the request's :func:`client_address`. Behind a reverse
    proxy, ``REMOTE_ADDR`` must be the client's (Daphne: ``--proxy-headers``)."""
    return client_address(request.META.get("REMOTE_ADDR"))


def lockout_minutes() -> int:
    """How long a lock-out lasts (``AXES_COOLOFF_TIME``), in whole minutes, at least one."""
    return max(1, math.ceil(settings.AXES_COOLOFF_TIME.total_seconds() / 60))


@dataclass(frozen=True)
class LoginCheck:
    """What :func:`check_login` found: the account, when the password was right and the
    door admits it; or whether the lock-out refused the login (the password was then not
    checked, or was wrong and reached the limit)."""

    user: Player | None
    locked_out: bool = False
    # The password was that of the name's subscription request, not approved (yet):
    # "request_pending" or "request_rejected" (accounts.backends); not a failure.
    request_state: str | None = None


def check_login(
    *,
    username: str,
    password: str,
    address: str,
    door: str,
    admits: Callable[[Player], bool],
) -> LoginCheck:
    """Check ``username``'s ``password`` from ``address`` at a door other than the web
    pages, under the site's login policy; ``admits`` says whether that door lets the
    account in (ESPOL: only players).

    Django's ``authenticate`` runs with the project's backends, as for the web's login:
    django-axes refuses a name locked out from this address without checking the
    password, and counts a wrong password (unknown names and closed accounts included,
    after the same hashing) for (name, address), the same count the web adds to. A right
    password with a hash made before Argon2 is re-hashed (``check_password``'s setter).
    An account the door does not admit is answered as a wrong password but not counted:
    its password was right. An admitted login is announced with ``user_logged_in``, as
    ``django.contrib.auth.login`` does, so axes forgets the name's failures from there and
    Django records the time of the login.

    axes reads who is logging in from an HTTP request; this door has none, so a minimal
    one stands for it, with the client's address (``REMOTE_ADDR``) and the door's name as
    user agent and path, which is what axes records and logs. It hashes and writes to the
    database: never call it inside a transaction.
    """
    request = HttpRequest()
    request.method = "POST"
    request.META.update({"REMOTE_ADDR": address, "HTTP_USER_AGENT": door, "PATH_INFO": door})
    user = authenticate(request, username=username, password=password)
    if user is None:
        return LoginCheck(
            None,
            locked_out=bool(getattr(request, "axes_locked_out", False)),
            request_state=request_state(request),
        )
    if not admits(user):
        return LoginCheck(None)
    # What the login's receivers write (the login's time, axes' log and its failures
    # forgotten) in one commit rather than one each: on SQLite every commit takes the
    # one write lock, which a burst of logins would otherwise take from the moves three
    # times per login. Nothing slow in it: the password was checked before.
    with transaction.atomic():
        user_logged_in.send(sender=type(user), request=request, user=user)
    return LoginCheck(user)


# ---------------------------------------------- password checks at the TCP gateways
# Kept in the gateway process's memory: a gateway's connections are all in one process.


class LoginFailures(NamedTuple):
    """What :meth:`LoginThrottle.failed` counted: the failures of the name from the
    address, those of the address, and the wait before the next check under either."""

    for_name: int
    for_address: int
    next_check_in: float


class LoginThrottle:
    """Spaces out password checks after wrong passwords, per (user name, address) and per
    address.

    The wait comes before the check, not after it: answering only the wrong guesses late
    would let a guesser read a slow answer as "wrong" and move on, while the right password
    still came back at once. So once a key has failures, every check under it, right or
    wrong and from any connection, waits for its turn: ``delay(failures)`` after the
    previous check's turn, or after the last failure. Parallel guesses from one address
    therefore queue one behind another instead of running side by side, and opening many
    connections buys no extra guesses.

    A check belongs to two keys, its (name, address) and its address, and waits for the
    later of their turns. Neither key holds the name alone: guesses at a name from one
    address queue only checks of that name from that address, so the name's owner, logging
    in from anywhere else, is not held behind the guesser's queue (keyed by name alone,
    eight guessers held a player's right password back for a minute). The address key
    slows one address trying many names. A key's count is forgotten after ``window``
    seconds without failures; a right password forgets its (name, address), not the
    address's count, which a guesser could otherwise clear by logging into an account of
    their own.

    Addresses are what the gateway's ``address_key`` makes of the peer (an IPv6 /64 counts as one
    address). Behind a TCP proxy every client has the proxy's address, and the keys
    degrade to the name alone and to everyone at once.
    """

    def __init__(self, *, base: float, cap: float, window: float = 900.0) -> None:
        self.base = base
        self.cap = cap
        self.window = window
        # key -> [failures, time of the last failure, earliest time of the next check]
        self._keys: dict[tuple[str, ...], list[float]] = {}

    def delay(self, failures: int) -> float:
        """How long a check waits after ``failures`` wrong passwords (0 after none)."""
        return 0.0 if failures < 1 else min(self.cap, self.base * 2 ** (failures - 1))

    @staticmethod
    def _keys_of(username: str, address: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
        return ("name", username, address), ("address", address)

    def _live(self, key: tuple[str, ...], now: float) -> list[float] | None:
        state = self._keys.get(key)
        if state is not None and now - state[1] > self.window:
            del self._keys[key]
            return None
        return state

    def reserve(self, username: str, address: str) -> float:
        """Take the next turn to check a password for ``username`` from ``address``;
        return the wait for it."""
        wait = self.reserve_within(username, address, math.inf)
        assert wait is not None
        return wait

    def reserve_within(self, username: str, address: str, max_wait: float) -> float | None:
        """As :meth:`reserve`, but only a turn at most ``max_wait`` seconds away: None,
        and no turn taken, when the next one is later (a check that could not be made
        before its connection's deadline must not push back the checks behind it)."""
        now = time.monotonic()
        found = (self._live(key, now) for key in self._keys_of(username, address))
        states = [state for state in found if state is not None]
        if not states:
            return 0.0
        turn = max(now, *(state[2] for state in states))
        if turn - now > max_wait:
            return None
        for state in states:
            state[2] = turn + self.delay(int(state[0]))
        return turn - now

    def failed(self, username: str, address: str) -> LoginFailures:
        """Record a wrong password for ``username`` from ``address``."""
        now = time.monotonic()
        counts = []
        for key in self._keys_of(username, address):
            state = self._live(key, now)
            if state is None:
                state = self._keys[key] = [0, now, now]
            state[0] += 1
            state[1] = now
            state[2] = max(state[2], now + self.delay(int(state[0])))
            counts.append(state)
        if len(self._keys) > 10_000:
            self._forget_old(now)
        name_state, address_state = counts
        return LoginFailures(
            for_name=int(name_state[0]),
            for_address=int(address_state[0]),
            next_check_in=max(name_state[2], address_state[2]) - now,
        )

    def succeeded(self, username: str, address: str) -> None:
        self._keys.pop(self._keys_of(username, address)[0], None)

    def _forget_old(self, now: float) -> None:
        for key, (_failures, last_failure, _next) in list(self._keys.items()):
            if now - last_failure > self.window:
                del self._keys[key]
