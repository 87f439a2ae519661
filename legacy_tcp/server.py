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
the session goes on); each line must arrive within the idle timeout, and a connection must
log in within the login timeout; connections beyond the cap get 402 and are closed; every
write is followed by a bounded ``drain()`` so a client that never reads is dropped instead
of growing server memory; after wrong passwords, checks on that user name or connection
wait their turn (:class:`LoginThrottle`), and password hashing runs on threads of its own
(``ESPOL_AUTH_THREADS``); logs never hold passwords, and what a client typed is quoted in
them (:func:`~legacy_tcp.protocols.espol.log_value`).
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
    """Spaces out password checks on a user name after wrong passwords.

    The wait comes before the check, not after it: answering only the wrong guesses late
    would let a guesser read a slow answer as "wrong" and move on, while the right password
    still came back at once. So once a name has failures, every attempt on it, right or
    wrong and from any connection, is checked only after its turn: ``delay(failures)``
    after the previous attempt's turn, or after the last failure. Parallel attempts on one
    name therefore queue one behind another instead of running side by side, and opening
    many connections buys no extra guesses. A name's count is forgotten after ``window``
    seconds without failures, or on a successful login.
    """

    def __init__(self, *, base: float, cap: float, window: float = 900.0) -> None:
        self.base = base
        self.cap = cap
        self.window = window
        # name -> [failures, time of the last failure, earliest time of the next check]
        self._names: dict[str, list[float]] = {}

    def delay(self, failures: int) -> float:
        """How long a check waits after ``failures`` wrong passwords (0 after none)."""
        return 0.0 if failures < 1 else min(self.cap, self.base * 2 ** (failures - 1))

    def reserve(self, username: str) -> float:
        """Take the next turn to check a password for ``username``; return the wait for it."""
        now = time.monotonic()
        state = self._names.get(username)
        if state is None:
            return 0.0
        failures, last_failure, next_check = state
        if now - last_failure > self.window:
            del self._names[username]
            return 0.0
        turn = max(now, next_check)
        state[2] = turn + self.delay(int(failures))
        return turn - now

    def failed(self, username: str) -> tuple[int, float]:
        """Record a wrong password; return the name's failures and the next check's wait."""
        now = time.monotonic()
        state = self._names.get(username)
        if state is None or now - state[1] > self.window:
            state = self._names[username] = [0, now, now]
        state[0] += 1
        state[1] = now
        state[2] = max(state[2], now + self.delay(int(state[0])))
        if len(self._names) > 10_000:
            self._forget_old(now)
        return int(state[0]), state[2] - now

    def succeeded(self, username: str) -> None:
        self._names.pop(username, None)

    def _forget_old(self, now: float) -> None:
        for name, (_failures, last_failure, _next) in list(self._names.items()):
            if now - last_failure > self.window:
                del self._names[name]


class _Drop(Exception):
    """The connection must be closed at once (client not reading)."""


