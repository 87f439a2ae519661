"""One session, or one address, cannot hold more than its share of a process's sockets:
the socket over the bound is closed with 4409 at once, and the others are not affected.
A socket counts from its handshake's arrival, before authentication."""

from __future__ import annotations

import asyncio
import contextlib
import logging

import channels.auth
import pytest
from asgiref.sync import sync_to_async

from accounts import socket_limits
from games.consumers import CLOSE_TOO_MANY_SOCKETS, CLOSE_UNAUTHENTICATED
from tests.web.test_consumers import communicator, cookie_for, open_game

pytestmark = pytest.mark.django_db(transaction=True)


def open_sockets(*, session_key: str | None = None, host: str | None = None) -> int:
    """How many sockets this process counts for a session or an address."""
    if session_key is not None:
        return socket_limits._per_session[session_key]
    address = socket_limits.client_address(host)
    return socket_limits._per_address[address] if address else 0


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
    assert open_sockets(session_key=flood.decode().split("=", 1)[1]) == 0


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
    assert open_sockets(host="203.0.113.7") == 0


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


async def test_a_burst_of_handshakes_is_counted_before_authentication(alice, settings, monkeypatch):
    settings.SOCKETS_PER_SESSION = 5
    settings.SOCKETS_PER_ADDRESS = 0
    cookie = await sync_to_async(cookie_for)(alice)
    # Authentication (the session's and the user's lookup) held back until released:
    # the sockets that reached it are the ones counted.
    released = asyncio.Event()
    authenticating = 0
    real_get_user = channels.auth.get_user

    async def slow_get_user(scope):
        nonlocal authenticating
        authenticating += 1
        await released.wait()
        return await real_get_user(scope)

    monkeypatch.setattr(channels.auth, "get_user", slow_get_user)
    burst = [lobby(cookie) for _ in range(12)]
    connecting = [asyncio.ensure_future(comm.connect(timeout=30)) for comm in burst]
    try:
        # While five wait for their authentication, the other seven are refused at once,
        # without a lookup: the bound holds during the burst.
        for _ in range(200):
            if sum(connected.done() for connected in connecting) >= 7:
                break
            await asyncio.sleep(0.05)
        refused = [comm for comm, c in zip(burst, connecting, strict=True) if c.done()]
        assert len(refused) == 7
        for comm in refused:
            frame = await comm.receive_output(timeout=5)
            assert frame == {"type": "websocket.close", "code": CLOSE_TOO_MANY_SOCKETS}
        assert authenticating == 5
        assert open_sockets(session_key=cookie.decode().split("=", 1)[1]) == 5
        released.set()
        assert [connected for connected, _ in await asyncio.gather(*connecting)] == [True] * 12
        for comm in burst:
            if comm not in refused:
                assert (await comm.receive_json_from())["type"] == "hello"
    finally:
        released.set()
        await asyncio.wait(connecting, timeout=10)
        for comm in burst:
            with contextlib.suppress(Exception):
                await comm.disconnect()
    assert open_sockets(session_key=cookie.decode().split("=", 1)[1]) == 0


@pytest.mark.parametrize(
    "value",
    ["", "x" * 5000, "ñandú" * 8, "abc", "a b c d e f g h", "0123456789abcdef\x00zz", "%00" * 20],
    ids=["empty", "huge", "unicode", "short", "spaces", "nul", "escapes"],
)
async def test_a_cookie_no_session_can_have_counts_by_the_address_alone(value, settings):
    settings.SOCKETS_PER_SESSION = 1
    settings.SOCKETS_PER_ADDRESS = 5
    scope = {"headers": [(b"cookie", f"sessionid={value}".encode())]}
    assert socket_limits.handshake_session_key(scope) is None
    comm = lobby(f"sessionid={value}".encode(), "198.51.100.20")
    # Not logged in: refused as ever, and its place under the address given back.
    assert await closed_with(comm) == CLOSE_UNAUTHENTICATED
    # The server's close reaches the client, whose goodbye ends the application.
    await comm.disconnect(code=CLOSE_UNAUTHENTICATED, timeout=5)
    assert open_sockets(host="198.51.100.20") == 0


def test_the_session_key_is_read_from_the_handshakes_cookie():
    scope = {"headers": [(b"cookie", b"csrftoken=abc; sessionid=0123456789abcdefghij")]}
    assert socket_limits.handshake_session_key(scope) == "0123456789abcdefghij"
    assert socket_limits.handshake_session_key({"headers": []}) is None
