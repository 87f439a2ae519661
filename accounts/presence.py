"""Who is on the site: a player with at least one socket open (any page of theirs: every
page opens the player socket, a game page its game socket too).

Kept in Django's cache, so that the mail worker sees it: in the process's memory in the
embedded setup (the worker is a thread of ``manage.py serve``, beside the sockets), in
Redis with ``REDIS_URL`` (every web process and a worker of its own share it). A player's
key holds one mark per process that has sockets of theirs, each with the moment it lapses;
a process renews its marks every third of ``PRESENCE_TTL_SECONDS`` while its sockets stay
open and removes its own mark when the last one closes. A process that dies without
closing its sockets (killed, the machine gone) leaves marks that lapse on their own, so a
dead socket never silences a player's mail for longer than ``PRESENCE_TTL_SECONDS``.
Two processes changing the same player's key at the same instant may lose one's mark
until its next renewal: a mail sent then is one more, never one lost.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
import uuid

from django.conf import settings
from django.core.cache import cache

logger = logging.getLogger("ajedrez.presence")

# This process's name among the marks.
PROCESS = uuid.uuid4().hex[:12]

_lock = threading.Lock()
# Held while a mark is read and written back (the cache's I/O: never under ``_lock``).
_mark_lock = threading.Lock()
# Player id → sockets of theirs open in this process.
_open: dict[int, int] = {}
_renewer: asyncio.Task[None] | None = None


def _key(player_id: int) -> str:
    return f"presence:{player_id}"


def _ttl() -> float:
    return float(settings.PRESENCE_TTL_SECONDS)


def _write_mark(player_id: int, *, present: bool) -> None:
    """Set or remove this process's mark for ``player_id``, dropping lapsed marks."""
    key = _key(player_id)
    now = time.time()
    found = cache.get(key)
    marks = {
        process: until
        for process, until in (found.items() if isinstance(found, dict) else ())
        if process != PROCESS and isinstance(until, int | float) and until > now
    }
    if present:
        marks[PROCESS] = now + _ttl()
    if marks:
        cache.set(key, marks, timeout=max(marks.values()) - now)
    else:
        cache.delete(key)


def is_online(player_id: int) -> bool:
    """Whether ``player_id`` has a socket open in some process (a mark not yet lapsed).

    The moment each mark lapses is read against the clock, not only left to the cache's
    expiry, so the rule is the same on every cache backend and under a test's fake clock.
    """
    found = cache.get(_key(player_id))
    if not isinstance(found, dict):
        return False
    now = time.time()
    return any(isinstance(until, int | float) and until > now for until in found.values())


def _sync_mark(player_id: int) -> None:
    """Make this process's mark say whether ``player_id`` has a socket open here now.

    Under the process's lock, and from the count at the moment of writing rather than
    the event that asked for it: a page that loads the next one closes its socket and
    opens another at once, from two threads, and the close's write landing after the
    open's would otherwise erase the mark of a socket still open.
    """
    with _mark_lock:
        with _lock:
            present = _open.get(player_id, 0) > 0
        _write_mark(player_id, present=present)


def socket_opened(player_id: int) -> None:
    with _lock:
        _open[player_id] = _open.get(player_id, 0) + 1
    _sync_mark(player_id)


def socket_closed(player_id: int) -> None:
    with _lock:
        left = _open.get(player_id, 0) - 1
        if left > 0:
            _open[player_id] = left
            return
        _open.pop(player_id, None)
    _sync_mark(player_id)


def renew() -> None:
    """Renew this process's marks for every player with a socket open here."""
    with _lock:
        players = list(_open)
    for player_id in players:
        _sync_mark(player_id)


async def opened(player_id: int) -> None:
    """:func:`socket_opened` from a consumer; starts the renewal on this loop if needed."""
    global _renewer
    await asyncio.to_thread(socket_opened, player_id)
    if _renewer is None or _renewer.done():
        _renewer = asyncio.ensure_future(_renew_forever())


async def closed(player_id: int) -> None:
    """:func:`socket_closed` from a consumer; the renewal stops with the last socket."""
    global _renewer
    await asyncio.to_thread(socket_closed, player_id)
    with _lock:
        idle = not _open
    if idle and _renewer is not None:
        _renewer.cancel()
        _renewer = None


async def _renew_forever() -> None:
    while True:
        await asyncio.sleep(_ttl() / 3)
        try:
            await asyncio.to_thread(renew)
        except Exception:
            # A cache that failed once (Redis restarting) must not end the renewals.
            logger.exception("renewing presence marks failed")
