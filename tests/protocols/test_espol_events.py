"""Across front doors: a move over TCP reaches the channel layer and the browsers' sockets,
and a move made in a browser's socket (or through the service layer) is seen over TCP.

The server here runs on the test's own event loop, as ``manage.py serve`` runs it beside
Daphne: with the in-memory channel layer that is the only way the two doors meet.
"""

from __future__ import annotations

import asyncio

import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.test import Client

from ajedrez.asgi import application
from games import services
from games.models import Move
from legacy_tcp.espol.client import AsyncEspolClient, jgda
from legacy_tcp.espol.server import EspolServer
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
async def loop_server(transactional_db, espol_settings):
    server = EspolServer("127.0.0.1", 0, idle_timeout=30.0, max_connections=50)
    await server.start()
    yield server
    await server.stop(grace=2.0)


async def test_move_over_tcp_is_published_to_the_game_group(loop_server, alice, game):
    layer = get_channel_layer()
    channel = await layer.new_channel()
    await layer.group_add(f"game-{game.pk}", channel)
    client = await AsyncEspolClient.open(loop_server.port)
    await client.login("alice", PASSWORD)
    assert (await client.send(jgda(game.public_id, 1, "e2e4"))).code == 103
    message = await asyncio.wait_for(layer.receive(channel), timeout=5)
    assert message["type"] == "game.event"
    assert message["event"] == "move"
    assert message["move"]["uci"] == "e2e4"
    assert message["version"] == game.version + 1
    await layer.group_discard(f"game-{game.pk}", channel)
    await client.close()


def session_cookie(user) -> bytes:
    client = Client()
    client.force_login(user)
    name = settings.SESSION_COOKIE_NAME
    return f"{name}={client.cookies[name].value}".encode()


async def game_socket(user, game) -> WebsocketCommunicator:
    """``user``'s browser socket on the game page, connected and past its snapshot."""
    cookie = await sync_to_async(session_cookie)(user)
    socket = WebsocketCommunicator(
        application,
        f"/ws/games/{game.pk}/",
        headers=[(b"host", b"localhost"), (b"origin", b"http://localhost"), (b"cookie", cookie)],
    )
    connected, _ = await socket.connect()
    assert connected
    assert (await socket.receive_json_from(timeout=5))["type"] == "snapshot"
    return socket


async def test_move_over_tcp_reaches_a_browser_socket_watching_the_game(
    loop_server, alice, bob, game
):
    socket = await game_socket(bob, game)
    client = await AsyncEspolClient.open(loop_server.port)
    await client.login("alice", PASSWORD)
    assert (await client.send(jgda(game.public_id, 1, "e2e4"))).code == 103
    frame = await socket.receive_json_from(timeout=5)
    assert (frame["type"], frame["event"]) == ("event", "move")
    assert frame["move"]["uci"] == "e2e4"
    assert frame["version"] == game.version + 1
    await socket.disconnect()
    await client.close()


async def test_move_made_in_a_browser_socket_is_seen_by_spar(loop_server, alice, bob, game):
    watcher = await AsyncEspolClient.open(loop_server.port)
    await watcher.login("bob", PASSWORD)
    assert (await watcher.send(f"SPAR:{game.public_id}:0")).code == 840
    socket = await game_socket(alice, game)
    await socket.send_json_to({"type": "move", "number": 1, "move": "e2e4"})
    for _ in range(5):  # the ack and the move's own event may come in either order
        frame = await socket.receive_json_from(timeout=5)
        if frame["type"] == "ack":
            break
    assert frame == {"type": "ack", "action": "move", "version": game.version + 1}
    reply = await watcher.send(f"SPAR:{game.public_id}:0")
    assert (reply.code, reply.text) == (103, "1:e2e4:0:1228:0,")
    await socket.disconnect()
    await watcher.close()


def test_move_made_through_the_service_layer_is_seen_by_spar(login, bob, game):
    client = login(bob)
    assert client.send(f"SPAR:{game.public_id}:0").code == 840
    services.make_move(game_id=game.pk, player=game.white, move_number=1, move="e4")
    reply = client.send(f"SPAR:{game.public_id}:0")
    assert (reply.code, reply.text) == (103, "1:e2e4:0:1228:0,")
    assert Move.objects.get(game=game).san == "e4"


def test_a_conditional_reply_reaches_an_old_client_as_an_ordinary_move(login, alice, bob, game):
    # Alice left a line on the web page; bob plays over ESPOL as he always has.
    services.make_move(game_id=game.pk, player=alice, move_number=1, move="e4")
    services.set_conditional_lines(
        game_id=game.pk, player=alice, move_number=2, lines=[["e5", "Nf3"]]
    )
    client = login(bob)
    assert client.send(jgda(game.public_id, 2, "e7e5")).code == 103
    reply = client.send(f"SPAR:{game.public_id}:2")
    assert (reply.code, reply.text.split(":")[:2]) == (103, ["3", "g1f3"])
    # His move after it is the next one, as after any move of hers.
    assert client.send(jgda(game.public_id, 4, "b8c6")).code == 103
    assert list(Move.objects.filter(game=game).values_list("uci", flat=True)) == [
        "e2e4", "e7e5", "g1f3", "b8c6",
    ]
