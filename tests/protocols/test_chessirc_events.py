"""chessirc across front doors: nicks linked to accounts play on in the browser, and the
bot is told at once, unasked, in the reply format it knows. The server runs on the
test's own event loop, as ``manage.py serve`` runs it beside Daphne."""

from __future__ import annotations

import asyncio

import pytest
from asgiref.sync import sync_to_async

from games.models import Game
from legacy_tcp.chessirc import handlers
from legacy_tcp.chessirc.server import ChessircServer
from legacy_tcp.models import LinkedName
from tests.protocols.test_espol_events import game_socket

pytestmark = pytest.mark.django_db(transaction=True)


class AsyncBot:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    async def reply(self) -> str:
        raw = await asyncio.wait_for(self.reader.readuntil(b"-###-\n"), timeout=10)
        return raw.decode()

    async def request(self, line: str) -> str:
        self.writer.write(line.encode() + b"\n")
        await self.writer.drain()
        return await self.reply()


@pytest.fixture
async def gateway(transactional_db, espol_settings):
    server = ChessircServer("127.0.0.1", 0, idle_timeout=30.0, max_connections=50, secret="k")
    await server.start()
    yield server
    await server.stop(grace=2.0)


async def test_moves_and_the_end_in_the_browser_reach_the_bot(gateway, alice, bob, monkeypatch):
    # Each event's reply is built from the event itself: the game is never re-read.
    reads: list[int] = []
    monkeypatch.setattr(handlers, "read", lambda game_id: reads.append(game_id))
    for nick, player in (("ali", alice), ("bo", bob)):
        await sync_to_async(LinkedName.objects.create)(
            gateway="chessirc", channel="chess", name=nick, player=player
        )
    bot = AsyncBot(*await asyncio.open_connection("127.0.0.1", gateway.port))
    for line in ("AUTH k", "SESSION #chess", "REGISTER ali", "REGISTER bo"):
        await bot.request(line)
    assert (await bot.request("START ali Default")).startswith("Blancas mueven.")
    assert (await bot.request("MOVE ali e4")).startswith("1. e4\nNegras mueven.")
    game = await sync_to_async(Game.objects.get)()
    assert game.rated and game.site == "#chess"
    # bob answers in the browser: the bot hears it as if bo had moved through it.
    socket = await game_socket(bob, game)
    await socket.send_json_to({"type": "move", "number": 2, "move": "e7e5"})
    pushed = await bot.reply()
    assert pushed.startswith("1. e4 e5\nBlancas mueven. Es el turno de 'ali'.\n<:=:>\n8 ")
    await socket.send_json_to({"type": "draw_offer"})
    assert await bot.reply() == "Negras ('bo') ofrecen tablas.\n-###-\n"
    await socket.send_json_to({"type": "resign"})
    assert await bot.reply() == (
        f"'bo' abandona. Ganan las Blancas.\nLa partida se ha guardado en "
        f"{game.public_id}.pgn.\n1-0\n-###-\n"
    )
    # The session ends with the game, whichever door ended it.
    assert await asyncio.wait_for(bot.reader.read(), timeout=5) == b""
    assert reads == []
    await socket.disconnect()
