"""Live game sockets across processes on the Redis channel layer: Daphne in a subprocess
on the test database, browsers' sockets over loopback, moves published by this process.

The first test is the scale-out failure these settings fix: with redis-py 8 an idle
consumer's blocking read of the layer timed out and the socket closed with 1011. The
second is what makes any drop harmless: a page that reconnects gets what it missed.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
import websockets
from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from channels_redis.core import RedisChannelLayer
from django.conf import settings
from django.test import Client

from games import services
from tests.servers import DaphneProcess

pytestmark = [pytest.mark.redis, pytest.mark.django_db(transaction=True)]

# The database calls below go through database_sync_to_async, which closes the thread's
# connection after each call: on PostgreSQL a connection left open in that thread would
# keep the test database from being dropped.

ROOT = Path(__file__).resolve().parents[2]

# Three of the layer's blocking pops (5 s each): with the socket timeout equal to the
# pop, the first idle socket closed after one and one more after each further pop.
IDLE_SECONDS = 3 * RedisChannelLayer.brpop_timeout
# Only there so that a broken server fails the test instead of hanging it.
FRAME_TIMEOUT = 15.0


def cookie_for(user) -> str:
    client = Client()
    client.force_login(user)
    name = settings.SESSION_COOKIE_NAME
    return f"{name}={client.cookies[name].value}"


@pytest.fixture
def cookies(alice, bob, carol) -> dict[str, str]:
    return {u.username: cookie_for(u) for u in (alice, bob, carol)}


async def open_game_socket(
    server: DaphneProcess, game_id: int, cookie: str, *, after: int = 0
) -> tuple[websockets.ClientConnection, dict]:
    """Open a game's socket as its page does and return it with the snapshot it sends."""
    ws = await websockets.connect(
        f"ws://127.0.0.1:{server.port}/ws/games/{game_id}/?after={after}",
        origin=f"http://127.0.0.1:{server.port}",
        additional_headers={"Cookie": cookie},
        # No keep-alive pings: the socket must be really idle.
        ping_interval=None,
        open_timeout=FRAME_TIMEOUT,
    )
    snapshot = await next_frame(ws)
    assert snapshot["type"] == "snapshot"
    return ws, snapshot


async def next_frame(ws: websockets.ClientConnection) -> dict:
    """The next frame about the game itself: spectator counts (``watchers``), which
    arrive whenever a watcher comes or goes, are passed over."""
    while True:
        try:
            frame = json.loads(await asyncio.wait_for(ws.recv(), FRAME_TIMEOUT))
        except websockets.ConnectionClosed as closed:
            code = closed.rcvd.code if closed.rcvd else None
            raise AssertionError(f"the server closed the socket (code {code})") from None
        if frame.get("type") != "watchers":
            return frame


async def test_idle_sockets_outlive_the_layers_blocking_pop_and_each_gets_the_next_move(
    game, alice, cookies, daphne
):
    server = await sync_to_async(daphne)()
    pages = [
        await open_game_socket(server, game.pk, cookies[name])
        for name in ("alice", "alice", "bob", "bob", "carol")
    ]
    await asyncio.sleep(IDLE_SECONDS)
    await database_sync_to_async(services.make_move)(
        game_id=game.pk, player=alice, move_number=1, move="e4"
    )
    for ws, snapshot in pages:
        event = await next_frame(ws)
        assert (event["type"], event["version"]) == ("event", snapshot["version"] + 1)
        assert event["move"]["san"] == "e4"
    for ws, _ in pages:
        await ws.close()


async def test_a_page_reconnecting_after_a_server_drop_gets_exactly_the_moves_it_missed(
    game, alice, bob, cookies, play, daphne
):
    await database_sync_to_async(play)(game, "e4", "e5")
    server = await sync_to_async(daphne)()
    ws, held = await open_game_socket(server, game.pk, cookies["bob"])
    held_moves = [m["number"] for m in held["moves"]]
    assert held_moves == [1, 2]

    await sync_to_async(server.kill)()
    with pytest.raises(websockets.ConnectionClosed):
        await asyncio.wait_for(ws.recv(), FRAME_TIMEOUT)
    # Played while the page has no socket.
    await database_sync_to_async(play)(game, "Nf3", "Nc6", "Bb5")

    # The page reconnects (here to another server process) saying what it holds.
    other = await sync_to_async(daphne)()
    ws, snapshot = await open_game_socket(other, game.pk, cookies["bob"], after=len(held_moves))
    assert snapshot["after"] == 2
    assert [(m["number"], m["san"]) for m in snapshot["moves"]] == [
        (3, "Nf3"),
        (4, "Nc6"),
        (5, "Bb5"),
    ]
    assert snapshot["version"] == held["version"] + 3

    # Live events go on from there: the next move once, as the next version.
    await database_sync_to_async(services.make_move)(
        game_id=game.pk, player=bob, move_number=6, move="a6"
    )
    event = await next_frame(ws)
    assert (event["version"], event["move"]["number"]) == (snapshot["version"] + 1, 6)
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(ws.recv(), 1.0)
    await ws.close()
