"""Live game events and the frames each kind of socket sends for them: built once per
event, never per socket."""

from __future__ import annotations

import json
from typing import Any

from games.models import Game
from games.state.game import (
    claimable_draw,
    destinations,
    game_ratings,
    game_state,
    vacation_state,
)

# Who a game event's frame is for: the game page of one of its players, the game page
# of anyone else, a player's dashboard.
PLAYER, WATCHER, DASHBOARD = "player", "watcher", "dashboard"


def event_message(game: Game, event: str, **extra: Any) -> dict[str, Any]:
    """A game event as the channel layer carries it, with everything every socket needs:
    what happened (``event``, ``version``, ``game``, ``dests``, ``claimable``, ``away`` and the
    ``extra`` fields, such as the ``move``) and, under ``frames``, the JSON text each kind
    of socket sends (:data:`PLAYER`, :data:`WATCHER`, :data:`DASHBOARD`).

    Built once per event (after the commit: see :mod:`games.events`), never per socket:
    with a thousand watchers, per-socket work is what made a move slow to arrive.
    """
    content = {
        "type": "game.event",
        "event": event,
        "version": game.version,
        "game": game_state(game),
        "dests": destinations(game),
        "claimable": claimable_draw(game),
        # Every event says who is away: the page's badges follow it (a vacation's start
        # and end are events of the player's games, games.services.vacations).
        "away": vacation_state(game),
        **extra,
    }
    if not game.is_active:
        # The ending changed both ratings: the pages show the change at once.
        content["ratings"] = game_ratings(game)
    frames = {
        PLAYER: json.dumps(frame_for(content, is_player=True)),
        WATCHER: json.dumps(frame_for(content, is_player=False)),
        DASHBOARD: json.dumps(dashboard_frame(content, kind="game")),
    }
    return {**content, "frames": frames}


def frame_text(message: dict[str, Any], audience: str) -> str:
    """The frame a socket of ``audience`` sends for the game event ``message``."""
    return message["frames"][audience]


def frame_for(message: dict[str, Any], *, is_player: bool) -> dict[str, Any]:
    """A game event as one game page's socket receives it: the claim is the players'."""
    frame = {k: v for k, v in message.items() if k != "frames"}
    frame["type"] = "event"
    if not is_player:
        frame["claimable"] = None
    return frame


def dashboard_frame(message: dict[str, Any], *, kind: str) -> dict[str, Any]:
    """An event as a player's own pages (the dashboard) receive it: no board details."""
    frame = {k: v for k, v in message.items() if k not in ("dests", "claimable", "frames")}
    frame.update(type="event", kind=kind)
    return frame
