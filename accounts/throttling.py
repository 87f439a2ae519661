"""How often someone may ask for something: request counters kept in Django's cache, and
the address by which clients are counted.

Used for subscription requests, which anyone may send without an account: each costs a
password hash and a row for an administrator to read, so they are counted per address,
over the web and ESPOL together (a client cannot double its allowance by using both).

Failed logins are counted by django-axes (settings ``AXES_*``), per user name and
address, in the database; :func:`client_address` is the address it counts by, on the web
and over ESPOL alike.

The counters live in the default cache. Without ``REDIS_URL`` that is Django's local
memory cache, which is per process: run the web and the ESPOL gateway as separate
processes (or several web workers) and each counts on its own, so an address gets the
allowance once per process. With ``REDIS_URL`` the settings put the cache in Redis, shared
by every process. The cache must keep a key's expiry when the key is incremented: local
memory, Redis and Memcached do; Django's database and file caches do not.
"""

from __future__ import annotations

import ipaddress
import math
import time
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest


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


def axes_client_address(request: HttpRequest) -> str | None:
    """``AXES_CLIENT_IP_CALLABLE``: the request's :func:`client_address`. Behind a reverse
    proxy, ``REMOTE_ADDR`` must be the client's (Daphne: ``--proxy-headers``)."""
    return client_address(request.META.get("REMOTE_ADDR"))
