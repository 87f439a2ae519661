"""A player's own pages (``ws/player/``), the live lobby (``ws/lobby/``) and the open
challenges' page (``ws/seeks/``)."""

from __future__ import annotations

from typing import Any

from games import state
from games.consumers.base import ListeningConsumer
from games.events import LOBBY_GROUP, SEEKS_GROUP, player_group


class PlayerConsumer(ListeningConsumer):
    """A player's own pages (the dashboard): events of their games and challenges."""

    database_free_handlers = frozenset(
        {"account_closed", "game_event", "challenge_event", "notifications_count",
         "tournament_event", "seek_event"}
    )

    async def join(self) -> None:
        await self.join_groups([player_group(self.user.pk)], player=self.user.get_username())

    async def game_event(self, event: dict[str, Any]) -> None:
        await self.send(text_data=state.frame_text(event, state.DASHBOARD))

    async def challenge_event(self, event: dict[str, Any]) -> None:
        await self.send_json(state.dashboard_frame(event, kind="challenge"))

    async def tournament_event(self, event: dict[str, Any]) -> None:
        # A round of the player's event began: their games are new; the page refetches.
        await self.send_json(
            {"type": "event", "event": event["event"], "tournament": event["tournament"]}
        )

    async def seek_event(self, event: dict[str, Any]) -> None:
        # An open challenge was made, taken or cancelled: the page fetches its list again.
        await self.send_json({"type": "event", "event": event["event"], "seek": event["seek"]})

    async def notifications_count(self, event: dict[str, Any]) -> None:
        # The bell: the count is read once after the commit (games.notifications).
        frame = {"type": "notifications", "unread": event["unread"]}
        if "id" in event:
            frame.update(id=event["id"], game=event["game"])
        await self.send_json(frame)


class LobbyConsumer(PlayerConsumer):
    """The live lobby's page: told of every game's events (the page then fetches its
    list again), never of anyone's challenges."""

    async def join(self) -> None:
        await self.join_groups([LOBBY_GROUP], player=self.user.get_username())


class SeeksConsumer(PlayerConsumer):
    """The open challenges' page: told whenever one is made, taken or cancelled (the
    page then fetches its list again); its player's own events come too, so that the
    maker of a seek sees its game start."""

    async def join(self) -> None:
        await self.join_groups(
            [SEEKS_GROUP, player_group(self.user.pk)], player=self.user.get_username()
        )
