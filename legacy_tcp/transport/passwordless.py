"""The gateways that name their players without a password (the ``#`` protocol,
chessirc): their settings by prefix, and the shared secret a client may have to send
first, checked in constant time and throttled after wrong guesses
(``docs/protocols/guests.md``)."""

from __future__ import annotations

import asyncio
import hmac
import logging
from typing import Any

from django.conf import settings

from accounts.throttling import LoginThrottle
from legacy_tcp.transport.following import FollowingServer
from legacy_tcp.transport.refusals import FloodSampler
from legacy_tcp.transport.server import Connection


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

    def _setting(self, name: str) -> Any:
        return getattr(settings, f"{self.setting_prefix}_{name}")

    @property
    def trusted(self) -> bool:
        """Whether its clients prove themselves with the secret: linked names then act
        as their accounts."""
        return bool(self.secret)

    def is_logged_in(self, conn: Connection) -> bool:
        return conn.session.admitted

    async def admit(self, conn: Connection, secret: str) -> bool:
        """Check the secret a client sent (in constant time); admit it if right.

        Wrong secrets are spaced out as ESPOL's wrong passwords are (``ESPOL_LOGIN_DELAY``
        doubling up to ``ESPOL_LOGIN_DELAY_MAX``), per connection and per address: once
        a key has failures every check under it waits its turn, so guessing the secret
        over many connections from one address buys nothing. A flood of wrong secrets is
        logged once per interval, not once per guess."""
        if not self.secret:
            conn.session.admitted = True
            return True
        # The connection's own key: its peer (host and port) is unique while it is open.
        wait = self.throttle.reserve(conn.peer, conn.address)
        if wait > 0:
            await asyncio.sleep(wait)
        if hmac.compare_digest(secret.encode(), self.secret.encode()):
            self.throttle.succeeded(conn.peer, conn.address)
            conn.session.admitted = True
            return True
        failures = self.throttle.failed(conn.peer, conn.address)
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
        return False
