"""Reading the API's streams in this process, through Django's ASGI handler as Daphne
calls it: the request, the answer's start and its body part by part, and the client
closing (``http.disconnect``)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from asgiref.testing import ApplicationCommunicator
from django.core.asgi import get_asgi_application


def scope(path: str, token: str | None, query: str = "") -> dict[str, Any]:
    headers = [(b"host", b"testserver")]
    if token is not None:
        headers.append((b"authorization", f"Bearer {token}".encode()))
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": query.encode(),
        "root_path": "",
        "headers": headers,
        "client": ("127.0.0.1", 50000),
        "server": ("testserver", 80),
    }


class Stream:
    """One stream, opened: its status and headers, then its lines as they come."""

    def __init__(self, path: str, token: str | None, query: str = "") -> None:
        self.communicator = ApplicationCommunicator(
            get_asgi_application(), scope(path, token, query)
        )
        self.buffer = b""
        self.status = 0
        self.headers: dict[bytes, bytes] = {}
        self.ended = False

    async def open(self, timeout: float = 10) -> Stream:
        await self.communicator.send_input({"type": "http.request", "body": b""})
        start = await self.communicator.receive_output(timeout)
        assert start["type"] == "http.response.start", start
        self.status = start["status"]
        self.headers = dict(start["headers"])
        return self

    async def _more(self, timeout: float) -> None:
        message = await self.communicator.receive_output(timeout)
        assert message["type"] == "http.response.body", message
        self.buffer += message.get("body", b"")
        if not message.get("more_body", False):
            self.ended = True

    async def raw_line(self, timeout: float = 10) -> bytes:
        """The next line, empty ones (keep-alive) included, without its newline."""
        while b"\n" not in self.buffer:
            if self.ended:
                raise EOFError(self.buffer)
            await self._more(timeout)
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line

    async def line(self, timeout: float = 10) -> dict[str, Any]:
        """The next non-empty line, as JSON, within ``timeout`` seconds in all (keep-alive
        lines are skipped, but do not make the wait longer)."""
        async with asyncio.timeout(timeout):
            while True:
                raw = await self.raw_line(timeout)
                if raw.strip():
                    return json.loads(raw)

    async def body(self, timeout: float = 10) -> bytes:
        """Everything until the server ends the answer."""
        while not self.ended:
            await self._more(timeout)
        return self.buffer

    async def closed_by_server(self, timeout: float = 10) -> bool:
        try:
            await self.body(timeout)
        except TimeoutError:
            return False
        return True

    async def close(self, timeout: float = 10) -> None:
        """The client leaves; returns once the application has finished."""
        await self.communicator.send_input({"type": "http.disconnect"})
        await self.communicator.wait(timeout)
