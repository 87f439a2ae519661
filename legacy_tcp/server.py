"""The line gateways' asyncio server (:class:`LineServer`), and the ESPOL gateway on it.

:class:`LineServer` holds everything the gateways share (accepting, caps, line limits,
timeouts, drains, database threads, graceful stop); each protocol subclasses it with its
codec and handlers: :class:`EspolServer` here, the ``#`` protocol in
:mod:`legacy_tcp.distribuido`. What follows is said of ESPOL and holds for each.

The event loop only moves bytes: it splits the stream into lines, parses them (pure,
cheap), answers what needs no database, and hands every other command to a worker thread
through ``sync_to_async``. The service layer therefore runs where Django expects it: its
transactions commit in that thread, ``transaction.on_commit`` fires there, and the
publication's ``async_to_sync(group_send)`` is carried back to this event loop, so on the
in-memory channel layer a browser served by the same process sees a move made over TCP.

Database threads: ``thread_sensitive=False`` with a pool owned by the server
(``ESPOL_DB_THREADS``, default 8). Each thread keeps its own Django connection open
between commands, so the database sees at most that many connections however many
clients are connected; a connection an error left unusable is closed after the command
(as Django's ``close_old_connections`` would), and :meth:`EspolServer.stop` closes what
the threads still hold. The single shared thread-sensitive thread would serialise every
command of every client behind one another; here SQLite's IMMEDIATE transactions and
PostgreSQL's row locks order concurrent writers.

Hygiene: lines are capped at 4096 bytes (a longer one gets 802 and is skipped to its end,
the session goes on); each line must arrive within the idle timeout, and a connection must
log in within the login timeout; connections beyond the total cap or beyond the cap per
address get 402 and are closed; every write is followed by a bounded ``drain()`` so a
client that never reads is dropped instead of growing server memory; after wrong
passwords, checks on that user name from that address, and on that address, wait their
turn (:class:`LoginThrottle`), and password hashing runs on threads of its own
(``ESPOL_AUTH_THREADS``); logs never hold passwords, and what a client typed is quoted in
them (:func:`~legacy_tcp.protocols.espol.log_value`).

Descriptors: every connection holds one, and the process's open-file limit is shared with
the database and Redis connections, log files and, under ``manage.py serve``, the web.
The total cap is therefore never more than the limit less a headroom
(:func:`connection_cap`), the commands raise the soft limit at start as far as the hard
one allows (:func:`raise_open_file_limit`), and the server accepts connections itself:
when ``accept()`` fails for want of descriptors it stops accepting, retries with a growing
pause (and at once when one of its connections closes), and logs the episode once when it
begins and once when it ends (``asyncio.start_server`` logged a traceback for every
failed ``accept()``, and re-armed itself once for each).
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import resource
import select
import socket
import ssl
import threading
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import wait as wait_futures
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import connections

from accounts.throttling import client_address
from legacy_tcp import handlers
from legacy_tcp.protocols import espol
from legacy_tcp.protocols.espol import Code

logger = logging.getLogger("legacy_tcp.espol")

# Descriptors kept for everything but the gateway's connections: a quarter of the
# open-file limit, and never fewer than this.
FD_HEADROOM_MIN = 128
# Pauses between attempts to accept again after running out of descriptors.
ACCEPT_RETRY_FIRST = 0.05
ACCEPT_RETRY_MAX = 2.0
# Connections accepted in one go when the listening socket is readable.
ACCEPT_BATCH = 64
# At most one line a reason in this many seconds about refused connections.
REFUSAL_LOG_INTERVAL = 10.0
BACKLOG = 1024
# TLS connections being refused at once (each needs a handshake before its 402); beyond
# this, more are closed without a reply.
MAX_TLS_REFUSALS = 32
REFUSAL = espol.frames(Code.E_BUSY, "too many connections; try later")


def fd_headroom(open_files: int) -> int:
    """Descriptors the gateway leaves to the rest of the process under ``open_files``."""
    return max(FD_HEADROOM_MIN, open_files // 4)


def _has_waiting_connection(listener: socket.socket) -> bool:
    """Whether a connection waits in the listener's backlog (poll() needs no descriptor)."""
    poller = select.poll()
    poller.register(listener, select.POLLIN)
    return bool(poller.poll(0))


