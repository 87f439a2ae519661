"""Refuse an HTTP request body over the limit before it is read, not after.

Django checks ``DATA_UPLOAD_MAX_MEMORY_SIZE`` only when a view reads the POST data, and
Daphne (Twisted underneath) hands a request to the application only once its whole body
has arrived: a 200 MB upload cost the server 200 MB of reading and a temporary file
before a 400. Twisted tells the request its declared length, then each chunk of the body
(``gotLength``, ``handleContentChunk``); this subclass of Daphne's request answers 413
and closes the connection as soon as the declared length, or the bytes received so far,
pass the limit. The site takes no uploads, so Django's own limit (2.5 MB by default) is
the cap.

Daphne builds its requests from the module-level name ``daphne.http_protocol.WebRequest``
each time it accepts a connection (``HTTPFactory.buildProtocol``), so :func:`install`
points that name at the subclass; ``ajedrez.asgi`` calls it when Daphne loads the
application, before the first request.
"""

from __future__ import annotations

import logging
from typing import Any

from daphne import http_protocol
from django.conf import settings

logger = logging.getLogger(__name__)

REFUSAL = b"Request body too large.\n"


class BodyLimitedRequest(http_protocol.WebRequest):
    """Daphne's request, refusing (413) a body over ``DATA_UPLOAD_MAX_MEMORY_SIZE``."""

    body_refused = False
    body_received = 0

    def gotLength(self, length: int | None) -> None:
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        if limit is not None and length is not None and length > limit:
            self.refuse_body(f"declared {length} bytes")
        super().gotLength(0 if self.body_refused else length)

    def handleContentChunk(self, data: bytes) -> None:
        if self.body_refused:
            return
        self.body_received += len(data)
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        if limit is not None and self.body_received > limit:
            self.refuse_body(f"more than {limit} bytes sent")
            return
        super().handleContentChunk(data)

    def process(self) -> Any:
        # The channel may still finish a refused request's parsing: nothing to serve.
        if self.body_refused:
            return None
        return super().process()

    def refuse_body(self, why: str) -> None:
        self.body_refused = True
        logger.warning(
            "request body refused: %s %s from %s (%s)",
            getattr(self.channel, "_command", b"?").decode("latin-1", "replace"),
            getattr(self.channel, "_path", b"?").decode("latin-1", "replace"),
            self.client_addr if hasattr(self, "client_addr") else "?",
            why,
        )
        transport = self.channel.transport
        transport.write(
            b"HTTP/1.1 413 Payload Too Large\r\n"
            b"Content-Type: text/plain; charset=utf-8\r\n"
            b"Content-Length: " + str(len(REFUSAL)).encode() + b"\r\n"
            b"Connection: close\r\n\r\n" + REFUSAL
        )
        transport.loseConnection()


def install() -> None:
    """Make Daphne build :class:`BodyLimitedRequest` for every HTTP request."""
    http_protocol.WebRequest = BodyLimitedRequest
