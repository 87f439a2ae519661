"""A game's live page (``ws/games/<id>/``): players act on it, anyone logged in watches.

Every game event carries the game's ``version`` (one more per state change). A page
applies an event only when it is the next version; on a gap it sends ``sync`` and gets
a snapshot of everything after what it has, so a reconnecting page misses nothing and
doubles nothing.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from typing import Any
from urllib.parse import parse_qs

from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from django.utils.translation import gettext as _

from games import errors, selectors, services, state, watchers
from games.consumers.base import CLOSE_NOT_FOUND, LimitedJsonConsumer, error_frame
from games.events import game_group, game_players_group
from games.state import analysis as analysis_state

# One log name for every consumer module, the one operators and log filters know.
logger = logging.getLogger("games.consumers")


class InvalidField(Exception):
    """A message's field is missing or of the wrong kind: raised before any service call,
    so that only the message's own faults are reported as such."""

    def __init__(self, field: str) -> None:
        super().__init__(field)
        self.field = field


# Far beyond any real game's half-moves, and within every database's integer column.
MAX_NUMBER = 100_000
# The spectator count is told at most once per this many seconds per game and process:
# told on every arrival, a thousand watchers joining queued a million frames, and the
# first move after them reached every page, its players' too, seconds late
# (docs/benchmarks.md, "fan-out").
WATCHERS_COUNT_EVERY = 0.25
# Games whose count is due to be told, per event loop (each test has its own).
_counts_due: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, set[int]] = (
    weakref.WeakKeyDictionary()
)
_count_tasks: set[asyncio.Task[None]] = set()


def _int_field(message: dict[str, Any], name: str, *, required: bool = True) -> int | None:
    value = message.get(name)
    if value is None and not required:
        return None
    # bool is an int in Python: refuse it, it is never a move number.
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= MAX_NUMBER:
        raise InvalidField(name)
    return value


# A move in SAN or UCI is at most 7 characters (``exd8=Q+``); the service judges the text.
MAX_MOVE_TEXT = 10


async def _tell_count(layer: Any, game_id: int, due: set[int]) -> None:
    try:
        await asyncio.sleep(WATCHERS_COUNT_EVERY)
    finally:
        due.discard(game_id)
    count = await sync_to_async(watchers.count)(game_id)
    message = {"type": "watchers.count", "count": count}
    for group in (game_players_group(game_id), game_group(game_id)):
        await layer.group_send(group, message)


