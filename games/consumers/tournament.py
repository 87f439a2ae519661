"""An event's page (``ws/tournaments/<id>/``): told whenever its tables change (a game
ended, a round began, a player withdrew), so that it fetches its crosstables again."""

from __future__ import annotations

from typing import Any

from channels.db import database_sync_to_async
from django.utils.translation import gettext as _

from games import errors
from games.consumers.base import CLOSE_NOT_FOUND, LimitedJsonConsumer, error_frame
from games.events import tournament_group
from games.state import tournaments as tournament_state


class TournamentConsumer(LimitedJsonConsumer):
    database_free_handlers = frozenset({"account_closed", "tournament_event"})

    async def join(self) -> None:
        tournament_id = int(self.scope["url_route"]["kwargs"]["tournament_id"])
        try:
            await database_sync_to_async(tournament_state.tournament)(tournament_id)
        except errors.TournamentNotFound:
            await self.refuse(CLOSE_NOT_FOUND)
            return
        self.group = tournament_group(tournament_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        self.joined = True
        await self.accept()
        await self.send_json({"type": "hello", "tournament": tournament_id})

    async def leave(self) -> None:
        if getattr(self, "joined", False):
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def handle(self, message: dict[str, Any]) -> None:
        if message["type"] == "ping":
            await self.send_json({"type": "pong"})
            return
        await self.send_json(
            error_frame(
                "unknown_type", _("Unknown message type “%(type)s”.") % {"type": message["type"]}
            )
        )

    async def tournament_event(self, event: dict[str, Any]) -> None:
        # The page fetches its tables again on any "event" frame (live-dashboard.js).
        await self.send_json(
            {"type": "event", "event": event["event"], "tournament": event["tournament"]}
        )
