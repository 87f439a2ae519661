"""Frames no honest page sends, against a real Daphne: each gets its typed error and a
clean close, and the server logs no traceback."""

from __future__ import annotations

import asyncio
import json

import pytest
import websockets
from asgiref.sync import sync_to_async
from django.conf import settings
from django.test import Client

from games import consumers

pytestmark = pytest.mark.django_db(transaction=True)

TIMEOUT = 15.0


def cookie_for(user) -> str:
    client = Client()
    client.force_login(user)
    name = settings.SESSION_COOKIE_NAME
    return f"{name}={client.cookies[name].value}"


async def open_socket(server, game_id: int, cookie: str) -> websockets.ClientConnection:
    ws = await websockets.connect(
        f"ws://127.0.0.1:{server.port}/ws/games/{game_id}/",
        origin=f"http://127.0.0.1:{server.port}",
        additional_headers={"Cookie": cookie},
        open_timeout=TIMEOUT,
        max_size=None,
    )
    assert json.loads(await asyncio.wait_for(ws.recv(), TIMEOUT))["type"] == "snapshot"
    return ws


async def frames_until_closed(ws: websockets.ClientConnection) -> tuple[list[dict], int | None]:
    frames = []
    try:
        while True:
            frames.append(json.loads(await asyncio.wait_for(ws.recv(), TIMEOUT)))
    except websockets.ConnectionClosed as closed:
        return frames, closed.rcvd.code if closed.rcvd else None


def tracebacks(log: str) -> int:
    return log.count("Traceback")


async def test_an_oversized_frame_gets_its_error_and_a_clean_close(daphne, game, alice):
    server = daphne()
    ws = await open_socket(server, game.pk, await sync_to_async(cookie_for)(alice))
    await ws.send(json.dumps({"type": "move", "number": 1, "move": "e4", "pad": "x" * 9000}))
    frames, code = await frames_until_closed(ws)
    assert [f["code"] for f in frames] == ["frame_too_large"]
    assert code == consumers.CLOSE_FRAME_TOO_LARGE
    await asyncio.sleep(0.5)
    assert tracebacks(server.log()) == 0, server.log()[-3000:]
    assert not await game.moves.aexists()


async def test_deeply_nested_json_is_malformed_and_the_socket_goes_on(daphne, game, alice):
    server = daphne()
    ws = await open_socket(server, game.pk, await sync_to_async(cookie_for)(alice))
    await ws.send("[" * 3000 + "]" * 3000)
    reply = json.loads(await asyncio.wait_for(ws.recv(), TIMEOUT))
    assert reply["code"] == "malformed_json"
    # The socket still serves: a sync gets its snapshot.
    await ws.send(json.dumps({"type": "sync", "version": 0}))
    assert json.loads(await asyncio.wait_for(ws.recv(), TIMEOUT))["type"] == "snapshot"
    await ws.close()
    await asyncio.sleep(0.5)
    assert tracebacks(server.log()) == 0, server.log()[-3000:]