@dataclass(eq=False)
class _Connection:
    session: handlers.Session
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    commands: int = 0
    opened: float = field(default_factory=time.monotonic)
    # Monotonic time before which this connection's next password is not checked.
    next_password_check: float = 0.0
    # Loop time by which the session must be logged in; None while it is (or no limit).
    login_deadline: float | None = None


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
        self.auth_threads = settings.ESPOL_AUTH_THREADS
        login_timeout = settings.ESPOL_LOGIN_TIMEOUT
        self.login_timeout = login_timeout if login_timeout and login_timeout > 0 else None
        self.throttle = LoginThrottle(
            base=settings.ESPOL_LOGIN_DELAY, cap=settings.ESPOL_LOGIN_DELAY_MAX
        )
        self._server: asyncio.Server | None = None
        self._connections: dict[asyncio.Task, _Connection] = {}
        self._closing = False
        self._executors: list[tuple[ThreadPoolExecutor, int]] = []
        self._execute = None
        self._execute_hashing = None

    @property
    def connection_count(self) -> int:
        return len(self._connections)

    async def start(self) -> None:
        commands = ThreadPoolExecutor(max_workers=self.db_threads, thread_name_prefix="espol-db")
        # Hashing a password (PBKDF2, about a quarter of a second of CPU) gets threads of
        # its own: on the command threads a burst of logins would hold every one of them
        # and stall the moves and lists of clients already logged in.
        hashing = ThreadPoolExecutor(max_workers=self.auth_threads, thread_name_prefix="espol-auth")
        self._executors = [(commands, self.db_threads), (hashing, self.auth_threads)]
        self._execute = sync_to_async(_execute, thread_sensitive=False, executor=commands)
        self._execute_hashing = sync_to_async(_execute, thread_sensitive=False, executor=hashing)
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
            "espol.listen host=%s port=%d tls=%s max_connections=%d login_timeout=%s "
            "idle_timeout=%s",
            self.host,
            self.port,
            self.ssl_context is not None,
            self.max_connections,
            self.login_timeout,
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
        loop = asyncio.get_running_loop()
        for executor, threads in self._executors:
            await loop.run_in_executor(None, _close_executor, executor, threads)
        self._executors = []
        logger.info("espol.stopped port=%d", self.port)

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
        if self.login_timeout is not None:
            conn.login_deadline = asyncio.get_running_loop().time() + self.login_timeout
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

    def _read_deadline(self, conn: _Connection) -> float | None:
        """Loop time by which the next line must have arrived: within the idle timeout,
        and, while the session is not logged in, by its login deadline."""
        deadlines = []
        if self.idle_timeout is not None:
            deadlines.append(asyncio.get_running_loop().time() + self.idle_timeout)
        if conn.session.user is None and conn.login_deadline is not None:
            deadlines.append(conn.login_deadline)
        return min(deadlines, default=None)

    def _timed_out(self, conn: _Connection) -> str:
        """Why a read timed out: the login deadline passed, or the client went idle."""
        if (
            conn.session.user is None
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
                await self._send(conn, espol.frames(Code.F_PARAM, "line too long"))
                logger.info("espol.command peer=%s command=<overlong> code=802", conn.session.peer)
                continue
            except asyncio.IncompleteReadError:
                # A half-sent last line is dropped with the connection.
                return "shutdown" if self._closing else "eof"
            except TimeoutError:
                return self._timed_out(conn)
            reply = await self._answer(conn, line)
            await self._send(conn, reply.encode())
            if reply.close:
                return "quit"
            if conn.session.user is not None:
                conn.login_deadline = None
            elif conn.login_deadline is None and self.login_timeout is not None:
                # Logged out (USER again, UNSU, account closed): a new login window.
                conn.login_deadline = asyncio.get_running_loop().time() + self.login_timeout
        return "shutdown"

    async def _skip_rest_of_line(
        self, reader: asyncio.StreamReader, conn: _Connection, consumed: int
    ) -> str | None:
        """Discard an overlong line up to and including its end, holding ≤ READ_LIMIT bytes.

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

    async def _wait_turn_to_check_password(
        self, conn: _Connection, command: espol.Pass | espol.Subs | espol.Unsu
    ) -> None:
        """Hold a password check back while its user name or this connection is throttled."""
        if isinstance(command, espol.Pass):
            name = conn.session.pending_username
        elif isinstance(command, espol.Unsu):
            name = conn.session.username
        else:
            return  # SUBS sets a password; it checks none
        wait = conn.next_password_check - time.monotonic()
        if name is not None:
            wait = max(wait, self.throttle.reserve(name))
        if wait > 0:
            await asyncio.sleep(wait)

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
            assert self._execute is not None and self._execute_hashing is not None
            assert isinstance(command, espol.Command)
            if isinstance(command, espol.Pass | espol.Subs | espol.Unsu):
                await self._wait_turn_to_check_password(conn, command)
                reply = await self._execute_hashing(session, command)
            else:
                reply = await self._execute(session, command)
        if reply.failed_login_for is not None:
            failures, wait = self.throttle.failed(reply.failed_login_for)
            conn.next_password_check = time.monotonic() + self.throttle.delay(
                session.failed_passwords
            )
            logger.warning(
                "espol.login_failed peer=%s user=%s failures=%d session_failures=%d "
                "next_check_in=%.2f",
                session.peer,
                espol.log_value(reply.failed_login_for),
                failures,
                session.failed_passwords,
                max(wait, conn.next_password_check - time.monotonic()),
            )
        elif reply.code == Code.S_PASSWD and session.username is not None:
            self.throttle.succeeded(session.username)
            conn.next_password_check = 0.0
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
