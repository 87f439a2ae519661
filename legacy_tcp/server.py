"""The ESPOL TCP gateway: an asyncio server in front of the ESPOL codec and handlers.

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
the session goes on); each line must arrive within the idle timeout; connections beyond
the cap get 402 and are closed; every write is followed by a bounded ``drain()`` so a
client that never reads is dropped instead of growing server memory; wrong passwords are
answered later and later, per connection and per user name; logs never hold passwords,
and what a client typed is quoted in them (:func:`~legacy_tcp.protocols.espol.log_value`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import ssl
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import wait as wait_futures
from dataclasses import dataclass, field

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import connections

from legacy_tcp import handlers
from legacy_tcp.protocols import espol
from legacy_tcp.protocols.espol import Code

logger = logging.getLogger("legacy_tcp.espol")

# The StreamReader's limit: a line of MAX_LINE bytes plus CR LF still fits; the codec
# refuses anything longer that slipped through.
READ_LIMIT = espol.MAX_LINE + 2


class LoginThrottle:
    """Delays the answer to a wrong password: longer after each failure.

    Counted per connection (the session's own failures) and per user name across all
    connections, so opening many connections does not buy more guesses. A name's count is
    forgotten after ``window`` seconds without failures, or on a successful login.
    """

    def __init__(self, *, base: float, cap: float, window: float = 900.0) -> None:
        self.base = base
        self.cap = cap
        self.window = window
        self._failures: dict[str, tuple[int, float]] = {}

    def failed(self, username: str, session_failures: int) -> float:
        """Record a failure; return how long to wait before answering it."""
        now = time.monotonic()
        count, last = self._failures.get(username, (0, now))
        if now - last > self.window:
            count = 0
        self._failures[username] = (count + 1, now)
        if len(self._failures) > 10_000:
            self._forget_old(now)
        failures = max(count + 1, session_failures)
        return 0.0 if failures <= 1 else min(self.cap, self.base * 2 ** (failures - 2))

    def succeeded(self, username: str) -> None:
        self._failures.pop(username, None)

    def _forget_old(self, now: float) -> None:
        for name, (_count, last) in list(self._failures.items()):
            if now - last > self.window:
                del self._failures[name]


class _Drop(Exception):
    """The connection must be closed at once (client not reading)."""


@dataclass(eq=False)
class _Connection:
    session: handlers.Session
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    commands: int = 0
    opened: float = field(default_factory=time.monotonic)


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


def _execute(session: handlers.Session, command: espol.Command) -> handlers.Reply:
    """Run one command in a worker thread, on the thread's own database connection."""
    try:
        return handlers.execute(session, command)
    finally:
        _release_broken_connections()


class EspolServer:
    """The ESPOL gateway. ``start()`` binds (``port=0`` picks a free port, kept in ``port``)."""

    def __init__(
        self,
        host: str,
        port: int,
        *,
        idle_timeout: float,
        max_connections: int,
        ssl_context: ssl.SSLContext | None = None,
    ) -> None:
        self.host = host
        self.port = port
        self.idle_timeout = idle_timeout if idle_timeout and idle_timeout > 0 else None
        self.max_connections = max_connections
        self.ssl_context = ssl_context
        self.write_timeout = settings.ESPOL_WRITE_TIMEOUT
        self.write_buffer_limit = settings.ESPOL_WRITE_BUFFER
        self.db_threads = settings.ESPOL_DB_THREADS
        self.throttle = LoginThrottle(
            base=settings.ESPOL_LOGIN_DELAY, cap=settings.ESPOL_LOGIN_DELAY_MAX
        )
        self._server: asyncio.Server | None = None
        self._connections: dict[asyncio.Task, _Connection] = {}
        self._closing = False
        self._executor: ThreadPoolExecutor | None = None
        self._execute = None

    @property
    def connection_count(self) -> int:
        return len(self._connections)

    async def start(self) -> None:
        self._executor = ThreadPoolExecutor(
            max_workers=self.db_threads, thread_name_prefix="espol-db"
        )
        self._execute = sync_to_async(_execute, thread_sensitive=False, executor=self._executor)
        self._server = await asyncio.start_server(
            self._serve_client,
            self.host,
            self.port,
            limit=READ_LIMIT,
            ssl=self.ssl_context,
            backlog=1024,
        )
        self.port = self._server.sockets[0].getsockname()[1]
        logger.info(
            "espol.listen host=%s port=%d tls=%s max_connections=%d idle_timeout=%s",
            self.host,
            self.port,
            self.ssl_context is not None,
            self.max_connections,
            self.idle_timeout,
        )

    async def stop(self, grace: float = 10.0) -> None:
        """Stop accepting, let commands in flight finish (up to ``grace`` s), close all."""
        if self._server is None:
            return
        self._closing = True
        self._server.close()
        for conn in self._connections.values():
            # Read nothing more, and end each wait for a line: a connection waiting for one
            # closes, while a line that has already arrived (its task not yet resumed) is
            # still answered. Cancelling the task instead would drop that line unanswered.
            conn.writer.transport.pause_reading()
            conn.reader.feed_eof()
        pending = list(self._connections)
        if pending:
            _done, late = await asyncio.wait(pending, timeout=grace)
            for task in late:
                task.cancel()
            if late:
                await asyncio.wait(late, timeout=1.0)
        await self._server.wait_closed()
        self._server = None
        if self._executor is not None:
            await asyncio.get_running_loop().run_in_executor(None, self._close_executor)
        logger.info("espol.stopped port=%d", self.port)

    def _close_executor(self) -> None:
        """Close the connection each worker thread holds, then end the threads."""
        assert self._executor is not None
        barrier = threading.Barrier(self.db_threads)

        def close_own_connection() -> None:
            connections.close_all()
            # Waiting here keeps this thread busy, so each call lands on another thread.
            with contextlib.suppress(threading.BrokenBarrierError):
                barrier.wait(timeout=2.0)

        wait_futures([self._executor.submit(close_own_connection) for _ in range(self.db_threads)])
        self._executor.shutdown(wait=True)
        self._executor = None

    # ------------------------------------------------------------------ one connection

    async def _serve_client(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        peername = writer.get_extra_info("peername")
        peer = f"{peername[0]}:{peername[1]}" if peername else "?"
        if self._closing or len(self._connections) >= self.max_connections:
            logger.warning(
                "espol.refused peer=%s reason=busy connections=%d", peer, len(self._connections)
            )
            await self._refuse(writer)
            return
        task = asyncio.current_task()
        assert task is not None
        conn = _Connection(handlers.Session(peer=peer), reader, writer)
        self._connections[task] = conn
        writer.transport.set_write_buffer_limits(high=self.write_buffer_limit)
        logger.info("espol.connect peer=%s connections=%d", peer, len(self._connections))
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
            logger.info(
                "espol.disconnect peer=%s user=%s reason=%s commands=%d seconds=%.1f",
                peer,
                espol.log_value(conn.session.username),
                reason,
                conn.commands,
                time.monotonic() - conn.opened,
            )

    async def _refuse(self, writer: asyncio.StreamWriter) -> None:
        writer.write(espol.frames(Code.E_BUSY, "too many connections; try later"))
        try:
            async with asyncio.timeout(1.0):
                await writer.drain()
        except (TimeoutError, ConnectionError, OSError):
            pass
        writer.close()

    async def _session_loop(self, reader: asyncio.StreamReader, conn: _Connection) -> str:
        while not self._closing:
            try:
                async with asyncio.timeout(self.idle_timeout):
                    line = await reader.readuntil(b"\n")
            except asyncio.LimitOverrunError as exc:
                ended = await self._skip_rest_of_line(reader, exc.consumed)
                if ended is not None:
                    return ended
                await self._send(conn, espol.frames(Code.F_PARAM, "line too long"))
                logger.info("espol.command peer=%s command=<overlong> code=802", conn.session.peer)
                continue
            except asyncio.IncompleteReadError:
                # A half-sent last line is dropped with the connection.
                return "shutdown" if self._closing else "eof"
            except TimeoutError:
                return "idle"
            reply = await self._answer(conn, line)
            await self._send(conn, reply.encode())
            if reply.close:
                return "quit"
        return "shutdown"

    async def _skip_rest_of_line(
        self, reader: asyncio.StreamReader, consumed: int
    ) -> str | None:
        """Discard an overlong line up to and including its end, holding ≤ READ_LIMIT bytes.

        Returns None once the line has ended, or the reason to close the connection when
        the client closed (``"eof"``) or went quiet (``"idle"``) before the line ended: the
        same outcomes as for a line of normal length, which the session loop reports.
        """
        while True:
            # The LimitOverrunError left these bytes in the buffer: this does not wait.
            await reader.readexactly(consumed)
            try:
                async with asyncio.timeout(self.idle_timeout):
                    await reader.readuntil(b"\n")
                return None
            except asyncio.LimitOverrunError as again:
                consumed = again.consumed
            except asyncio.IncompleteReadError:
                return "eof"
            except TimeoutError:
                return "idle"

    async def _send(self, conn: _Connection, data: bytes) -> None:
        if not data:
            return
        conn.writer.write(data)
        try:
            async with asyncio.timeout(self.write_timeout):
                await conn.writer.drain()
        except TimeoutError:
            raise _Drop("not reading") from None

    async def _answer(self, conn: _Connection, line: bytes) -> handlers.Reply:
        started = time.perf_counter()
        session = conn.session
        command = espol.parse_line(line)
        reply = handlers.immediate_reply(session, command)
        if reply is None:
            assert self._execute is not None and isinstance(command, espol.Command)
            reply = await self._execute(session, command)
        if reply.failed_login_for is not None:
            delay = self.throttle.failed(reply.failed_login_for, session.failed_passwords)
            logger.warning(
                "espol.login_failed peer=%s user=%s session_failures=%d delay=%.2f",
                session.peer,
                espol.log_value(reply.failed_login_for),
                session.failed_passwords,
                delay,
            )
            if delay:
                await asyncio.sleep(delay)
        elif reply.code == Code.S_PASSWD and session.username is not None:
            self.throttle.succeeded(session.username)
        conn.commands += 1
        logger.info(
            "espol.command peer=%s user=%s command=%s code=%s ms=%.1f",
            session.peer,
            espol.log_value(session.username),
            espol.log_value(command.loggable()),
            reply.code,
            (time.perf_counter() - started) * 1000,
        )
        return reply
