"""ESPOL clients: a blocking one (people, scripts, tests) and an asyncio one (many at once).

Both send one line and read back its one response, decoded with the codec's
:class:`~legacy_tcp.protocols.espol.FrameDecoder`.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import ssl

from legacy_tcp.protocols.espol import FrameDecoder, Response, position_of, promotion_of


def jgda(game_name: str, number: int, uci: str, *, reverse: bool = False) -> str:
    """The JGDA line for a UCI move, with ``posicion`` and ``promocion`` filled in."""
    return (
        f"JGDA:{game_name}:{number}:{uci[:4]}:{int(reverse)}:"
        f"{position_of(uci)}:{promotion_of(uci)}"
    )


class EspolClient:
    """A blocking client: send one line, read back its one response."""

    def __init__(self, host: str, port: int, *, tls: bool = False, timeout: float = 30.0):
        raw = socket.create_connection((host, port), timeout=timeout)
        if tls:
            context = ssl.create_default_context()
            # The gateway's certificate is usually self-signed on a test machine.
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
            raw = context.wrap_socket(raw, server_hostname=host)
        self.sock = raw
        self.decoder = FrameDecoder()
        self.pending: list[Response] = []

    def send(self, line: str) -> Response | None:
        """Send ``line`` (CR LF added); the response, or None when the server closed."""
        self.sock.sendall(line.encode("utf-8") + b"\r\n")
        return self.receive()

    def send_raw(self, data: bytes) -> None:
        """Send bytes as they are (partial lines, bad bytes)."""
        self.sock.sendall(data)

    def receive(self) -> Response | None:
        while not self.pending:
            data = self.sock.recv(65536)
            if not data:
                return None
            self.pending.extend(self.decoder.feed(data))
        return self.pending.pop(0)

    def close(self) -> None:
        self.sock.close()


class AsyncEspolClient:
    """The same over asyncio streams, for thousands of clients in one process."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.decoder = FrameDecoder()
        self.pending: list[Response] = []

    @classmethod
    async def open(cls, port: int, host: str = "127.0.0.1") -> AsyncEspolClient:
        reader, writer = await asyncio.open_connection(host, port)
        return cls(reader, writer)

    async def send(self, line: str) -> Response:
        self.writer.write(line.encode("utf-8") + b"\r\n")
        await self.writer.drain()
        while not self.pending:
            data = await self.reader.read(65536)
            if not data:
                raise ConnectionError(f"closed by the server after {line[:4]!r}")
            self.pending.extend(self.decoder.feed(data))
        return self.pending.pop(0)

    async def login(self, username: str, password: str) -> None:
        """USER then PASS; raises when either is refused."""
        for line, wanted in ((f"USER:{username}", 101), (f"PASS:{password}", 102)):
            reply = await self.send(line)
            if reply.code != wanted:
                raise ConnectionError(f"login as {username} refused: {reply.code} {reply.text}")

    async def close(self) -> None:
        self.writer.close()
        with contextlib.suppress(ConnectionError, OSError):
            await self.writer.wait_closed()
