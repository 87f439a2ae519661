"""Real-time events: published to the channel layer only after the write commits.

Groups: ``game-<id>`` (everyone watching a game), ``player-<id>`` (a player's pages,
for challenges and their games), and, for closing sockets, ``account-<id>`` (every
socket of an account) and ``session-<digest>`` (every socket of one login session).
Each game event carries the game's ``version`` so a client that reconnects can tell
what it missed.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Iterable
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

from games.models import Challenge, Game, Move

logger = logging.getLogger(__name__)


def game_group(game_id: int) -> str:
    return f"game-{game_id}"


def player_group(user_id: int) -> str:
    return f"player-{user_id}"


def account_group(user_id: int) -> str:
    return f"account-{user_id}"


def session_group(session_key: str) -> str:
    # A digest, not the key: group names may be stored (Redis) and listed, and the key
    # is what logs a browser in.
    return "session-" + hashlib.sha256(session_key.encode()).hexdigest()[:40]


def game_state(game: Game) -> dict[str, Any]:
    """The game as live clients see it (no moves: they come one by one)."""
    return {
        "id": game.pk,
        "public_id": game.public_id,
        "white": game.white.username,
        "black": game.black.username,
        "status": game.status,
        "result": game.result,
        "termination": game.termination,
        "white_request": game.white_request,
        "black_request": game.black_request,
        "draw_offer_by": game.pending_draw_offer_by,
        "fen": game.fen,
        "turn": game.colour_to_move,
        "next_move_number": game.next_move_number,
        "version": game.version,
        "updated_at": game.updated_at.isoformat(),
    }


def move_state(move: Move) -> dict[str, Any]:
    return {
        "number": move.number,
        "uci": move.uci,
        "san": move.san,
        "fen_after": move.fen_after,
        "played_at": move.played_at.isoformat(),
        "think_seconds": move.think_seconds,
        "reverse": move.reverse,
    }


def challenge_state(challenge: Challenge) -> dict[str, Any]:
    return {
        "id": challenge.pk,
        "challenger": challenge.challenger.username,
        "challenged": challenge.challenged.username,
        "status": challenge.status,
        "created_at": challenge.created_at.isoformat(),
        "game_id": challenge.game_id,
    }


async def _send_to_groups(layer: Any, groups: Iterable[str], message: dict[str, Any]) -> None:
    for group in groups:
        try:
            await layer.group_send(group, message)
        except Exception:
            # The write has committed; a channel layer outage must not turn it into an
            # error. Clients resync from the version number when they reconnect.
            logger.exception("could not publish %s to %s", message.get("event"), group)


def _send(groups: Iterable[str], message: dict[str, Any]) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    # One async_to_sync call for all groups: from a plain thread each call starts a thread
    # and an event loop of its own (~0.6 ms, measured by bench/core_move.py).
    async_to_sync(_send_to_groups)(layer, list(groups), message)


def publish_game_event(game: Game, event: str, **extra: Any) -> None:
    """After commit, tell the game's watchers and both players what happened."""
    message = {
        "type": "game.event",
        "event": event,
        "version": game.version,
        "game": game_state(game),
        **extra,
    }
    groups = [game_group(game.pk), player_group(game.white_id), player_group(game.black_id)]
    transaction.on_commit(lambda: _send(groups, message))


def publish_challenge_event(challenge: Challenge, event: str) -> None:
    """After commit, tell both players about a challenge that was made or answered."""
    message = {"type": "challenge.event", "event": event, "challenge": challenge_state(challenge)}
    groups = [player_group(challenge.challenger_id), player_group(challenge.challenged_id)]
    transaction.on_commit(lambda: _send(groups, message))


def _close_sockets_on_commit(group: str) -> None:
    transaction.on_commit(lambda: _send([group], {"type": "account.closed"}))


def publish_account_closed(user_id: int) -> None:
    """After commit, close every open socket of the account (its access was revoked)."""
    _close_sockets_on_commit(account_group(user_id))


def publish_session_ended(session_key: str) -> None:
    """After commit, close the open sockets of one login session (it logged out)."""
    _close_sockets_on_commit(session_group(session_key))
