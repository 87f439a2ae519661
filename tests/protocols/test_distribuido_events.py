"""Across front doors for the ``#`` protocol: a game registered over TCP and finished in
the browser's socket, a browser game watched over TCP. The gateway runs on the test's own
event loop, as ``manage.py serve`` runs it beside Daphne (the in-memory channel layer
joins doors within one loop)."""

from __future__ import annotations

import asyncio

import pytest
from asgiref.sync import sync_to_async

from accounts.services import make_gateway_key
from games import services
from games.models import Game
from legacy_tcp.distribuido.server import DistribuidoServer
from legacy_tcp.models import LinkedName
from tests.protocols.test_espol_events import game_socket

pytestmark = pytest.mark.django_db(transaction=True)

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"


class AsyncLines:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    @classmethod
    async def open(cls, port: int) -> AsyncLines:
        return cls(*await asyncio.open_connection("127.0.0.1", port))

    async def line(self) -> str:
        raw = await asyncio.wait_for(self.reader.readline(), timeout=10)
        return raw.decode().rstrip("\n")

    async def ask(self, text: str) -> str:
        self.writer.write(text.encode() + b"\n")
        await self.writer.drain()
        return await self.line()

    async def close(self) -> None:
        self.writer.close()


@pytest.fixture
async def gateway(transactional_db, espol_settings):
    espol_settings.DISTRIBUIDO_MAX_PER_ADDRESS = 0
    server = DistribuidoServer(
        "127.0.0.1", 0, idle_timeout=30.0, max_connections=50, secret="s3cr3t"
    )
    await server.start()
    yield server
    await server.stop(grace=2.0)


async def test_a_game_registered_over_tcp_is_finished_in_the_browser(gateway, alice, bob):
    await sync_to_async(LinkedName.objects.create)(gateway="distribuido", name="ali", player=alice)
    await sync_to_async(LinkedName.objects.create)(gateway="distribuido", name="bo", player=bob)
    keys = {
        "ali": await sync_to_async(make_gateway_key)(player=alice),
        "bo": await sync_to_async(make_gateway_key)(player=bob),
    }
    white, black = await AsyncLines.open(gateway.port), await AsyncLines.open(gateway.port)
    for client, name, colour in ((white, "ali", "B"), (black, "bo", "N")):
        assert await client.ask("#CLAVE#s3cr3t#") == "#OK#"
        assert await client.ask(f"#INSCRIBIR#{name}:{keys[name]}#") == f"#OK#{colour}#"
    assert await black.line() == await white.line() == f"#INICIO#B#{START}#"
    assert (await white.ask("#MOVIMIENTO#ali#e4#")).startswith("#OK#N#")
    assert (await black.line()).startswith("#OK#N#")
    game = await sync_to_async(Game.objects.get)()
    # Bob goes on in the browser: a move, then he resigns.
    socket = await game_socket(bob, game)
    await socket.send_json_to({"type": "move", "number": 2, "move": "e7e5"})
    after_e5 = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
    assert await white.line() == f"#OK#B#{after_e5}#EN_JUEGO#"
    assert await black.line() == f"#OK#B#{after_e5}#EN_JUEGO#"
    await socket.send_json_to({"type": "resign"})
    for client in (white, black):
        assert await client.line() == "#OK#B#"
        assert await client.line() == "#FIN#GANADOR_B#"
    await sync_to_async(game.refresh_from_db)()
    assert (game.result, game.rated) == ("1-0", True)
    await socket.disconnect()
    for client in (white, black):
        await client.close()


async def test_a_browser_game_is_watched_over_tcp(gateway, alice, bob, game):
    watcher = await AsyncLines.open(gateway.port)
    assert await watcher.ask("#CLAVE#s3cr3t#") == "#OK#"
    assert await watcher.ask(f"#OBSERVAR#{game.public_id}#") == f"#OK#B#{START}#EN_JUEGO#"
    socket = await game_socket(alice, game)
    await socket.send_json_to({"type": "move", "number": 1, "move": "f2f3"})
    assert (await watcher.line()).endswith("#EN_JUEGO#")
    await sync_to_async(services.make_move)(
        game_id=game.pk, player=bob, move_number=2, move="e5"
    )
    assert (await watcher.line()).startswith("#OK#B#")
    await socket.send_json_to({"type": "move", "number": 3, "move": "g4"})
    assert (await watcher.line()).startswith("#OK#N#")
    await sync_to_async(services.make_move)(
        game_id=game.pk, player=bob, move_number=4, move="Qh4#"
    )
    assert (await watcher.line()).endswith("#JAQUE_MATE#")
    assert await watcher.line() == "#FIN#GANADOR_N#"
    assert await watcher.ask("#HISTORIAL#" + game.public_id + "#") == "#OK#f3#e5#g4#Qh4++#"
    await socket.disconnect()
    await watcher.close()


async def test_a_draw_agreed_elsewhere_ends_the_game_with_tablas(gateway, alice, bob, game):
    watcher = await AsyncLines.open(gateway.port)
    await watcher.ask("#CLAVE#s3cr3t#")
    await watcher.ask(f"#OBSERVAR#{game.public_id}#")
    await sync_to_async(services.offer_draw)(game_id=game.pk, player=alice)
    await sync_to_async(services.answer_draw)(game_id=game.pk, player=bob, accept=True)
    # The offer says nothing on this protocol; the agreement ends the game.
    assert await watcher.line() == "#FIN#TABLAS#"
    await watcher.close()


async def test_a_player_who_runs_out_of_time_loses_and_both_are_told(gateway):
    alice, bob = await AsyncLines.open(gateway.port), await AsyncLines.open(gateway.port)
    for client, name, colour in ((alice, "Alice", "B"), (bob, "Bob", "N")):
        assert await client.ask("#CLAVE#s3cr3t#") == "#OK#"
        assert await client.ask(f"#INSCRIBIR#{name}#1#") == f"#OK#{colour}#"
    assert await bob.line() == await alice.line() == f"#INICIO#B#{START}#"
    assert (await alice.ask("#MOVIMIENTO#Alice#e4#")).startswith("#OK#N#")
    assert (await bob.line()).startswith("#OK#N#")
    assert (await bob.ask("#MOVIMIENTO#Bob#e5#")).startswith("#OK#B#")
    assert (await alice.line()).startswith("#OK#B#")
    game = await sync_to_async(Game.objects.get)()
    assert game.days_per_move == 1
    # White's day passes without a move: the sweep (any process's) ends the game.
    assert await sync_to_async(services.expire_due_games)(now=game.deadline) == 1
    for client in (alice, bob):
        assert await client.line() == "#FIN#GANADOR_N#"
    await sync_to_async(game.refresh_from_db)()
    assert (game.result, game.termination) == ("0-1", "timeout")
    for client in (alice, bob):
        await client.close()
