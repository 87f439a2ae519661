"""How many live sockets one login session and one address may hold open in a process.

Every open socket costs the process memory, a place in its groups and a share of each
event's fan-out: one session that opened a thousand lobby sockets took a move from 33 to
392 ms for everyone. The counts are this process's own, kept in memory, exact and
released when a socket closes, however the process is later stopped: what a flood harms
is the process that holds its sockets, and a load balancer spreads one client's sockets
over the processes, so the bound across a deployment is the number of processes times the
settings' values. Sockets over a bound are accepted and closed at once with a code the
pages know (:data:`games.consumers.CLOSE_TOO_MANY_SOCKETS`).
"""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter

from django.conf import settings

from accounts.throttling import client_address

logger = logging.getLogger("ajedrez.sockets")

# A refused flood is logged once per this many seconds per address, not once per socket.
LOG_INTERVAL_SECONDS = 60.0

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


def open_sockets(*, session_key: str | None = None, host: str | None = None) -> int:
    """How many sockets this process counts for a session or an address (for tests and
    the admin's curiosity)."""
    with _lock:
        if session_key is not None:
            return _per_session[session_key]
        address = client_address(host)
        return _per_address[address] if address else 0