class GameConsumer(LimitedJsonConsumer):
    """One game's page: players act on it, anyone logged in may watch."""

    game_id: int
    is_player: bool
    group: str
    database_free_handlers = frozenset(
        {"account_closed", "game_event", "watchers_count", "chat_message", "chat_deleted"}
    )
    counted = False

    async def join(self) -> None:
        self.game_id = int(self.scope["url_route"]["kwargs"]["game_id"])
        try:
            game = await database_sync_to_async(selectors.game)(self.game_id)
        except errors.GameNotFound:
            await self.refuse(CLOSE_NOT_FOUND)
            return
        self.is_player = game.colour_of(self.user.pk) is not None
        # The players' pages have a group of their own, sent each event before the
        # watchers' group: a player never waits behind the spectators.
        if self.is_player:
            self.group = game_players_group(self.game_id)
        else:
            self.group = game_group(self.game_id)
        # Join before reading the snapshot: an event published in between is then both
        # in the snapshot and queued, and the page drops the copy by its version.
        await self.channel_layer.group_add(self.group, self.channel_name)
        self.joined = True
        await self.accept()
        # A page that reconnects says how many moves it has (``?after=n``) and gets only
        # the rest; a new page gets them all.
        query = parse_qs(self.scope.get("query_string", b"").decode("latin-1"))
        try:
            after = max(0, int(query.get("after", ["0"])[0]))
        except ValueError:
            after = 0
        await self.send_snapshot(after=after)
        if not self.is_player:
            # Counted once its snapshot is out: every page of the game (this one too,
            # through the group) then hears how many watch. The page shows the count
            # it was rendered with until then.
            self.counted = True
            await sync_to_async(watchers.joined)(self.game_id)
            self._tell_watchers()

    async def leave(self) -> None:
        if getattr(self, "joined", False):
            await self.channel_layer.group_discard(self.group, self.channel_name)
        if self.counted:
            self.counted = False
            await sync_to_async(watchers.left)(self.game_id)
            self._tell_watchers()

    def _tell_watchers(self) -> None:
        """Every page of the game shows how many watch it: the count as it stands a
        moment after the first arrival or departure, once for all of that moment's."""
        loop = asyncio.get_running_loop()
        due = _counts_due.setdefault(loop, set())
        if self.game_id in due:
            return
        due.add(self.game_id)
        task = loop.create_task(_tell_count(self.channel_layer, self.game_id, due))
        _count_tasks.add(task)
        task.add_done_callback(_count_tasks.discard)

    async def watchers_count(self, event: dict[str, Any]) -> None:
        await self.send_json({"type": "watchers", "count": event["count"]})

    async def chat_message(self, event: dict[str, Any]) -> None:
        """A chat message of a room this page reads (:mod:`games.chat` chose the group)."""
        await self.send_json({"type": "chat", **event["message"]})

    async def chat_deleted(self, event: dict[str, Any]) -> None:
        await self.send_json({"type": "chat_deleted", "id": event["id"]})

    async def send_snapshot(self, *, after: int) -> None:
        def read() -> dict[str, Any]:
            return state.snapshot(
                selectors.game(self.game_id), viewer_id=self.user.pk, after=after
            )

        await self.send_json(await database_sync_to_async(read)())

    async def handle(self, message: dict[str, Any]) -> None:
        kind = message["type"]
        handler = {
            "move": self.do_move,
            "draw_offer": self.do_draw_offer,
            "draw_answer": self.do_draw_answer,
            "resign": self.do_resign,
            "claim_draw": self.do_claim_draw,
            "sync": self.do_sync,
            "analysis": self.do_analysis,
        }.get(kind)
        if handler is None:
            await self.send_json(
                error_frame("unknown_type", _("Unknown message type “%(type)s”.") % {"type": kind})
            )
            return
        # The error boundary: the message's own faults (found before any service call)
        # and domain errors are answered as such; anything else is a bug of ours, logged
        # with its traceback and answered as an internal error, never as bad input.
        try:
            await handler(message)
        except InvalidField as exc:
            await self.send_json(
                error_frame(
                    "invalid_message",
                    _("Missing or invalid field “%(field)s”.") % {"field": exc.field},
                    action=kind,
                )
            )
        except errors.DomainError as error:
            await self.send_json({"type": "error", "action": kind, **error.as_dict()})
        except Exception:
            logger.exception(
                "game socket action failed: game=%s user=%s action=%s",
                self.game_id, self.user.pk, kind,
            )
            await self.send_json(
                error_frame(
                    "internal_error",
                    _("The server could not complete this; nothing changed. Try again."),
                    action=kind,
                )
            )

    async def act(self, kind: str, service: Any, **kwargs: Any) -> None:
        game = await database_sync_to_async(service)(
            game_id=self.game_id, player=self.user, **kwargs
        )
        await self.send_json({"type": "ack", "action": kind, "version": game.version})

    async def do_move(self, message: dict[str, Any]) -> None:
        number = _int_field(message, "number")
        text = message.get("move")
        if not isinstance(text, str) or not text.strip() or len(text) > MAX_MOVE_TEXT:
            raise InvalidField("move")
        await self.act("move", services.make_move, move_number=number, move=text)

    async def do_draw_offer(self, message: dict[str, Any]) -> None:
        await self.act("draw_offer", services.offer_draw)

    async def do_draw_answer(self, message: dict[str, Any]) -> None:
        accept = message.get("accept")
        if not isinstance(accept, bool):
            raise InvalidField("accept")
        await self.act("draw_answer", services.answer_draw, accept=accept)

    async def do_resign(self, message: dict[str, Any]) -> None:
        await self.act("resign", services.resign)

    async def do_claim_draw(self, message: dict[str, Any]) -> None:
        await self.act("claim_draw", services.claim_draw)

    async def do_sync(self, message: dict[str, Any]) -> None:
        _int_field(message, "version")
        after = _int_field(message, "after", required=False) or 0
        await self.send_snapshot(after=after)

    async def do_analysis(self, message: dict[str, Any]) -> None:
        """Ask for the game's computer analysis (anyone who sees the game may): refused
        while the game is in progress, as at every door. The page follows its progress
        by polling (games.analysis_views)."""

        def ask() -> dict[str, Any]:
            services.request_analysis(game_id=self.game_id, player=self.user)
            return analysis_state.analysis_state(selectors.game(self.game_id))

        shown = await database_sync_to_async(ask)()
        await self.send_json({"type": "analysis", **shown})

    async def game_event(self, event: dict[str, Any]) -> None:
        """Relay an event of :mod:`games.events`: the read model built and serialized its
        frames once for every socket; a player's shows the claimable draw, a watcher's
        does not."""
        audience = state.PLAYER if self.is_player else state.WATCHER
        await self.send(text_data=state.frame_text(event, audience))
