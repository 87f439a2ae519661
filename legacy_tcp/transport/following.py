"""Gateways whose connections follow games live: one channel-layer channel per server,
added to the ``game-<id>`` group of each game a connection follows, and each event
turned into the protocol's own lines, as a browser's socket turns it into JSON.

A connection's session has ``game_id`` (the game followed), ``version`` (the last
version of it the connection was told of: the reply to its own action and that
action's event are not both sent) and ``closed``.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from channels.layers import DEFAULT_CHANNEL_LAYER, InMemoryChannelLayer, channel_layers

from games.events import game_group
from legacy_tcp.transport.connection import Connection
from legacy_tcp.transport.server import LineServer


class FollowingServer(LineServer):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Game id → the connections following it.
        self.followers: dict[int, set[Connection]] = {}
        self._layer: Any = None
        self._channel = ""
        self._receiver: asyncio.Task | None = None
        self._deliveries: set[asyncio.Task] = set()

    async def event_data(self, conn: Connection, message: dict[str, Any]) -> bytes:
        """What the game event ``message`` says to ``conn`` (b"": nothing)."""
        raise NotImplementedError

    async def game_over(self, conn: Connection) -> None:
        """The followed game has ended (told by an event)."""

    async def start(self) -> None:
        await super().start()
        self._layer = self._own_layer()
        if self._layer is not None:
            self._channel = await self._layer.new_channel(prefix=f"{self.name}.")
            self._receiver = asyncio.get_running_loop().create_task(self._receive_events())

    async def stop(self, grace: float = 10.0) -> None:
        await super().stop(grace)
        if self._receiver is not None:
            self._receiver.cancel()
            # Bounded: a Redis layer's receive may finish its own read before it stops.
            await asyncio.wait([self._receiver], timeout=2.0)
            self._receiver = None
        close = getattr(self._layer, "close_pools", None)
        if close is not None and self._layer is not channel_layers[DEFAULT_CHANNEL_LAYER]:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(close(), timeout=2.0)

    @staticmethod
    def _own_layer() -> Any:
        """The channel layer this server receives on. Over Redis, an instance of its own:
        a Redis layer instance receives on one event loop only, and the process's shared
        one may be receiving elsewhere (the web's consumers, another gateway). The
        in-memory layer is the process's one instance, which is where events are sent."""
        if DEFAULT_CHANNEL_LAYER not in channel_layers.configs:
            return None
        shared = channel_layers[DEFAULT_CHANNEL_LAYER]
        if isinstance(shared, InMemoryChannelLayer):
            return shared
        return channel_layers.make_backend(DEFAULT_CHANNEL_LAYER)

    async def follow(self, conn: Connection, game_id: int) -> None:
        followers = self.followers.setdefault(game_id, set())
        if not followers and self._layer is not None:
            await self._layer.group_add(game_group(game_id), self._channel)
        followers.add(conn)

    async def unfollow(self, conn: Connection, game_id: int) -> None:
        followers = self.followers.get(game_id)
        if followers is None:
            return
        followers.discard(conn)
        if not followers:
            del self.followers[game_id]
            if self._layer is not None:
                await self._layer.group_discard(game_group(game_id), self._channel)

    async def _receive_events(self) -> None:
        """Relay the channel layer's game events to the connections following each game."""
        while True:
            try:
                message = await self._layer.receive(self._channel)
            except asyncio.CancelledError:
                raise
            except Exception:
                self.log.exception("%s.events_failed", self.name)
                await asyncio.sleep(1.0)
                continue
            if message.get("type") != "game.event":
                continue
            for conn in list(self.followers.get(message["game"]["id"], ())):
                # One task per connection: a client slow to read delays only itself. The
                # lock is first come, first served, so its events keep their order.
                task = asyncio.get_running_loop().create_task(self._deliver(conn, message))
                self._deliveries.add(task)
                task.add_done_callback(self._deliveries.discard)

    async def _deliver(self, conn: Connection, message: dict[str, Any]) -> None:
        session = conn.session
        async with conn.lock:
            if (
                session.closed
                or session.game_id != message["game"]["id"]
                or message["version"] <= session.version
            ):
                return
            session.version = message["version"]
            try:
                data = await self.event_data(conn, message)
                if data:
                    await self._send(conn, data)
            except Exception:
                conn.writer.transport.abort()
                return
            if message["game"]["status"] != "active":
                await self.game_over(conn)
