"""The ESPOL gateway (seed 000) on the shared line server.

ESPOL's own hygiene on top of the transport's: a login deadline (``ESPOL_LOGIN_TIMEOUT``);
after wrong passwords, checks on that user name from that address, and on that address,
wait their turn (:class:`accounts.throttling.LoginThrottle`), and password hashing runs on
threads of its own (``ESPOL_AUTH_THREADS``), so a burst of logins cannot hold every
command thread; logs never hold passwords, and what a client typed is quoted in them
(:func:`~legacy_tcp.espol.codec.log_value`). Database threads: ``ESPOL_DB_THREADS``.
"""

from __future__ import annotations

import asyncio
import logging
import ssl
import time
from concurrent.futures import ThreadPoolExecutor

from asgiref.sync import sync_to_async
from django.conf import settings

from accounts.throttling import LoginThrottle
from legacy_tcp.espol import codec as espol
from legacy_tcp.espol import handlers
from legacy_tcp.espol.codec import Code
from legacy_tcp.transport.connection import Connection
from legacy_tcp.transport.server import LineServer
from legacy_tcp.transport.threads import run_releasing

REFUSAL = espol.frames(Code.E_BUSY, espol.BUSY)


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
            first_line_timeout=settings.ESPOL_FIRST_LINE_TIMEOUT,
        )
        self.auth_threads = settings.ESPOL_AUTH_THREADS
        self.throttle = LoginThrottle(
            base=settings.ESPOL_LOGIN_DELAY, cap=settings.ESPOL_LOGIN_DELAY_MAX
        )

    def _create_executors(self) -> None:
        super()._create_executors()
        # Hashing a password (Argon2id, tens of milliseconds of CPU) gets threads of
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
            run_releasing, thread_sensitive=False, executor=self._hashing
        )(handlers.execute, session, command)

    def new_session(self, peer: str) -> handlers.Session:
        return handlers.Session(peer=peer)

    def is_logged_in(self, conn: Connection) -> bool:
        return conn.session.user is not None

    def session_user(self, conn: Connection) -> str | None:
        return espol.log_value(conn.session.username)

    def overlong_reply(self, conn: Connection) -> bytes:
        self._log(logging.INFO, "command peer=%s command=<overlong> code=802", conn.peer)
        return espol.frames(Code.F_PARAM, espol.LINE_TOO_LONG)

    async def answer(self, conn: Connection, line: bytes) -> tuple[bytes, bool]:
        reply = await self._answer(conn, line)
        return reply.encode(), reply.close

    async def _wait_turn_to_check_password(
        self, conn: Connection, command: espol.Pass | espol.Subs | espol.Unsu
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

    async def _answer(self, conn: Connection, line: bytes) -> handlers.Reply:
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
