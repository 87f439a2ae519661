"""The base of every socket: a session-authenticated JSON socket with a frame-size cap and
a per-socket rate cap (the per-session and per-address socket limits come before it, in
:mod:`accounts.socket_limits`' middleware).

Refusals (not logged in, no such game) accept the handshake and then close with their
code: a close before the accept makes Daphne refuse the handshake with HTTP 403, and a
browser then reports only 1006, never the code the page needs to stop reconnecting.
Each received message first checks that the session still exists and the account is
still open; logging out and revoking access also close the open sockets at once. When
Redis or the database cannot be reached the socket closes with 4503.
"""

from __future__ import annotations

import json
import logging
import time
from collections import deque
from typing import Any, cast

from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.contrib.auth import HASH_SESSION_KEY
from django.http import HttpRequest
from django.utils import translation
from django.utils.translation import gettext as _

from accounts import presence, socket_limits
from accounts.events import account_group, session_group
from accounts.selectors import is_live_session
from ajedrez.core.faults import unavailable_part

# One log name for every consumer module, the one operators and log filters know.
logger = logging.getLogger("games.consumers")

# lichess's limits: a frame over 8 KiB is no honest message; 100 messages in 20 s is
# more than anyone moves by hand.
MAX_FRAME_BYTES = 8 * 1024
RATE_LIMIT_MESSAGES = 100
RATE_LIMIT_SECONDS = 20.0

# Close codes (4000–4999 are free for applications).
CLOSE_UNAUTHENTICATED = 4401
CLOSE_NOT_FOUND = 4404
# Not 1009 ("message too big"): that code is the protocol's own, and Daphne's WebSocket
# library refuses to send it from an application (it raised, and the socket closed with
# 1011 and a traceback). 4413 echoes HTTP's "payload too large".
CLOSE_FRAME_TOO_LARGE = 4413
CLOSE_RATE_LIMITED = 4429
# The session or the address already holds as many sockets as a process allows: closed
# by accounts.socket_limits' middleware before the consumer is reached.
CLOSE_TOO_MANY_SOCKETS = socket_limits.CLOSE_TOO_MANY_SOCKETS
# Redis or the database cannot be reached (ajedrez.core.faults): try again later.
CLOSE_UNAVAILABLE = 4503


def error_frame(code: str, message: str, **details: Any) -> dict[str, Any]:
    return {"type": "error", "code": code, "message": message, **details}


class HandshakeRequest:
    """The WebSocket handshake seen as the request Django's language negotiation reads:
    its cookies (``django_language``) and its ``Accept-Language`` header."""

    def __init__(self, scope: dict[str, Any]) -> None:
        headers = dict(scope.get("headers") or [])
        self.COOKIES: dict[str, str] = dict(scope.get("cookies") or {})
        self.META: dict[str, str] = {
            "HTTP_ACCEPT_LANGUAGE": headers.get(b"accept-language", b"").decode("latin-1")
        }
        self.path_info: str = scope.get("path", "")


def handshake_language(scope: dict[str, Any]) -> str:
    """The language LocaleMiddleware would pick for a page requested with this
    handshake's cookie and headers, so the socket speaks as the page does."""
    # Django reads only the attributes HandshakeRequest has.
    request = cast(HttpRequest, HandshakeRequest(scope))
    return translation.get_language_from_request(request)


