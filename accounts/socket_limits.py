"""How many live sockets one login session and one address may hold open in a process.

Every open socket costs the process memory, a place in its groups and a share of each
event's fan-out: one session that opened a thousand lobby sockets took a move from 33 to
392 ms for everyone. The counts are this process's own, kept in memory, exact and
released when a socket closes, however the process is later stopped: what a flood harms
is the process that holds its sockets, and a load balancer spreads one client's sockets
over the processes, so the bound across a deployment is the number of processes times the
settings' values. Sockets over a bound are accepted and closed at once with a code the
pages know (:data:`CLOSE_TOO_MANY_SOCKETS`).

A socket is counted from the moment its handshake reaches the application, by
:class:`SocketLimitMiddleware` in front of authentication: by the session cookie it
brings and the client's address, before anything is read from the database. Counted
only once the consumer had authenticated it, a burst of handshakes all waited for their
session's lookup uncounted, more sockets than the bound were open at once, and each
refused one had cost a database query first.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter
from typing import Any

from django.conf import settings
from django.http.cookie import parse_cookie

from accounts.sessions import SESSION_KEY_LENGTHS
from accounts.throttling import client_address

logger = logging.getLogger("ajedrez.sockets")

# A refused flood is logged once per this many seconds per address, not once per socket.
LOG_INTERVAL_SECONDS = 60.0

# The close code of a socket over a bound (4000–4999 are free for applications); the
# pages try again later, as after any other close.
CLOSE_TOO_MANY_SOCKETS = 4409


_lock = threading.Lock()
_per_session: Counter[str] = Counter()
_per_address: Counter[str] = Counter()
_last_logged: dict[str, float] = {}


class Ticket:
    """What an admitted socket holds and gives back when it closes."""

    __slots__ = ("address", "released", "session")

    def __init__(self, session: str | None, address: str | None) -> None:
        self.session = session
        self.address = address
        self.released = False


def admit(session_key: str | None, host: str | None) -> Ticket | None:
    """Count a new socket of ``session_key`` from ``host``; ``None`` when one of the two
    already holds as many as the settings allow (then nothing is counted)."""
    address = client_address(host)
    per_session = int(settings.SOCKETS_PER_SESSION)
    per_address = int(settings.SOCKETS_PER_ADDRESS)
    with _lock:
        over = (
            "session" if session_key and per_session and _per_session[session_key] >= per_session
            else "address" if address and per_address and _per_address[address] >= per_address
            else None
        )
        if over is None:
            if session_key:
                _per_session[session_key] += 1
            if address:
                _per_address[address] += 1
            return Ticket(session_key, address)
        now = time.monotonic()
        key = address or session_key or ""
        quiet = now - _last_logged.get(key, -LOG_INTERVAL_SECONDS) >= LOG_INTERVAL_SECONDS
        if quiet:
            _last_logged[key] = now
    if quiet:
        logger.warning(
            "sockets refused: the %s limit is reached (address %s); further refusals from "
            "it are not logged for %d s", over, address, LOG_INTERVAL_SECONDS,
        )
    return None


def release(ticket: Ticket | None) -> None:
    """Give back what :func:`admit` counted (at most once per ticket)."""
    if ticket is None:
        return
    with _lock:
        if ticket.released:
            return
        ticket.released = True
        for counts, key in ((_per_session, ticket.session), (_per_address, ticket.address)):
            if key:
                counts[key] -= 1
                if counts[key] <= 0:
                    del counts[key]


def handshake_session_key(scope: dict[str, Any]) -> str | None:
    """The session key the handshake's cookie names, unchecked (None: no cookie of that
    name, or a value no session key can have, :mod:`accounts.sessions`: the address's
    bound alone applies)."""
    cookies = "; ".join(
        bytes(value).decode("latin-1") for name, value in scope.get("headers") or []
        if name == b"cookie"
    )
    key = parse_cookie(cookies).get(settings.SESSION_COOKIE_NAME, "")
    if len(key) in SESSION_KEY_LENGTHS and key.isascii() and key.isalnum():
        return key
    return None


class SocketLimitMiddleware:
    """Counts each WebSocket against its session's and its address's bounds from the
    moment its handshake arrives, before authentication; the one over a bound is
    accepted and closed with :data:`CLOSE_TOO_MANY_SOCKETS` without going further, and
    each counted socket is given back when its application ends, however it ends."""

    def __init__(self, application: Any) -> None:
        self.application = application

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope.get("type") != "websocket":
            await self.application(scope, receive, send)
            return
        ticket = admit(handshake_session_key(scope), (scope.get("client") or [None])[0])
        if ticket is None:
            await refuse(receive, send)
            return
        try:
            await self.application(scope, receive, send)
        finally:
            release(ticket)


async def refuse(receive: Any, send: Any) -> None:
    """Accept the handshake and close at once with :data:`CLOSE_TOO_MANY_SOCKETS`: closed
    before the accept, Daphne answers HTTP 403 and the page sees only 1006."""
    message = await receive()
    if message.get("type") != "websocket.connect":
        return  # the client went away first
    await send({"type": "websocket.accept"})
    await send({"type": "websocket.close", "code": CLOSE_TOO_MANY_SOCKETS})
