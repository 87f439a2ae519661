"""The gateways that name their players without a password (the ``#`` protocol,
chessirc): their settings by prefix, and the shared secret a client may have to send
first, checked in constant time and throttled after wrong guesses
(``docs/protocols/guests.md``)."""

from __future__ import annotations

import asyncio
import enum
import hmac
import logging
import math
from collections import Counter
from typing import Any

from django.conf import settings

from accounts.throttling import LoginThrottle
from legacy_tcp.transport.connection import Connection
from legacy_tcp.transport.following import FollowingServer
from legacy_tcp.transport.refusals import FloodSampler


class SecretCheck(enum.Enum):
    """What became of a secret a client sent."""

    ADMITTED = "admitted"
    WRONG = "wrong"
    # Not checked: its address has as many checks waiting as it may, or its turn would
    # come after its connection's deadline. Nothing was counted against it.
    NOT_NOW = "not_now"


class PasswordlessGateway(FollowingServer):
    """A following gateway that names its players without a password (the ``#``
    protocol, chessirc): its settings are ``<setting_prefix>_*``, and it may require a
    shared secret as the client's first line (``docs/protocols/guests.md``). Its
    sessions have ``admitted``: past the secret, or no secret required."""

    setting_prefix = ""

    def __init__(
        self,
        host: str,
        port: int,
        *,
        idle_timeout: float | None = None,
        max_connections: int | None = None,
        secret: str | None = None,
    ) -> None:
        self.secret = self._setting("SECRET") if secret is None else secret
        super().__init__(
            host,
            port,
            idle_timeout=self._setting("IDLE_TIMEOUT") if idle_timeout is None else idle_timeout,
            max_connections=(
                self._setting("MAX_CONNECTIONS") if max_connections is None else max_connections
            ),
            write_timeout=settings.ESPOL_WRITE_TIMEOUT,
            write_buffer_limit=settings.ESPOL_WRITE_BUFFER,
            db_threads=self._setting("DB_THREADS"),
            max_per_address=self._setting("MAX_PER_ADDRESS"),
            # With a secret, a connection must send it within this time.
            login_timeout=self._setting("LOGIN_TIMEOUT") if self.secret else None,
            first_line_timeout=self._setting("FIRST_LINE_TIMEOUT"),
        )
        self.throttle = LoginThrottle(
            base=settings.ESPOL_LOGIN_DELAY, cap=settings.ESPOL_LOGIN_DELAY_MAX
        )
        self._wrong_secrets = FloodSampler()
        self._turned_away = FloodSampler()
        # Secret checks waiting for their turn, per address.
        self.secrets_waiting: Counter[str] = Counter()
        self.secret_queue_per_address = max(1, int(self._setting("SECRET_QUEUE_PER_ADDRESS")))

    def _setting(self, name: str) -> Any:
        return getattr(settings, f"{self.setting_prefix}_{name}")

    @property
    def trusted(self) -> bool:
        """Whether its clients prove themselves with the secret: linked names then act
        as their accounts."""
        return bool(self.secret)

    def is_logged_in(self, conn: Connection) -> bool:
        return conn.session.admitted

    async def admit(self, conn: Connection, secret: str) -> SecretCheck:
        """Check the secret a client sent (in constant time); admit it if right.

        Wrong secrets are spaced out as ESPOL's wrong passwords are (``ESPOL_LOGIN_DELAY``
        doubling up to ``ESPOL_LOGIN_DELAY_MAX``), per connection and per address: once
        a key has failures every check under it waits its turn, the right secret too
        (answering only the wrong ones late would tell a guesser which was right), so
        guessing over many connections from one address buys nothing. The wait is
        bounded twice: at most ``*_SECRET_QUEUE_PER_ADDRESS`` checks of an address wait
        at once, and a check whose turn would come after its connection's login deadline
        is not queued at all; either is answered at once, unchecked (``NOT_NOW``), and
        the connection is closed at its deadline as any other that did not log in. So a
        right secret from an address that has been guessing waits at most its turn,
        never past its deadline, and a waiter never outlives its connection's deadline.
        A flood of wrong secrets, or of checks turned away, is logged once per interval,
        not once per guess."""
        if not self.secret:
            conn.session.admitted = True
            return SecretCheck.ADMITTED
        address = conn.address
        max_wait = math.inf
        if conn.login_deadline is not None:
            max_wait = conn.login_deadline - asyncio.get_running_loop().time()
        wait = None
        if self.secrets_waiting[address] < self.secret_queue_per_address:
            # The connection's own key: its peer (host and port) is unique while it is open.
            wait = self.throttle.reserve_within(conn.peer, address, max_wait)
        if wait is None:
            self._log_turned_away(conn)
            return SecretCheck.NOT_NOW
        if wait > 0:
            self.secrets_waiting[address] += 1
            try:
                await asyncio.sleep(wait)
            finally:
                self.secrets_waiting[address] -= 1
                if self.secrets_waiting[address] <= 0:
                    del self.secrets_waiting[address]
        if hmac.compare_digest(secret.encode(), self.secret.encode()):
            self.throttle.succeeded(conn.peer, address)
            conn.session.admitted = True
            return SecretCheck.ADMITTED
        failures = self.throttle.failed(conn.peer, address)
        held_back = self._wrong_secrets.take("wrong_secret")
        if held_back is not None:
            self._log(
                logging.WARNING,
                "wrong_secret peer=%s connection_failures=%d address_failures=%d "
                "next_check_in=%.2f also_wrong_since_last=%d",
                conn.peer,
                failures.for_name,
                failures.for_address,
                failures.next_check_in,
                held_back,
            )
        return SecretCheck.WRONG

    def _log_turned_away(self, conn: Connection) -> None:
        held_back = self._turned_away.take("secret_not_checked")
        if held_back is not None:
            self._log(
                logging.WARNING,
                "secret_not_checked peer=%s waiting_from_address=%d: its turn is taken or "
                "past the connection's deadline; also_turned_away_since_last=%d",
                conn.peer,
                self.secrets_waiting[conn.address],
                held_back,
            )
