"""What clients see of games and challenges: the one read model.

Every front door builds its view of a game here and nowhere else: the game page and its
JSON (:mod:`games.views`), the WebSocket frames (:mod:`games.consumers`), the live events
(:mod:`games.events`), the lists of the lobby (:mod:`games.lobby`) and the gateways. It
turns stored state into plain data; it never writes.

What depends only on the game's state, not on who looks (legal destinations, the draw
that can be claimed), is computed once per event in :func:`event_message` and shared by
every socket, and so are the frames themselves: serialized once per event for each kind
of socket (players, watchers, dashboards), so that a socket only sends a ready text.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from django.urls import reverse

from accounts.types import Player
from games import rules, selectors
from games.models import Challenge, Game, Move


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
        "ended_by": game.ended_by or None,
        "draw_offer_by": game.draw_offer_by or None,
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


def destinations(game: Game) -> dict[str, list[str]]:
    """Legal destinations per origin square (``{"e2": ["e3", "e4"]}``); none once finished."""
    return rules.legal_moves(game.fen) if game.is_active else {}


def claimable_draw(game: Game) -> str | None:
    """The draw either player could claim now (``"threefold_repetition"``,
    ``"fifty_moves"``), or ``None``; always ``None`` for a finished game.

    Reads the same window of moves as :func:`games.services.claim_draw`, so a page
    offers a claim exactly when the service would grant it. Most positions need no
    query: a third occurrence needs 8 plies since the last capture or pawn move.
    """
    if not game.is_active or rules.halfmove_clock(game.fen) < rules.THREEFOLD_MIN_PLIES:
        return None
    base_fen, history = selectors.repetition_window(game)
    termination = rules.claimable_draw(base_fen, history)
    return None if termination is None else termination.value


def snapshot(game: Game, *, viewer_id: int | None, after: int = 0) -> dict[str, Any]:
    """What a page needs to draw the game: its state, the moves after ``after``, the
    legal destinations and, for its players, the draw they may claim. Pages and sockets
    receive this same shape, so a page has one way to apply it."""
    is_player = viewer_id is not None and game.colour_of(viewer_id) is not None
    return {
        "type": "snapshot",
        "version": game.version,
        "game": game_state(game),
        "after": after,
        "moves": [move_state(m) for m in selectors.moves(game.pk, after=after)],
        "dests": destinations(game),
        "claimable": claimable_draw(game) if is_player else None,
    }


# --------------------------------------------------------------------------- events


# Who a game event's frame is for: the game page of one of its players, the game page
# of anyone else, a player's dashboard.
PLAYER, WATCHER, DASHBOARD = "player", "watcher", "dashboard"


def event_message(game: Game, event: str, **extra: Any) -> dict[str, Any]:
    """A game event as the channel layer carries it, with everything every socket needs:
    what happened (``event``, ``version``, ``game``, ``dests``, ``claimable`` and the
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
        **extra,
    }
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


# --------------------------------------------------------------------------- lists


def game_url(game_id: int) -> str:
    """The game page's address."""
    return reverse("game_detail", args=[game_id])


@dataclass(frozen=True)
class GameRow:
    """One game as a given player sees it in a list (dashboard, profile)."""

    game: Game
    my_colour: str
    opponent: Player
    my_turn: bool
    url: str

    @property
    def move_count(self) -> int:
        return self.game.next_move_number - 1

    @property
    def last_move_label(self) -> str:
        """``12. Nf3`` after a white move, ``12… Nf6`` after a black one."""
        number = self.move_count
        if not number or not self.game.last_move_san:
            return ""
        dots = "." if number % 2 else "…"
        return f"{(number + 1) // 2}{dots} {self.game.last_move_san}"

    @property
    def outcome(self) -> str:
        """``won``, ``lost``, ``drawn`` or ``ongoing``, from this player's side."""
        if self.game.is_active:
            return "ongoing"
        winner = self.game.winner_colour
        if winner is None:
            return "drawn"
        return "won" if winner == self.my_colour else "lost"

    @property
    def draw_offer_to_me(self) -> bool:
        offer = self.game.draw_offer_by
        return bool(offer) and offer != self.my_colour

    @property
    def draw_offer_by_me(self) -> bool:
        return self.game.draw_offer_by == self.my_colour

    @property
    def waits_for_me(self) -> bool:
        """Whether the game's next step is mine. While a draw offer is pending nobody may
        move: the step is the answer, owed by the player the offer was made to, whoever
        is to move."""
        if not self.game.is_active:
            return False
        if self.game.draw_offer_by:
            return self.draw_offer_to_me
        return self.my_turn


def game_row(game: Game, player: Player) -> GameRow:
    """``game`` as ``player`` (one of its two players) sees it in a list."""
    colour = game.colour_of(player.pk)
    if colour is None:
        raise ValueError(f"{player} does not play {game.public_id}")
    return GameRow(
        game=game,
        my_colour=colour,
        opponent=game.black if colour == rules.WHITE else game.white,
        my_turn=game.is_active and game.player_to_move_id == player.pk,
        url=game_url(game.pk),
    )
