"""The shared asyncio line server of the TCP gateways (:class:`LineServer`).

It holds everything the gateways share: accepting within the caps (in all and per
address), one task per connection, lines split and capped, a deadline for the first
line and for logging in, idle and write timeouts, bounded drains, a pool of database
threads (:mod:`legacy_tcp.transport.threads`), and a graceful stop. Each protocol
subclasses it with its codec and handlers: ESPOL in :mod:`legacy_tcp.espol.server`, the
``#`` protocol in :mod:`legacy_tcp.distribuido.server`, chessirc in
:mod:`legacy_tcp.chessirc.server`.

The event loop only moves bytes: it splits the stream into lines, parses them (pure,
cheap), answers what needs no database, and hands every other command to a worker thread
through ``sync_to_async``. The service layer therefore runs where Django expects it: its
transactions commit in that thread, ``transaction.on_commit`` fires there, and the
publication's ``async_to_sync(group_send)`` is carried back to this event loop, so on the
in-memory channel layer a browser served by the same process sees a move made over TCP.
The single shared thread-sensitive thread would serialise every command of every client
behind one another; here SQLite's IMMEDIATE transactions and PostgreSQL's row locks order
concurrent writers.

Hygiene: lines are capped (a longer one gets the protocol's "too long" reply and is
skipped to its end, the session goes on); the first line must arrive within the
first-line timeout, a connection must log in (or send its secret) within the login
timeout, and each line must arrive within the idle timeout; connections beyond the total
cap or beyond the cap per address get the protocol's "busy" reply and are closed, a
flood of them is logged once per interval (:class:`~legacy_tcp.transport.refusals.RefusalLog`),
and an address refused again and again is dropped on accept for a while
(:mod:`~legacy_tcp.transport.backoff`); every write is followed by a bounded
``drain()`` so a client that never reads is dropped instead of growing server memory.

Descriptors (:mod:`legacy_tcp.transport.limits`): the total cap is never more than the
open-file limit less a headroom, and the server accepts connections itself, pausing
through descriptor shortages (:mod:`legacy_tcp.transport.accepting`).
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import socket
import ssl
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from asgiref.sync import sync_to_async

from legacy_tcp.transport.accepting import Acceptor
from legacy_tcp.transport.backoff import AcceptBackoff, Pen
from legacy_tcp.transport.connection import Connection
from legacy_tcp.transport.limits import address_key, connection_cap, fd_headroom, open_file_limit
from legacy_tcp.transport.refusals import RefusalLog
from legacy_tcp.transport.threads import close_executor, run_releasing

# TLS connections being refused at once (each needs a handshake before its refusal);
# beyond this, more are closed without a reply.
MAX_TLS_REFUSALS = 32
# Dropped connections held a moment before their reset (legacy_tcp.transport.backoff).
PEN_SIZE = 32


class _Drop(Exception):
    """The connection must be closed at once (client not reading)."""


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
        first_line_timeout: float | None = None,
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
        # A connection that says nothing is dropped soon, logged in or not: idle
        # connections that never speak are how a flood holds the caps.
        self.first_line_timeout = (
            first_line_timeout if first_line_timeout and first_line_timeout > 0 else None
        )
        # Every connection's task, from its accept (TLS handshake, refusal) to its close.
        self._tasks: set[asyncio.Task] = set()
        # The connections admitted (counted from their accept), per address and in all.
        self._admitted = 0
        self._per_address: Counter[str] = Counter()
        self._connections: dict[asyncio.Task, Connection] = {}
        self._refusals = RefusalLog(self._log)
        # Addresses whose connections are dropped on accept for a while.
        self.accept_backoff = AcceptBackoff(log=self._log)
        self.pen = Pen(size=0)  # sized at start()
        # Refusals over TLS in progress (the refusal needs a handshake first).
        self._refusing = 0
        self._closing = False
        self._acceptor = Acceptor(
            admit=self._admit, log=self._log, connection_count=lambda: len(self._connections)
        )
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

    async def answer(self, conn: Connection, line: bytes) -> tuple[bytes, bool]:
        """The reply to one line (without its end cut), and whether to close after it."""
        raise NotImplementedError

    def overlong_reply(self, conn: Connection) -> bytes:
        """The reply to a line longer than :attr:`max_line` (the session goes on)."""
        raise NotImplementedError

    def is_logged_in(self, conn: Connection) -> bool:
        """Whether the connection is past its login deadline's reach."""
        return True

    def session_user(self, conn: Connection) -> str | None:
        """Who the connection is, for the log (already quoted), or None."""
        return None

    async def closed(self, conn: Connection) -> None:
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
            run_releasing, thread_sensitive=False, executor=self._db_executor
        )(function, *args)

    async def push(self, conn: Connection, data: bytes) -> None:
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
        # A quarter of the headroom at most: the rest is the database's, the web's.
        self.pen.size = min(PEN_SIZE, fd_headroom(open_files) // 4)
        self._create_executors()
        self.port = await self._acceptor.listen(self.host, self.port)
        self._log(
            logging.INFO,
            "listen host=%s port=%d tls=%s max_connections=%d requested=%d "
            "open_files=%d max_per_address=%d first_line_timeout=%s login_timeout=%s "
            "idle_timeout=%s",
            self.host,
            self.port,
            self.ssl_context is not None,
            self.max_connections,
            self.requested_max_connections,
            open_files,
            self.max_per_address,
            self.first_line_timeout,
            self.login_timeout,
            self.idle_timeout,
        )

    async def stop(self, grace: float = 10.0) -> None:
        """Stop accepting, let commands in flight finish (up to ``grace`` s), close all."""
        if not self._acceptor.listening:
            return
        self._closing = True
        self._acceptor.stop()
        self.pen.close()
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
            await loop.run_in_executor(None, close_executor, executor, threads)
        self._executors = []
        self._log(logging.INFO, "stopped port=%d", self.port)

    def _admit(self, sock: socket.socket, address: tuple) -> None:
        """Take an accepted socket: count it against the caps, or mark it for refusal."""
        host = str(address[0]) if address else "?"
        key = address_key(host)
        now = time.monotonic()
        at_cap = bool(self.max_per_address) and self._per_address[key] >= self.max_per_address
        if at_cap and self.accept_backoff.holding(key, now):
            # Before anything else is spent on it: one more of a reconnect storm from an
            # address refused again and again (legacy_tcp.transport.backoff). Below its
            # cap (a place freed) the address is served as ever.
            self.pen.hold(sock)
            return
        sock.setblocking(False)
        peer = f"{host}:{address[1]}" if address else "?"
        refusal = None
        if self._closing:
            refusal = "shutdown"
        elif self._admitted >= self.max_connections:
            refusal = "busy"
        elif at_cap:
            refusal = "address"
        if refusal is None:
            self._admitted += 1
            self._per_address[key] += 1
        else:
            self._refusals.refused(refusal, peer, self._admitted, self._per_address[key])
            if refusal == "address":  # at its own cap: a storm is that address's doing
                self.accept_backoff.refused(key, now)
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
                if not self._closing:
                    # A descriptor is about to be free: if accepting is paused, retry now.
                    self._acceptor.descriptor_freed()

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
        conn = Connection(self.new_session(peer), reader, writer, address, peer=peer)
        now = asyncio.get_running_loop().time()
        if self.login_timeout is not None:
            conn.login_deadline = now + self.login_timeout
        if self.first_line_timeout is not None:
            conn.first_line_deadline = now + self.first_line_timeout
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

    def _read_deadline(self, conn: Connection) -> float | None:
        """Loop time by which the next line must have arrived: within the idle timeout,
        the first line by its deadline, and, while the session is not logged in, by its
        login deadline."""
        deadlines = []
        if self.idle_timeout is not None:
            deadlines.append(asyncio.get_running_loop().time() + self.idle_timeout)
        if conn.first_line_deadline is not None:
            deadlines.append(conn.first_line_deadline)
        if not self.is_logged_in(conn) and conn.login_deadline is not None:
            deadlines.append(conn.login_deadline)
        return min(deadlines, default=None)

    def _timed_out(self, conn: Connection) -> str:
        """Why a read timed out: the first line's or the login's deadline passed, or the
        client went idle."""
        now = asyncio.get_running_loop().time()
        if conn.first_line_deadline is not None and now >= conn.first_line_deadline:
            return "first_line_timeout"
        if (
            not self.is_logged_in(conn)
            and conn.login_deadline is not None
            and asyncio.get_running_loop().time() >= conn.login_deadline
        ):
            return "login_timeout"
        return "idle"

    async def _session_loop(self, reader: asyncio.StreamReader, conn: Connection) -> str:
        while not self._closing:
            try:
                async with asyncio.timeout_at(self._read_deadline(conn)):
                    line = await reader.readuntil(b"\n")
            except asyncio.LimitOverrunError as exc:
                ended = await self._skip_rest_of_line(reader, conn, exc.consumed)
                if ended is not None:
                    return ended
                conn.first_line_deadline = None
                async with conn.lock:
                    await self._send(conn, self.overlong_reply(conn))
                continue
            except asyncio.IncompleteReadError:
                # A half-sent last line is dropped with the connection.
                return "shutdown" if self._closing else "eof"
            except TimeoutError:
                return self._timed_out(conn)
            conn.first_line_deadline = None
            async with conn.lock:
                data, close = await self.answer(conn, line)
                await self._send(conn, data)
            if close:
                return "quit"
            # One line per turn of the loop. A line already buffered is read, a reply the
            # socket takes is written and a reply needing no database is made without
            # yielding, so a client that pipelines thousands of lines (and whose replies
            # the kernel still buffers) would otherwise hold the loop for seconds, and
            # every other client with it, before its writes back up and it is dropped.
            await asyncio.sleep(0)
            if self.is_logged_in(conn):
                conn.login_deadline = None
            elif conn.login_deadline is None and self.login_timeout is not None:
                # Logged out (USER again, UNSU, account closed): a new login window.
                conn.login_deadline = asyncio.get_running_loop().time() + self.login_timeout
        return "shutdown"

    async def _skip_rest_of_line(
        self, reader: asyncio.StreamReader, conn: Connection, consumed: int
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

    async def _send(self, conn: Connection, data: bytes) -> None:
        if not data:
            return
        conn.writer.write(data)
        try:
            async with asyncio.timeout(self.write_timeout):
                await conn.writer.drain()
        except TimeoutError:
            raise _Drop("not reading") from None
