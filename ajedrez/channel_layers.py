"""The in-memory channel layer (the embedded default), with expiry that does not cost a
walk of every channel and group on each delivery.

channels' :class:`channels.layers.InMemoryChannelLayer` (4.3) runs ``_clean_expired`` at
the start of every ``receive`` and ``group_send``: it walks every channel's queue and every
group membership of the process. Each open socket waits in ``receive`` and calls it again
after each message, so one event broadcast to *n* sockets walks everything *n* times:
O(n²) per event (at 1,000 watchers, each with its account's and session's groups, a
move took seconds to reach them: ``docs/benchmarks.md``).
Upstream has not changed this as of channels 4.3.2 (its 2024 rework of this layer,
django/channels#1976, kept the sweep on every call); its maintainers keep the in-memory
layer for tests and single processes, which is what the embedded default is.

This subclass keeps upstream's data structures and its sweep (``_clean_expired``, untouched)
and changes when and how much work is done:

- The sweep runs at most once per ``sweep_interval`` seconds (default 1), from whichever
  ``receive`` or ``group_send`` comes first after that. Expired messages, the channels that
  held them, and group memberships older than ``group_expiry`` are removed as before, at
  most ``sweep_interval`` later than upstream would.
- ``receive`` checks the expiry of the message it takes: one that expired before the
  sweep came round is dropped (and its channel leaves its groups, as the sweep does) and
  the receive waits for the next one. No message past its expiry is ever delivered.
- ``group_send`` copies the message once and puts that one copy on every member's queue,
  where upstream deep-copies it and starts a task per member. The receivers of one group
  message share it and must not change it, which is also what channels-redis does (one
  decoded message handed to all of a process's channels in the group); the consumers here
  only read events. A direct ``send`` still copies, as upstream.

With ``REDIS_URL`` the settings pick channels-redis instead; :func:`redis_layer_host` is
the host entry they give it.
"""

from __future__ import annotations

import asyncio
import time
from copy import deepcopy
from typing import Any
from urllib.parse import parse_qs, urlsplit

from channels.layers import InMemoryChannelLayer
from django.core.exceptions import ImproperlyConfigured


class LazyExpiryInMemoryChannelLayer(InMemoryChannelLayer):
    """:class:`channels.layers.InMemoryChannelLayer` with a rate-limited expiry sweep,
    expiry checked on receipt, and one copy of a group message for the whole group."""

    def __init__(
        self,
        expiry: float = 60,
        group_expiry: int = 86400,
        capacity: int = 100,
        channel_capacity: dict[str, int] | None = None,
        sweep_interval: float = 1.0,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            expiry=expiry,
            group_expiry=group_expiry,
            capacity=capacity,
            channel_capacity=channel_capacity,
            **kwargs,
        )
        self.sweep_interval = sweep_interval
        self._next_sweep = 0.0

    def _sweep_if_due(self) -> None:
        now = time.monotonic()
        if now >= self._next_sweep:
            self._next_sweep = now + self.sweep_interval
            self._clean_expired()

    def _queue(self, channel: str) -> asyncio.Queue[tuple[float, dict[str, Any]]]:
        queue = self.channels.get(channel)
        if queue is None:
            # Built only when missing (upstream's setdefault builds one on every call).
            queue = self.channels[channel] = asyncio.Queue(maxsize=self.get_capacity(channel))
        return queue

    async def receive(self, channel: str) -> dict[str, Any]:
        """The next unexpired message on ``channel``, waiting for one if need be."""
        self.require_valid_channel_name(channel)
        self._sweep_if_due()
        while True:
            queue = self._queue(channel)
            try:
                expires, message = await queue.get()
            finally:
                if queue.empty():
                    self.channels.pop(channel, None)
            if expires >= time.time():
                return message
            # Unread past its expiry: whoever held this channel stopped reading it. The
            # sweep would have dropped the message and taken the channel out of its groups.
            self._remove_from_groups(channel)

    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        """Put one copy of ``message`` on the queue of each channel in ``group``; a full
        channel misses it (as upstream, which ignores ``ChannelFull`` here)."""
        assert isinstance(message, dict), "Message is not a dict"
        self.require_valid_group_name(group)
        self._sweep_if_due()
        members = self.groups.get(group)
        if not members:
            return
        shared = deepcopy(message)
        expires = time.time() + self.expiry
        for channel in list(members):
            try:
                self._queue(channel).put_nowait((expires, shared))
            except asyncio.QueueFull:
                continue


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


def redis_layer_host(url: str) -> dict[str, Any]:
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
