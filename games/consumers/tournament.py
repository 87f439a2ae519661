"""An event's page (``ws/tournaments/<id>/``): told whenever its tables change (a game
ended, a round began, a player withdrew), so that it fetches its crosstables again."""

from __future__ import annotations

from typing import Any

from channels.db import database_sync_to_async

from games import errors
from games.consumers.base import CLOSE_NOT_FOUND, ListeningConsumer
from games.events import tournament_group
from games.state import tournaments as tournament_state


class TournamentConsumer(ListeningConsumer):
    database_free_handlers = frozenset({"account_closed", "tournament_event"})

    async def join(self) -> None:
        tournament_id = int(self.scope["url_route"]["kwargs"]["tournament_id"])
        try:
            await database_sync_to_async(tournament_state.tournament)(tournament_id)
        except errors.TournamentNotFound:
            await self.refuse(CLOSE_NOT_FOUND)
            return
        await self.join_groups([tournament_group(tournament_id)], tournament=tournament_id)

    async def tournament_event(self, event: dict[str, Any]) -> None:
        # The page fetches its tables again on any "event" frame (live-dashboard.js).
        await self.send_json(
            {"type": "event", "event": event["event"], "tournament": event["tournament"]}
        )