class LimitedJsonConsumer(AsyncWebsocketConsumer):
    """Session-authenticated JSON socket with a frame-size cap and a per-socket rate cap.

    Subclasses implement :meth:`handle` for parsed messages (dicts with a ``type``).
    """

    user: Any
    session_key: str | None = None
    auth_hash: str | None = None
    account_groups: tuple[str, ...] = ()
    refused = False
    present = False
    # Handlers of channel-layer messages that never touch the database (see dispatch).
    database_free_handlers: frozenset[str] = frozenset({"account_closed"})

    async def dispatch(self, message: dict[str, Any]) -> None:
        """Run the handler of ``message``; those that never touch the database run
        without channels' ``aclose_old_connections`` first.

        channels (4.2 and later) closes stale database connections before every handler,
        through ``sync_to_async``: a hop to the database thread and back for each event
        each socket relays. Relaying an event reads no database, and every call that
        does goes through ``database_sync_to_async``, which closes stale connections
        around itself. With a thousand watchers those hops were two fifths of the
        server's work per event (``docs/benchmarks.md``).
        """
        name = get_handler_name(message)
        if name in self.database_free_handlers:
            await getattr(self, name)(message)
            return
        await super().dispatch(message)

    async def connect(self) -> None:
        try:
            await self.open()
        except Exception as error:
            part = unavailable_part(error)
            if part is None:
                raise
            # Redis or the database is down: no traceback, and a close the page reads as
            # "offline" (it polls and reconnects with back-off until the part is back).
            logger.warning("socket closed at connect: the %s is unavailable", part)
            await self.refuse(CLOSE_UNAVAILABLE)

    async def open(self) -> None:
        """Authenticate, join the groups and send what the page needs first."""
        self.user = self.scope.get("user")
        self.recent: deque[float] = deque()
        # Decided once: a new language choice reloads the page, and with it the socket.
        self.language = handshake_language(self.scope)
        if self.user is None or not self.user.is_authenticated:
            await self.refuse(CLOSE_UNAUTHENTICATED)
            return
        session = self.scope.get("session")
        self.session_key = getattr(session, "session_key", None)
        # The password hash the session logged in with: a password change since ends it.
        self.auth_hash = session.get(HASH_SESSION_KEY) if session is not None else None
        # Joined before anything else: a revocation or a logout published from now on
        # reaches this socket, and one that committed just before is caught by the
        # session check on the next message.
        groups = [account_group(self.user.pk)]
        if self.session_key:
            groups.append(session_group(self.session_key))
        for group in groups:
            await self.channel_layer.group_add(group, self.channel_name)
        self.account_groups = tuple(groups)
        await self.join()
        if not self.refused:
            # On the site: not mailed about what this socket shows (accounts.presence).
            await presence.opened(self.user.pk)
            self.present = True

    async def refuse(self, code: int) -> None:
        """Close with ``code`` where the browser can read it: after the handshake.

        Closed before the accept, Daphne answers the handshake with HTTP 403 and the
        page sees 1006, so it would keep reconnecting instead of saying why.
        """
        self.refused = True
        await self.accept()
        await self.close(code=code)

    async def join(self) -> None:
        raise NotImplementedError

    async def leave(self) -> None:
        """Leave the consumer's own groups (those :meth:`join` added)."""

    async def disconnect(self, code: int) -> None:
        try:
            if self.present:
                self.present = False
                await presence.closed(self.user.pk)
            await self.leave()
            for group in self.account_groups:
                await self.channel_layer.group_discard(group, self.channel_name)
        except Exception as error:
            part = unavailable_part(error)
            if part is None:
                raise
            # Nothing to undo: the groups lapse on their own (the layer's expiry), as do
            # the presence marks (PRESENCE_TTL_SECONDS).
            logger.warning("socket closed without leaving its groups: the %s is unavailable", part)

    async def account_closed(self, event: dict[str, Any]) -> None:
        """The account was closed or this session logged out (:mod:`games.events`)."""
        await self.close(code=CLOSE_UNAUTHENTICATED)

    async def session_is_live(self) -> bool:
        if not self.session_key:
            return False
        return await database_sync_to_async(is_live_session)(
            self.user.pk, self.session_key, self.auth_hash
        )

    async def send_json(self, content: dict[str, Any]) -> None:
        await self.send(text_data=json.dumps(content))

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        # The service layer words its domain errors in the active language; the override
        # also reaches the threads that database_sync_to_async runs it in.
        with translation.override(self.language):
            await self.receive_in_language(text_data, bytes_data)

    async def receive_in_language(self, text_data: str | None, bytes_data: bytes | None) -> None:
        size = len(text_data.encode()) if text_data is not None else len(bytes_data or b"")
        if size > MAX_FRAME_BYTES:
            await self.send_json(
                error_frame(
                    "frame_too_large",
                    _("A message may be at most %(size)d bytes.") % {"size": MAX_FRAME_BYTES},
                )
            )
            await self.close(code=CLOSE_FRAME_TOO_LARGE)
            return
        now = time.monotonic()
        while self.recent and now - self.recent[0] > RATE_LIMIT_SECONDS:
            self.recent.popleft()
        self.recent.append(now)
        if len(self.recent) > RATE_LIMIT_MESSAGES:
            await self.send_json(
                error_frame(
                    "rate_limited",
                    _("At most %(count)d messages per %(seconds)d s.")
                    % {"count": RATE_LIMIT_MESSAGES, "seconds": RATE_LIMIT_SECONDS},
                )
            )
            await self.close(code=CLOSE_RATE_LIMITED)
            return
        # After the rate cap, so a flood costs at most its allowance of queries.
        if not await self.session_is_live():
            await self.close(code=CLOSE_UNAUTHENTICATED)
            return
        if text_data is None:
            await self.send_json(error_frame("not_text", _("Messages are JSON text frames.")))
            return
        try:
            message = json.loads(text_data)
        except (ValueError, RecursionError):
            # RecursionError: JSON nested thousands deep (a few KB of brackets).
            await self.send_json(error_frame("malformed_json", _("The message is not JSON.")))
            return
        if not isinstance(message, dict) or not isinstance(message.get("type"), str):
            await self.send_json(
                error_frame("missing_type", _("A message is a JSON object with a “type”."))
            )
            return
        await self.handle(message)

    async def handle(self, message: dict[str, Any]) -> None:
        raise NotImplementedError


class ListeningConsumer(LimitedJsonConsumer):
    """A socket that only listens (a player's pages, the lobby, the open challenges, an
    event's page): it joins its groups and says hello, answers pings, and leaves the
    groups when it closes. What it is told is its subclass's handlers."""

    async def join_groups(self, groups: list[str], **hello: Any) -> None:
        for group in groups:
            await self.channel_layer.group_add(group, self.channel_name)
        self.listening = groups
        await self.accept()
        await self.send_json({"type": "hello", **hello})

    async def leave(self) -> None:
        for group in getattr(self, "listening", []):
            await self.channel_layer.group_discard(group, self.channel_name)

    async def handle(self, message: dict[str, Any]) -> None:
        if message["type"] == "ping":
            await self.send_json({"type": "pong"})
            return
        await self.send_json(
            error_frame(
                "unknown_type", _("Unknown message type “%(type)s”.") % {"type": message["type"]}
            )
        )
