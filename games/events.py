"""Live events of games and challenges: published to the channel layer after commit.

Groups: ``game-<id>-players`` (the game pages of its two players), ``game-<id>`` (the
game pages of everyone else watching it) and ``player-<id>`` (a player's own pages, for
challenges and their games). Each game event carries the game's ``version`` so a client
that reconnects can tell what it missed. What an event says is built by the read model
(:mod:`games.state`), once per event.

The players hear of their game first: their groups are sent the event, and given a head
start (:data:`ajedrez.core.events.HEAD_START_SECONDS`), before the watchers' group is. A
player's socket is in one game group only, so it still gets every version once.
"""

from __future__ import annotations

import copy
from typing import Any

from ajedrez.core.events import publish_on_commit
from games import state
from games.models import Challenge, Game, Seek


def game_group(game_id: int) -> str:
    """The game pages of everyone watching the game but its players."""
    return f"game-{game_id}"


def game_players_group(game_id: int) -> str:
    """The game pages of the game's two players."""
    return f"game-{game_id}-players"


def player_group(user_id: int) -> str:
    return f"player-{user_id}"


# The live lobby's pages: every game's events, after its players and watchers.
LOBBY_GROUP = "lobby"


def publish_game_event(game: Game, event: str, **extra: Any) -> None:
    """After commit, tell both players what happened, then the game's watchers."""
    # The message is built after the commit (its legal destinations and claimable draw
    # are read-model work, kept out of the write transaction) from the game as this
    # change left it, even if the caller's object changes again before the commit.
    as_changed = copy.copy(game)
    players = [
        game_players_group(game.pk),
        player_group(game.white_id),
        player_group(game.black_id),
    ]
    publish_on_commit(
        players,
        lambda: state.event_message(as_changed, event, **extra),
        then=[game_group(game.pk), LOBBY_GROUP],
    )


def publish_challenge_event(challenge: Challenge, event: str) -> None:
    """After commit, tell both players about a challenge that was made or answered."""
    message = {
        "type": "challenge.event",
        "event": event,
        "challenge": state.challenge_state(challenge),
    }
    groups = [player_group(challenge.challenger_id), player_group(challenge.challenged_id)]
    publish_on_commit(groups, lambda: message)


# The open challenges' page (the lobby's seeks): told when one is made, taken or cancelled.
SEEKS_GROUP = "seeks"


def publish_seek_event(seek: Seek, event: str) -> None:
    """After commit, tell the seeks' pages (which fetch their list again) and the
    maker's own pages that an open challenge was made, taken or cancelled."""
    message = {"type": "seek.event", "event": event, "seek": seek.short_id}
    publish_on_commit([SEEKS_GROUP, player_group(seek.maker_id)], lambda: message)


def tournament_group(tournament_id: int) -> str:
    """The pages of an event (its crosstables): told when its table changes."""
    return f"tournament-{tournament_id}"


def publish_tournament_event(tournament_id: int, event: str) -> None:
    """After commit, tell the event's pages that its table changed (a game ended, a
    round began, a player withdrew); they fetch the table again."""
    message = {"type": "tournament.event", "event": event, "tournament": tournament_id}
    publish_on_commit([tournament_group(tournament_id)], lambda: message)


def publish_round_started(tournament_id: int, player_ids: list[int]) -> None:
    """After commit, tell the event's pages, its players' pages and the lobby, all in
    one message, that a round's games have started: one send for the whole round rather
    than one per game (450 of them started together took two seconds to announce)."""
    message = {"type": "tournament.event", "event": "round_started", "tournament": tournament_id}
    groups = [tournament_group(tournament_id), *map(player_group, player_ids), LOBBY_GROUP]
    publish_on_commit(groups, lambda: message)
