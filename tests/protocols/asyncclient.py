"""An asyncio ESPOL client for tests that need many clients at once."""

from __future__ import annotations

import asyncio
import contextlib

from legacy_tcp.protocols.espol import FrameDecoder, Response, position_of


class AsyncEspolClient:
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
        self.writer.write(line.encode() + b"\r\n")
        await self.writer.drain()
        while not self.pending:
            data = await self.reader.read(65536)
            if not data:
                raise ConnectionError(f"closed by the server after {line!r}")
            self.pending.extend(self.decoder.feed(data))
        return self.pending.pop(0)

    async def login(self, username: str, password: str) -> None:
        assert (await self.send(f"USER:{username}")).code == 101
        assert (await self.send(f"PASS:{password}")).code == 102

    async def close(self) -> None:
        self.writer.close()
        with contextlib.suppress(ConnectionError, OSError):
            await self.writer.wait_closed()


def jgda(game_name: str, number: int, uci: str) -> str:
    promotion = {"": 0, "n": 2, "b": 3, "r": 4, "q": 5}[uci[4:5]]
    return f"JGDA:{game_name}:{number}:{uci[:4]}:0:{position_of(uci)}:{promotion}"