def open_file_limit() -> int:
    """This process's soft limit on open descriptors."""
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    return soft if soft != resource.RLIM_INFINITY else 2**31


def connection_cap(max_connections: int, open_files: int) -> int:
    """The connections the gateway may hold: ``max_connections``, but never more than
    the open-file limit ``open_files`` leaves after the headroom."""
    return max(0, min(max_connections, open_files - fd_headroom(open_files)))


def raise_open_file_limit(max_connections: int) -> tuple[int, int]:
    """Raise the soft open-file limit towards what ``max_connections`` and the headroom
    need, as far as the hard limit allows; return the soft limit before and after.

    Many systems start services with a soft limit of 1024 under a far higher hard one:
    the gateway's cap would then be 768 for no reason.
    """
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    # The smallest limit whose cap is max_connections: both headroom rules hold there.
    wanted = max(max_connections + FD_HEADROOM_MIN, -(-max_connections * 4 // 3))
    if hard != resource.RLIM_INFINITY:
        wanted = min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
        except (ValueError, OSError) as exc:
            logger.warning("espol.open_files_not_raised soft=%d wanted=%d error=%s",
                           soft, wanted, exc)
    return soft, open_file_limit()


def address_key(host: str) -> str:
    """What the per-address cap and the login throttle count by: the IPv4 address, or the
    IPv6 /64, as the web's login lock-out counts (:func:`accounts.throttling.client_address`)."""
    return client_address(host) or host


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

    Addresses are what :func:`address_key` makes of the peer (an IPv6 /64 counts as one
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
        now = time.monotonic()
        found = (self._live(key, now) for key in self._keys_of(username, address))
        states = [state for state in found if state is not None]
        if not states:
            return 0.0
        turn = max(now, *(state[2] for state in states))
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


class _Drop(Exception):
    """The connection must be closed at once (client not reading)."""


@dataclass(eq=False)
class _Connection:
    # The protocol's own state for this connection (LineServer.new_session).
    session: Any
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    # The client's address as the caps and the login throttle count it (address_key).
    address: str
    peer: str = "?"
    commands: int = 0
    # Held while a reply or a push is written, so that lines never interleave.
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    opened: float = field(default_factory=time.monotonic)
    # Loop time by which the session must be logged in; None while it is (or no limit).
    login_deadline: float | None = None


class _RefusalLog:
    """Logs refused connections without letting a flood of them flood the log: the first
    of a reason at once, then at most one line per ``interval`` with how many were
    refused meanwhile."""

    def __init__(
        self, log: Callable[..., None], interval: float = REFUSAL_LOG_INTERVAL
    ) -> None:
        self.log = log
        self.interval = interval
        self._last: dict[str, float] = {}
        self._unlogged: Counter[str] = Counter()

    def refused(self, reason: str, peer: str, connections: int, from_address: int) -> None:
        now = time.monotonic()
        if now - self._last.get(reason, -self.interval) < self.interval:
            self._unlogged[reason] += 1
            return
        self._last[reason] = now
        self.log(
            logging.WARNING,
            "refused peer=%s reason=%s connections=%d from_address=%d "
            "also_refused_since_last=%d",
            peer,
            reason,
            connections,
            from_address,
            self._unlogged.pop(reason, 0),
        )


def _release_broken_connections() -> None:
    """Close this thread's database connections that an error left unusable.

    Healthy connections stay open: the pool has a fixed number of threads, so the database
    sees at most that many connections, and reopening one per command (``CONN_MAX_AGE=0``)
    would cost more than the command (2 ms on SQLite with its PRAGMAs, more on PostgreSQL).
    """
    for conn in connections.all(initialized_only=True):
        if conn.connection is None or not conn.errors_occurred:
            continue
        if conn.is_usable():
            conn.errors_occurred = False
        else:
            conn.close()


def _run_releasing(function: Callable[..., Any], *args: Any) -> Any:
    """Run ``function`` in a worker thread, on the thread's own database connection."""
    try:
        return function(*args)
    finally:
        _release_broken_connections()


def _close_executor(executor: ThreadPoolExecutor, threads: int) -> None:
    """Close the database connection each worker thread holds, then end the threads."""
    barrier = threading.Barrier(threads)

    def close_own_connection() -> None:
        connections.close_all()
        # Waiting here keeps this thread busy, so each call lands on another thread.
        with contextlib.suppress(threading.BrokenBarrierError):
            barrier.wait(timeout=2.0)

    wait_futures([executor.submit(close_own_connection) for _ in range(threads)])
    executor.shutdown(wait=True)


class LineServer:
    """What every line gateway shares: accepting within the caps, one task per connection,
    lines split and capped, read and write timeouts, bounded drains, a pool of database
    threads, and a graceful stop. ``start()`` binds (``port=0`` picks a free port, kept in
    ``port``).

    A protocol subclasses it: :attr:`name` (its log lines start ``name.``), the refusal
    sent to connections over the caps, and the hooks :meth:`new_session`,
    :meth:`answer`, :meth:`overlong_reply`, :meth:`is_logged_in` and :meth:`closed`.
    :meth:`push` sends lines the client did not ask for (another door's move) between
    its replies, never inside one.

    ``max_connections`` is what is asked for; ``start()`` lowers it to what the open-file
    limit allows (:func:`connection_cap`).
    """

    name = "line"
    refusal = b""
    # The longest line a client may send, without its line end.
    max_line = 4096

    def __init__(
        self,
        host: str,
        port: int,
        *,
        idle_timeout: float,
        max_connections: int,
        ssl_context: ssl.SSLContext | None = None,
        write_timeout: float,
        write_buffer_limit: int,
        db_threads: int,
        max_per_address: int,
        login_timeout: float | None = None,
    ) -> None:
        self.host = host
        self.port = port
        self.log = logging.getLogger(f"legacy_tcp.{self.name}")
        self.idle_timeout = idle_timeout if idle_timeout and idle_timeout > 0 else None
        self.requested_max_connections = max_connections
        self.max_connections = max_connections
        self.ssl_context = ssl_context
        self.write_timeout = write_timeout
        self.write_buffer_limit = write_buffer_limit
        self.db_threads = db_threads
        self.max_per_address = max(0, max_per_address)
        self.login_timeout = login_timeout if login_timeout and login_timeout > 0 else None
        self._listeners: list[socket.socket] = []
        # Every connection's task, from its accept (TLS handshake, refusal) to its close.
        self._tasks: set[asyncio.Task] = set()
        # The connections admitted (counted from their accept), per address and in all.
        self._admitted = 0
        self._per_address: Counter[str] = Counter()
        self._connections: dict[asyncio.Task, _Connection] = {}
        self._refusals = _RefusalLog(self._log)
        # Refusals over TLS in progress (the refusal needs a handshake first).
        self._refusing = 0
        self._closing = False
        self._accept_paused_since: float | None = None
        self._accept_failures = 0
        self._accepted_while_paused = 0
        self._accept_retry_delay = ACCEPT_RETRY_FIRST
        self._accept_retry: asyncio.TimerHandle | None = None
        self._executors: list[tuple[ThreadPoolExecutor, int]] = []
        self._db_executor: ThreadPoolExecutor | None = None

    def _log(self, level: int, message: str, *args: object) -> None:
        self.log.log(level, f"{self.name}.{message}", *args)

    @property
    def connection_count(self) -> int:
        return len(self._connections)

    # ------------------------------------------------------------------ protocol hooks

    def new_session(self, peer: str) -> Any:
        """The per-connection state of the protocol for a client at ``peer``."""
        raise NotImplementedError

    async def answer(self, conn: _Connection, line: bytes) -> tuple[bytes, bool]:
        """The reply to one line (without its end cut), and whether to close after it."""
        raise NotImplementedError

    def overlong_reply(self, conn: _Connection) -> bytes:
        """The reply to a line longer than :attr:`max_line` (the session goes on)."""
        raise NotImplementedError

    def is_logged_in(self, conn: _Connection) -> bool:
        """Whether the connection is past its login deadline's reach."""
        return True

    def session_user(self, conn: _Connection) -> str | None:
        """Who the connection is, for the log (already quoted), or None."""
        return None

    async def closed(self, conn: _Connection) -> None:
        """The connection has closed (whatever the reason): forget or end what it held."""

    def _create_executors(self) -> None:
        """The worker threads the protocol runs its database work on."""
        self._db_executor = ThreadPoolExecutor(
            max_workers=self.db_threads, thread_name_prefix=f"{self.name}-db"
        )
        self._executors = [(self._db_executor, self.db_threads)]

    async def run_in_db(self, function: Callable[..., Any], *args: Any) -> Any:
        """``function(*args)`` on a database thread, whose broken connection, if the call
        left one, is closed after it."""
        return await sync_to_async(
            _run_releasing, thread_sensitive=False, executor=self._db_executor
        )(function, *args)

    async def push(self, conn: _Connection, data: bytes) -> None:
        """Send ``data`` unasked (between replies); a client that does not read it in
        time is dropped."""
        try:
            async with conn.lock:
                await self._send(conn, data)
        except (_Drop, ConnectionError, OSError):
            conn.writer.transport.abort()

    # ------------------------------------------------------------------ start and stop

    async def start(self) -> None:
        open_files = open_file_limit()
        self.max_connections = connection_cap(self.requested_max_connections, open_files)
        if self.max_connections < 1:
            raise OSError(
                errno.EMFILE,
                f"the open-file limit ({open_files}) leaves no descriptors for "
                f"{self.name} connections after the {fd_headroom(open_files)} kept for the rest",
            )
        self._create_executors()
        self._listeners = await self._listen()
        self.port = self._listeners[0].getsockname()[1]
        loop = asyncio.get_running_loop()
        for listener in self._listeners:
            loop.add_reader(listener.fileno(), self._accept_ready, listener)
        self._log(
            logging.INFO,
            "listen host=%s port=%d tls=%s max_connections=%d requested=%d "
            "open_files=%d max_per_address=%d login_timeout=%s idle_timeout=%s",
            self.host,
            self.port,
            self.ssl_context is not None,
            self.max_connections,
            self.requested_max_connections,
            open_files,
            self.max_per_address,
            self.login_timeout,
            self.idle_timeout,
        )

    async def _listen(self) -> list[socket.socket]:
        """Bound, listening, non-blocking sockets for ``host``:``port``, as
        ``asyncio.start_server`` would make them (one per address the host resolves to)."""
        loop = asyncio.get_running_loop()
        infos = await loop.getaddrinfo(
            self.host or None, self.port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
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

    def _stop_accepting(self) -> None:
        loop = asyncio.get_running_loop()
        if self._accept_retry is not None:
            self._accept_retry.cancel()
            self._accept_retry = None
        for listener in self._listeners:
            loop.remove_reader(listener.fileno())
            listener.close()
        self._listeners = []

    async def stop(self, grace: float = 10.0) -> None:
        """Stop accepting, let commands in flight finish (up to ``grace`` s), close all."""
        if not self._listeners:
            return
        self._closing = True
        self._stop_accepting()
        for conn in self._connections.values():
            # Read nothing more, and end each wait for a line: a connection waiting for one
            # closes, while a line that has already arrived (its task not yet resumed) is
            # still answered. Cancelling the task instead would drop that line unanswered.
            # A stream's transport reads too (the stubs type it as write-only).
            conn.writer.transport.pause_reading()  # type: ignore[attr-defined]
            conn.reader.feed_eof()
        # Connections still in their TLS handshake or being refused have nothing to finish.
        for task in self._tasks - self._connections.keys():
            task.cancel()
        pending = list(self._tasks)
        if pending:
            _done, late = await asyncio.wait(pending, timeout=grace)
            for task in late:
                task.cancel()
            if late:
                await asyncio.wait(late, timeout=1.0)
        loop = asyncio.get_running_loop()
        for executor, threads in self._executors:
            await loop.run_in_executor(None, _close_executor, executor, threads)
        self._executors = []
        self._log(logging.INFO, "stopped port=%d", self.port)

    # ------------------------------------------------------------------ accepting

    def _accept_ready(self, listener: socket.socket) -> None:
        """The listening socket is readable: accept what is waiting, up to a batch."""
        for _ in range(ACCEPT_BATCH):
            try:
                sock, address = listener.accept()
            except (BlockingIOError, InterruptedError):
                # Nothing more waiting. After a pause, once something was accepted again,
                # the episode is over; a pause that recurs before this is the same one.
                if self._accept_paused_since is not None and self._accepted_while_paused:
                    self._log_accept_resumed()
                return
            except ConnectionAbortedError:
                continue  # the client gave up while it waited in the backlog
            except OSError as exc:
                if not _has_waiting_connection(listener):
                    # Linux takes a descriptor before it looks at the backlog, so a process
                    # at its limit gets EMFILE even when nobody waits: the backlog is drained.
                    if self._accept_paused_since is not None and self._accepted_while_paused:
                        self._log_accept_resumed()
                    return
                # Out of descriptors (EMFILE, ENFILE) or kernel memory (ENOBUFS, ENOMEM):
                # Linux keeps reporting the socket readable, so stop watching it for a while.
                self._pause_accepting(exc)
                return
            if self._accept_paused_since is not None:
                self._accepted_while_paused += 1
            self._admit(sock, address)

    def _pause_accepting(self, error: OSError) -> None:
        loop = asyncio.get_running_loop()
        for listener in self._listeners:
            loop.remove_reader(listener.fileno())
        self._accept_failures += 1
        if self._accept_paused_since is None:
            self._accept_paused_since = loop.time()
            self._accept_retry_delay = ACCEPT_RETRY_FIRST
            # Once per episode: a line per failed accept() is what flooded the log before.
            self._log(
                logging.ERROR,
                "accept_paused error=%s connections=%d open_files=%d: accepting "
                "again as descriptors free up",
                errno.errorcode.get(error.errno or 0, error.errno),
                len(self._connections),
                open_file_limit(),
            )
        else:
            self._accept_retry_delay = min(ACCEPT_RETRY_MAX, self._accept_retry_delay * 2)
        self._schedule_accept_retry(self._accept_retry_delay)

    def _schedule_accept_retry(self, delay: float) -> None:
        if self._accept_retry is not None:
            self._accept_retry.cancel()
        loop = asyncio.get_running_loop()
        self._accept_retry = loop.call_later(delay, self._retry_accepting)

    def _retry_accepting(self) -> None:
        self._accept_retry = None
        if self._closing:
            return
        loop = asyncio.get_running_loop()
        for listener in self._listeners:
            # Level-triggered: connections already waiting make it readable at once.
            loop.add_reader(listener.fileno(), self._accept_ready, listener)

    def _log_accept_resumed(self) -> None:
        assert self._accept_paused_since is not None
        self._log(
            logging.WARNING,
            "accept_resumed seconds=%.1f failed_accepts=%d accepted_meanwhile=%d "
            "connections=%d",
            asyncio.get_running_loop().time() - self._accept_paused_since,
            self._accept_failures,
            self._accepted_while_paused,
            len(self._connections),
        )
        self._accept_paused_since = None
        self._accept_failures = 0
        self._accepted_while_paused = 0

    def _admit(self, sock: socket.socket, address: tuple) -> None:
        """Take an accepted socket: count it against the caps, or mark it for refusal."""
        sock.setblocking(False)
        host = str(address[0]) if address else "?"
        peer = f"{host}:{address[1]}" if address else "?"
        key = address_key(host)
        refusal = None
        if self._closing:
            refusal = "shutdown"
        elif self._admitted >= self.max_connections:
            refusal = "busy"
        elif self.max_per_address and self._per_address[key] >= self.max_per_address:
            refusal = "address"
        if refusal is None:
            self._admitted += 1
            self._per_address[key] += 1
        else:
            self._refusals.refused(refusal, peer, self._admitted, self._per_address[key])
            if self.ssl_context is None:
                # Answered and closed here and now: a flood of refused connections must
                # not hold descriptors (the 402 frame fits any empty send buffer).
                with contextlib.suppress(OSError):
                    sock.send(self.refusal)
                sock.close()
                return
            if self._refusing >= MAX_TLS_REFUSALS:
                sock.close()  # too many TLS handshakes to refuse already: no reply
                return
            self._refusing += 1
        task = asyncio.get_running_loop().create_task(self._handle(sock, peer, key, refusal))
        # The loop keeps only weak references to its tasks.
        self._tasks.add(task)

    async def _handle(
        self, sock: socket.socket, peer: str, key: str, refusal: str | None
    ) -> None:
        loop = asyncio.get_running_loop()
        try:
            # A line of max_line bytes plus CR LF still fits; a codec refuses anything
            # longer that slipped through.
            reader = asyncio.StreamReader(limit=self.max_line + 2)
            protocol = asyncio.StreamReaderProtocol(reader)
            try:
                transport, _ = await loop.connect_accepted_socket(
                    lambda: protocol,
                    sock,
                    ssl=self.ssl_context,
                    # A TLS handshake is part of logging in: it gets no longer.
                    ssl_handshake_timeout=(
                        (self.login_timeout or 60.0) if self.ssl_context else None
                    ),
                )
            except (OSError, TimeoutError, ssl.SSLError):
                sock.close()
                self._log(logging.INFO, "handshake_failed peer=%s", peer)
                return
            writer = asyncio.StreamWriter(transport, protocol, reader, loop)
            if refusal is not None:
                await self._refuse(writer)
                return
            await self._serve_client(reader, writer, peer, key)
        finally:
            task = asyncio.current_task()
            if task is not None:
                self._tasks.discard(task)
            if refusal is not None:
                self._refusing -= 1
            else:
                self._admitted -= 1
                self._per_address[key] -= 1
                if self._per_address[key] <= 0:
                    del self._per_address[key]
                if self._accept_paused_since is not None and not self._closing:
                    # A descriptor is about to be free: try to accept again now.
                    self._schedule_accept_retry(0)

    # ------------------------------------------------------------------ one connection

    async def _serve_client(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        peer: str,
        address: str,
    ) -> None:
        task = asyncio.current_task()
        assert task is not None
        conn = _Connection(self.new_session(peer), reader, writer, address, peer=peer)
        if self.login_timeout is not None:
            conn.login_deadline = asyncio.get_running_loop().time() + self.login_timeout
        self._connections[task] = conn
        writer.transport.set_write_buffer_limits(high=self.write_buffer_limit)
        self._log(logging.INFO, "connect peer=%s connections=%d", peer, len(self._connections))
        reason = "eof"
        try:
            reason = await self._session_loop(reader, conn)
        except _Drop as exc:
            reason = str(exc)
        except (ConnectionError, OSError):
            reason = "reset"
        except asyncio.CancelledError:
            reason = "shutdown"
        finally:
            del self._connections[task]
            if reason in ("reset", "not reading"):
                writer.transport.abort()
            else:
                writer.close()
            with contextlib.suppress(Exception):
                await self.closed(conn)
            self._log(logging.INFO, "disconnect peer=%s user=%s reason=%s commands=%d seconds=%.1f",
                peer,
                self.session_user(conn),
                reason,
                conn.commands,
                time.monotonic() - conn.opened,
            )

    async def _refuse(self, writer: asyncio.StreamWriter) -> None:
        writer.write(self.refusal)
        try:
            async with asyncio.timeout(1.0):
                await writer.drain()
        except (TimeoutError, ConnectionError, OSError):
            pass
        writer.close()

    def _read_deadline(self, conn: _Connection) -> float | None:
        """Loop time by which the next line must have arrived: within the idle timeout,
        and, while the session is not logged in, by its login deadline."""
        deadlines = []
        if self.idle_timeout is not None:
            deadlines.append(asyncio.get_running_loop().time() + self.idle_timeout)
        if not self.is_logged_in(conn) and conn.login_deadline is not None:
            deadlines.append(conn.login_deadline)
        return min(deadlines, default=None)

    def _timed_out(self, conn: _Connection) -> str:
        """Why a read timed out: the login deadline passed, or the client went idle."""
        if (
            not self.is_logged_in(conn)
            and conn.login_deadline is not None
            and asyncio.get_running_loop().time() >= conn.login_deadline
        ):
            return "login_timeout"
        return "idle"

    async def _session_loop(self, reader: asyncio.StreamReader, conn: _Connection) -> str:
        while not self._closing:
            try:
                async with asyncio.timeout_at(self._read_deadline(conn)):
                    line = await reader.readuntil(b"\n")
            except asyncio.LimitOverrunError as exc:
                ended = await self._skip_rest_of_line(reader, conn, exc.consumed)
                if ended is not None:
                    return ended
                async with conn.lock:
                    await self._send(conn, self.overlong_reply(conn))
                continue
            except asyncio.IncompleteReadError:
                # A half-sent last line is dropped with the connection.
                return "shutdown" if self._closing else "eof"
            except TimeoutError:
                return self._timed_out(conn)
            async with conn.lock:
                data, close = await self.answer(conn, line)
                await self._send(conn, data)
            if close:
                return "quit"
            if self.is_logged_in(conn):
                conn.login_deadline = None
            elif conn.login_deadline is None and self.login_timeout is not None:
                # Logged out (USER again, UNSU, account closed): a new login window.
                conn.login_deadline = asyncio.get_running_loop().time() + self.login_timeout
        return "shutdown"

    async def _skip_rest_of_line(
        self, reader: asyncio.StreamReader, conn: _Connection, consumed: int
    ) -> str | None:
        """Discard an overlong line up to and including its end, holding ≤ max_line + 2 bytes.

        Returns None once the line has ended, or the reason to close the connection when
        the client closed (``"eof"``) or went quiet (``"idle"``, or ``"login_timeout"``)
        before the line ended: the same outcomes as for a line of normal length, which
        the session loop reports.
        """
        while True:
            # The LimitOverrunError left these bytes in the buffer: this does not wait.
            await reader.readexactly(consumed)
            try:
                async with asyncio.timeout_at(self._read_deadline(conn)):
                    await reader.readuntil(b"\n")
                return None
            except asyncio.LimitOverrunError as again:
                consumed = again.consumed
            except asyncio.IncompleteReadError:
                return "eof"
            except TimeoutError:
                return self._timed_out(conn)

    async def _send(self, conn: _Connection, data: bytes) -> None:
        if not data:
            return
        conn.writer.write(data)
        try:
            async with asyncio.timeout(self.write_timeout):
                await conn.writer.drain()
        except TimeoutError:
            raise _Drop("not reading") from None


class EspolServer(LineServer):
    """The ESPOL gateway (seed 000): its codec and handlers on the shared machinery, with
    a login deadline, and password checks throttled and run on threads of their own."""

    name = "espol"
    refusal = REFUSAL
    max_line = espol.MAX_LINE

    def __init__(
        self,
        host: str,
        port: int,
        *,
        idle_timeout: float,
        max_connections: int,
        ssl_context: ssl.SSLContext | None = None,
    ) -> None:
        super().__init__(
            host,
            port,
            idle_timeout=idle_timeout,
            max_connections=max_connections,
            ssl_context=ssl_context,
            write_timeout=settings.ESPOL_WRITE_TIMEOUT,
            write_buffer_limit=settings.ESPOL_WRITE_BUFFER,
            db_threads=settings.ESPOL_DB_THREADS,
            max_per_address=settings.ESPOL_MAX_PER_ADDRESS,
            login_timeout=settings.ESPOL_LOGIN_TIMEOUT,
        )
        self.auth_threads = settings.ESPOL_AUTH_THREADS
        self.throttle = LoginThrottle(
            base=settings.ESPOL_LOGIN_DELAY, cap=settings.ESPOL_LOGIN_DELAY_MAX
        )

    def _create_executors(self) -> None:
        super()._create_executors()
        # Hashing a password (Argon2, about a third of a second of CPU) gets threads of
        # its own: on the command threads a burst of logins would hold every one of them
        # and stall the moves and lists of clients already logged in.
        self._hashing = ThreadPoolExecutor(
            max_workers=self.auth_threads, thread_name_prefix="espol-auth"
        )
        self._executors.append((self._hashing, self.auth_threads))

    async def _execute(self, session: handlers.Session, command: espol.Command) -> handlers.Reply:
        return await self.run_in_db(handlers.execute, session, command)

    async def _execute_hashing(
        self, session: handlers.Session, command: espol.Command
    ) -> handlers.Reply:
        return await sync_to_async(
            _run_releasing, thread_sensitive=False, executor=self._hashing
        )(handlers.execute, session, command)

    def new_session(self, peer: str) -> handlers.Session:
        return handlers.Session(peer=peer)

    def is_logged_in(self, conn: _Connection) -> bool:
        return conn.session.user is not None

    def session_user(self, conn: _Connection) -> str | None:
        return espol.log_value(conn.session.username)

    def overlong_reply(self, conn: _Connection) -> bytes:
        self._log(logging.INFO, "command peer=%s command=<overlong> code=802", conn.peer)
        return espol.frames(Code.F_PARAM, "line too long")

    async def answer(self, conn: _Connection, line: bytes) -> tuple[bytes, bool]:
        reply = await self._answer(conn, line)
        return reply.encode(), reply.close

    async def _wait_turn_to_check_password(
        self, conn: _Connection, command: espol.Pass | espol.Subs | espol.Unsu
    ) -> None:
        """Hold a password check back while its user name from this address, or this
        address, is throttled."""
        if isinstance(command, espol.Pass):
            name = conn.session.pending_username
        elif isinstance(command, espol.Unsu):
            name = conn.session.username
        else:
            return  # SUBS sets a password; it checks none
        if name is None:
            return
        wait = self.throttle.reserve(name, conn.address)
        if wait > 0:
            await asyncio.sleep(wait)

    async def _answer(self, conn: _Connection, line: bytes) -> handlers.Reply:
        started = time.perf_counter()
        session = conn.session
        command = espol.parse_line(line)
        reply = handlers.immediate_reply(session, command)
        if reply is None:
            assert isinstance(command, espol.Command)
            if isinstance(command, espol.Pass | espol.Subs | espol.Unsu):
                await self._wait_turn_to_check_password(conn, command)
                reply = await self._execute_hashing(session, command)
            else:
                reply = await self._execute(session, command)
        if reply.failed_login_for is not None:
            failures = self.throttle.failed(reply.failed_login_for, conn.address)
            self._log(
                logging.WARNING,
                "login_failed peer=%s user=%s failures=%d address_failures=%d "
                "session_failures=%d next_check_in=%.2f",
                session.peer,
                espol.log_value(reply.failed_login_for),
                failures.for_name,
                failures.for_address,
                session.failed_passwords,
                failures.next_check_in,
            )
        elif reply.code == Code.S_PASSWD and session.username is not None:
            self.throttle.succeeded(session.username, conn.address)
        conn.commands += 1
        self._log(logging.INFO, "command peer=%s user=%s command=%s code=%s ms=%.1f",
            session.peer,
            espol.log_value(session.username),
            espol.log_value(command.loggable()),
            reply.code,
            (time.perf_counter() - started) * 1000,
        )
        return reply
