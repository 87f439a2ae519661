"""Live events of games and challenges: published to the channel layer after commit.

Groups: ``game-<id>`` (everyone watching a game) and ``player-<id>`` (a player's pages,
for challenges and their games). Each game event carries the game's ``version`` so a
client that reconnects can tell what it missed. What an event says is built by the read
model (:mod:`games.state`), once per event.
"""

from __future__ import annotations

import copy
from typing import Any

from accounts.events import publish_on_commit
from games import state
from games.models import Challenge, Game


def game_group(game_id: int) -> str:
    return f"game-{game_id}"


def player_group(user_id: int) -> str:
    return f"player-{user_id}"


def publish_game_event(game: Game, event: str, **extra: Any) -> None:
    """After commit, tell the game's watchers and both players what happened."""
    # The message is built after the commit (its legal destinations and claimable draw
    # are read-model work, kept out of the write transaction) from the game as this
    # change left it, even if the caller's object changes again before the commit.
    as_changed = copy.copy(game)
    groups = [game_group(game.pk), player_group(game.white_id), player_group(game.black_id)]
    publish_on_commit(groups, lambda: state.event_message(as_changed, event, **extra))


def publish_challenge_event(challenge: Challenge, event: str) -> None:
    """After commit, tell both players about a challenge that was made or answered."""
    message = {
        "type": "challenge.event",
        "event": event,
        "challenge": state.challenge_state(challenge),
    }
    groups = [player_group(challenge.challenger_id), player_group(challenge.challenged_id)]
    publish_on_commit(groups, lambda: message)
