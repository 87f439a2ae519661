"""One session, or one address, cannot hold more than its share of a process's sockets:
the socket over the bound is closed with 4409 at once, and the others are not affected."""

from __future__ import annotations

import contextlib
import logging

import pytest
from asgiref.sync import sync_to_async

from accounts import socket_limits
from games.consumers import CLOSE_TOO_MANY_SOCKETS
from tests.web.test_consumers import communicator, cookie_for, open_game

pytestmark = pytest.mark.django_db(transaction=True)


def lobby(cookie: bytes, address: str = "127.0.0.1"):
    comm = communicator("/ws/lobby/", cookie)
    comm.scope["client"] = (address, 50000)
    return comm


async def open_lobby(cookie: bytes, address: str = "127.0.0.1"):
    comm = lobby(cookie, address)
    connected, _ = await comm.connect()
    assert connected
    return comm


async def closed_with(comm) -> int | None:
    """The close code of a socket the server closes at once, or None if it stays open."""
    connected, _ = await comm.connect()
    assert connected  # accepted first, so that the page reads the code
    frame = await comm.receive_output(timeout=5)
    return frame.get("code") if frame["type"] == "websocket.close" else None


async def test_a_session_over_its_bound_is_refused_and_another_session_is_not(
    alice, bob, settings
):
    settings.SOCKETS_PER_SESSION = 3
    settings.SOCKETS_PER_ADDRESS = 0
    flood = await sync_to_async(cookie_for)(alice)
    opened = [await open_lobby(flood) for _ in range(3)]
    try:
        assert await closed_with(lobby(flood)) == CLOSE_TOO_MANY_SOCKETS
        # bob, from the same address, is another session.
        other = await open_lobby(await sync_to_async(cookie_for)(bob))
        await other.disconnect()
        # A socket closed gives its place back.
        await opened.pop().disconnect()
        opened.append(await open_lobby(flood))
    finally:
        for comm in opened:
            await comm.disconnect()
    assert socket_limits.open_sockets(session_key=flood.decode().split("=", 1)[1]) == 0


async def test_an_address_over_its_bound_is_refused_and_another_address_is_not(
    alice, bob, carol, settings
):
    settings.SOCKETS_PER_SESSION = 0
    settings.SOCKETS_PER_ADDRESS = 2
    opened = [
        await open_lobby(await sync_to_async(cookie_for)(user), "203.0.113.7")
        for user in (alice, bob)
    ]
    try:
        carol_cookie = await sync_to_async(cookie_for)(carol)
        assert await closed_with(lobby(carol_cookie, "203.0.113.7")) == CLOSE_TOO_MANY_SOCKETS
        # An IPv6 client is counted by its /64, another address is not affected.
        elsewhere = await open_lobby(carol_cookie, "2001:db8::1")
        await elsewhere.disconnect()
    finally:
        for comm in opened:
            await comm.disconnect()
    assert socket_limits.open_sockets(host="203.0.113.7") == 0


async def test_game_and_player_sockets_count_too(alice, game, settings):
    settings.SOCKETS_PER_SESSION = 2
    cookie = await sync_to_async(cookie_for)(alice)
    first, _ = await open_game(game.pk, cookie)
    player = communicator("/ws/player/", cookie)
    connected, _ = await player.connect()
    assert connected
    try:
        assert await closed_with(communicator(f"/ws/games/{game.pk}/", cookie)) == (
            CLOSE_TOO_MANY_SOCKETS
        )
    finally:
        await first.disconnect()
        await player.disconnect()


async def test_a_flood_is_logged_once_not_once_per_socket(alice, settings, caplog):
    settings.SOCKETS_PER_SESSION = 1
    cookie = await sync_to_async(cookie_for)(alice)
    kept = await open_lobby(cookie, "198.51.100.9")
    try:
        with caplog.at_level(logging.WARNING, logger="ajedrez.sockets"):
            for _ in range(20):
                assert await closed_with(lobby(cookie, "198.51.100.9")) == (
                    CLOSE_TOO_MANY_SOCKETS
                )
    finally:
        with contextlib.suppress(Exception):
            await kept.disconnect()
    records = [r for r in caplog.records if r.name == "ajedrez.sockets"]
    assert len(records) == 1, [r.getMessage() for r in records]
