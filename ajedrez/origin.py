"""Which pages may open the site's WebSockets: its own, compared as browsers mean it.

Channels' ``AllowedHostsOriginValidator`` compares only the host name of the ``Origin``
header with ``ALLOWED_HOSTS``, so a page served by another program on the same machine
(``http://127.0.0.1:9999``) could open a player's socket with their cookies. Here the
whole origin must match, as Django's CSRF check compares it for forms: the scheme, host
and port the handshake itself was addressed to (its ``Host`` header, a host allowed by
``ALLOWED_HOSTS``), or one of ``CSRF_TRUSTED_ORIGINS`` (a page behind a proxy).
"""

from __future__ import annotations

from typing import Any

from channels.security.websocket import WebsocketDenier
from django.conf import settings
from django.http.request import split_domain_port, validate_host


def _header(scope: dict[str, Any], name: bytes) -> str | None:
    for key, value in scope.get("headers") or []:
        if key == name:
            return bytes(value).decode("latin-1")
    return None


def own_origin(scope: dict[str, Any]) -> str | None:
    """``scheme://host[:port]`` of the handshake, or None if its host is not allowed."""
    host = _header(scope, b"host")
    if not host:
        return None
    domain, _port = split_domain_port(host)
    if not domain or not validate_host(domain, settings.ALLOWED_HOSTS):
        return None
    secure = scope.get("scheme") in ("wss", "https")
    if not secure and getattr(settings, "SECURE_PROXY_SSL_HEADER", None):
        header, value = settings.SECURE_PROXY_SSL_HEADER
        name = header.removeprefix("HTTP_").lower().replace("_", "-").encode()
        forwarded = _header(scope, name)
        secure = forwarded is not None and forwarded.split(",")[0].strip() == value
    return f"{'https' if secure else 'http'}://{host.lower()}"


def origin_allowed(scope: dict[str, Any]) -> bool:
    origin = _header(scope, b"origin")
    if not origin:
        # Browsers always send it on a WebSocket handshake; what sends none is no page.
        return False
    origin = origin.lower()
    return origin == own_origin(scope) or origin in {
        trusted.lower() for trusted in settings.CSRF_TRUSTED_ORIGINS
    }


class SameOriginValidator:
    """Refuse (HTTP 403) a WebSocket handshake from any origin but the site's own."""

    def __init__(self, application: Any) -> None:
        self.application = application

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        if scope["type"] == "websocket" and not origin_allowed(scope):
            return await WebsocketDenier()(scope, receive, send)
        return await self.application(scope, receive, send)
