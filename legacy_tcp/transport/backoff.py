"""Addresses that reconnect as fast as they can after being refused: their connections
are dropped on accept, without a reply, for a while.

A client reconnecting in a loop at its address's cap was refused about 6,000 times a
second, and every other player's move took 3.5 times as long: each refusal cost the
event loop its reply, the refusal log's bookkeeping and the address key, and the storm
cost the machine the flooding threads and the kernel's handshakes. Once an address has
been refused ``threshold`` times within ``window`` seconds, its connections over its cap
are dropped as soon as they are accepted, for ``hold`` seconds: no reply, no log line, no
task, and a reset rather than a closing handshake, so the server keeps no ``TIME_WAIT``
entry for them (one that finds a place freed under the cap is served as ever). A dropped
connection waits in a small :class:`Pen` for a second before its reset: a client that
waits for its answer then reconnects once a second instead of thousands of times. At the
end of the hold, an address that sent ``threshold`` or more connections over its cap
during it is held again; one that calmed down is served as any other (refused at its
cap, with the protocol's busy reply). Other addresses are never affected. Only refusals
at the address's own cap count: refusals at the gateway's total cap are not one
address's doing (and with no cap per address, one address may be a proxy for many).

The pen's bound is the limit: when more connections of storming addresses wait than it
holds, the others are reset at once, and their clients come back at once; each then costs
an accept and a reset, no more.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import struct
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from legacy_tcp.transport.refusals import FloodSampler

# Refusals within WINDOW seconds that start a back-off: an honest client at its cap is
# refused once or twice, not ten times a second.
THRESHOLD = 10
WINDOW = 1.0
# How long an address's connections are dropped before it is looked at again.
HOLD = 5.0
# Addresses remembered at once; beyond, the oldest are forgotten (a flood of addresses
# must not grow the table without end).
MAX_ADDRESSES = 10_000

# SO_LINGER on, with no time: close() resets the connection instead of a FIN exchange.
_RESET_ON_CLOSE = struct.pack("ii", 1, 0)


def drop(sock: socket.socket) -> None:
    """Close an accepted socket at once with a reset: no reply, no ``TIME_WAIT``."""
    with contextlib.suppress(OSError):
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, _RESET_ON_CLOSE)
    sock.close()


@dataclass
class _Address:
    # While counting refusals: when the window began and how many so far. While held:
    # when the hold ends, and how many connections came during it.
    since: float
    count: int = 0
    held_until: float | None = None


class AcceptBackoff:
    """Which addresses' connections to drop on accept (see the module's docstring).
    Times are ``time.monotonic()`` seconds, given by the caller. Each hold that starts is
    logged through ``log(level, message, *args)``, at most one line per interval
    whatever the addresses, with how many other holds began and how many connections
    were dropped since the last line."""

    def __init__(
        self,
        *,
        log: Callable[..., None],
        threshold: int = THRESHOLD,
        window: float = WINDOW,
        hold: float = HOLD,
        max_addresses: int = MAX_ADDRESSES,
    ) -> None:
        self.threshold = max(1, threshold)
        self.window = window
        self.hold = hold
        self.max_addresses = max_addresses
        self._addresses: dict[str, _Address] = {}
        self._log = log
        self._sampler = FloodSampler()
        # Connections dropped in all, and when the last log line was written.
        self.dropped = 0
        self._dropped_logged = 0

    def holding(self, key: str, now: float) -> bool:
        """Whether a connection just accepted from ``key`` is to be dropped."""
        state = self._addresses.get(key)
        if state is None or state.held_until is None:
            return False
        if now >= state.held_until:
            if state.count < self.threshold:
                del self._addresses[key]  # it calmed down
                return False
            state.held_until, state.count = now + self.hold, 0  # still flooding
        state.count += 1
        self.dropped += 1
        return True

    def refused(self, key: str, now: float) -> bool:
        """Count a refusal of a connection from ``key``; True when it starts a hold."""
        state = self._addresses.get(key)
        if state is None or now - state.since > self.window:
            if state is None and len(self._addresses) >= self.max_addresses:
                self._forget_oldest(now)
            state = self._addresses[key] = _Address(since=now)
        state.count += 1
        if state.count < self.threshold:
            return False
        state.held_until, state.count = now + self.hold, 0
        self._log_hold(key)
        return True

    def _log_hold(self, key: str) -> None:
        held_back = self._sampler.take("backoff")
        if held_back is None:
            return
        self._log(
            logging.WARNING,
            "backoff address=%s refusals=%d within=%.1fs: its connections are dropped "
            "without a reply, %.0fs at a time, until it calms down; "
            "also_held_since_last=%d dropped_since_last=%d",
            key,
            self.threshold,
            self.window,
            self.hold,
            held_back,
            self.dropped - self._dropped_logged,
        )
        self._dropped_logged = self.dropped

    def _forget_oldest(self, now: float) -> None:
        """Forget addresses that are neither counting nor held, then the oldest."""
        for key, state in list(self._addresses.items()):
            if now - state.since > self.window and (
                state.held_until is None or now >= state.held_until
            ):
                del self._addresses[key]
        while len(self._addresses) >= self.max_addresses:
            del self._addresses[next(iter(self._addresses))]


class Pen:
    """Dropped connections kept a moment before their reset, a bounded number of them.

    A client that reconnects in a loop waits for each connection's answer: reset at once,
    it is back within microseconds, and the storm's rate is its processor's (the flooding
    threads and the kernel's handshakes, on the cores the moves need). Held for
    ``seconds`` first, each of its threads comes back once a second. Only ``size``
    sockets are held at once, all addresses together (they are descriptors beyond the
    gateway's cap, taken from the headroom kept for the rest of the process); when the
    pen is full a dropped connection is reset at once. No task per socket: one timer
    resets the expired ones."""

    def __init__(self, *, size: int, seconds: float = 1.0) -> None:
        self.size = size
        self.seconds = seconds
        self._held: deque[tuple[float, socket.socket]] = deque()
        self._timer: asyncio.TimerHandle | None = None

    def __len__(self) -> int:
        return len(self._held)

    def hold(self, sock: socket.socket) -> None:
        if len(self._held) >= self.size:
            drop(sock)
            return
        loop = asyncio.get_running_loop()
        self._held.append((loop.time() + self.seconds, sock))
        if self._timer is None:
            self._timer = loop.call_later(self.seconds, self._reset_expired)

    def _reset_expired(self) -> None:
        loop = asyncio.get_running_loop()
        now = loop.time()
        while self._held and self._held[0][0] <= now:
            drop(self._held.popleft()[1])
        self._timer = (
            loop.call_at(self._held[0][0], self._reset_expired) if self._held else None
        )

    def close(self) -> None:
        """Reset every held socket now (the server stops)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        while self._held:
            drop(self._held.popleft()[1])
