"""Accepting connections on a gateway's listening sockets, through descriptor shortages.

The server accepts connections itself rather than through ``asyncio.start_server``: when
``accept()`` fails for want of descriptors (or kernel memory) it stops watching the
listeners, retries with a growing pause, and at once when one of its connections closes,
and logs the episode once when it begins and once when it ends. ``asyncio.start_server``
logged a traceback for every failed ``accept()``, and re-armed itself once for each.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import socket
from collections.abc import Callable

from legacy_tcp.transport.limits import has_waiting_connection, open_file_limit

# Pauses between attempts to accept again after running out of descriptors.
ACCEPT_RETRY_FIRST = 0.05
ACCEPT_RETRY_MAX = 2.0
# Connections accepted in one go when the listening socket is readable.
ACCEPT_BATCH = 64
BACKLOG = 1024


class Acceptor:
    """The listening sockets of one server: each accepted socket goes to ``admit``;
    ``log(level, message, *args)`` writes the server's log lines, and
    ``connection_count()`` says how many connections the server holds (for them)."""

    def __init__(
        self,
        *,
        admit: Callable[[socket.socket, tuple], None],
        log: Callable[..., None],
        connection_count: Callable[[], int],
    ) -> None:
        self._admit = admit
        self._log = log
        self._connection_count = connection_count
        self._listeners: list[socket.socket] = []
        self._stopped = False
        self._paused_since: float | None = None
        self._failures = 0
        self._accepted_while_paused = 0
        self._retry_delay = ACCEPT_RETRY_FIRST
        self._retry: asyncio.TimerHandle | None = None

    @property
    def listening(self) -> bool:
        return bool(self._listeners)

    async def listen(self, host: str, port: int) -> int:
        """Bind and start accepting; return the port (``port=0`` picks a free one)."""
        self._listeners = await self._bind(host, port)
        loop = asyncio.get_running_loop()
        for listener in self._listeners:
            loop.add_reader(listener.fileno(), self._accept_ready, listener)
        return int(self._listeners[0].getsockname()[1])

    async def _bind(self, host: str, port: int) -> list[socket.socket]:
        """Bound, listening, non-blocking sockets for ``host``:``port``, as
        ``asyncio.start_server`` would make them (one per address the host resolves to)."""
        loop = asyncio.get_running_loop()
        infos = await loop.getaddrinfo(
            host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )
        listeners: list[socket.socket] = []
        try:
            for family, kind, proto, _name, address in dict.fromkeys(infos):
                listener = socket.socket(family, kind, proto)
                listeners.append(listener)
                listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                if family == socket.AF_INET6:
                    listener.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
                listener.bind(address)
                listener.listen(BACKLOG)
                listener.setblocking(False)
        except OSError:
            for listener in listeners:
                listener.close()
            raise
        return listeners

    def stop(self) -> None:
        """Stop accepting and close the listening sockets."""
        self._stopped = True
        loop = asyncio.get_running_loop()
        if self._retry is not None:
            self._retry.cancel()
            self._retry = None
        for listener in self._listeners:
            loop.remove_reader(listener.fileno())
            listener.close()
        self._listeners = []

    def descriptor_freed(self) -> None:
        """One of the server's connections is closing: while paused, try again now."""
        if self._paused_since is not None and not self._stopped:
            self._schedule_retry(0)

    def _accept_ready(self, listener: socket.socket) -> None:
        """The listening socket is readable: accept what is waiting, up to a batch."""
        for _ in range(ACCEPT_BATCH):
            try:
                sock, address = listener.accept()
            except (BlockingIOError, InterruptedError):
                # Nothing more waiting. After a pause, once something was accepted again,
                # the episode is over; a pause that recurs before this is the same one.
                if self._paused_since is not None and self._accepted_while_paused:
                    self._log_resumed()
                return
            except ConnectionAbortedError:
                continue  # the client gave up while it waited in the backlog
            except OSError as exc:
                if not has_waiting_connection(listener):
                    # Linux takes a descriptor before it looks at the backlog, so a process
                    # at its limit gets EMFILE even when nobody waits: the backlog is drained.
                    if self._paused_since is not None and self._accepted_while_paused:
                        self._log_resumed()
                    return
                # Out of descriptors (EMFILE, ENFILE) or kernel memory (ENOBUFS, ENOMEM):
                # Linux keeps reporting the socket readable, so stop watching it for a while.
                self._pause(exc)
                return
            if self._paused_since is not None:
                self._accepted_while_paused += 1
            self._admit(sock, address)

    def _pause(self, error: OSError) -> None:
        loop = asyncio.get_running_loop()
        for listener in self._listeners:
            loop.remove_reader(listener.fileno())
        self._failures += 1
        if self._paused_since is None:
            self._paused_since = loop.time()
            self._retry_delay = ACCEPT_RETRY_FIRST
            # Once per episode: a line per failed accept() is what flooded the log before.
            self._log(
                logging.ERROR,
                "accept_paused error=%s connections=%d open_files=%d: accepting "
                "again as descriptors free up",
                errno.errorcode.get(error.errno or 0, error.errno),
                self._connection_count(),
                open_file_limit(),
            )
        else:
            self._retry_delay = min(ACCEPT_RETRY_MAX, self._retry_delay * 2)
        self._schedule_retry(self._retry_delay)

    def _schedule_retry(self, delay: float) -> None:
        if self._retry is not None:
            self._retry.cancel()
        self._retry = asyncio.get_running_loop().call_later(delay, self._resume)

    def _resume(self) -> None:
        self._retry = None
        if self._stopped:
            return
        loop = asyncio.get_running_loop()
        for listener in self._listeners:
            # Level-triggered: connections already waiting make it readable at once.
            loop.add_reader(listener.fileno(), self._accept_ready, listener)

    def _log_resumed(self) -> None:
        assert self._paused_since is not None
        self._log(
            logging.WARNING,
            "accept_resumed seconds=%.1f failed_accepts=%d accepted_meanwhile=%d "
            "connections=%d",
            asyncio.get_running_loop().time() - self._paused_since,
            self._failures,
            self._accepted_while_paused,
            self._connection_count(),
        )
        self._paused_since = None
        self._failures = 0
        self._accepted_while_paused = 0
