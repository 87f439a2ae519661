"""What every service checks first: the game row locked, the caller one of its players,
the game still in progress and its clock not run out."""

from __future__ import annotations

import datetime as dt

from django.utils import timezone

from accounts.types import Player
from games import clock, errors, rules
from games.models import Game


def lock_game(game_id: int) -> Game:
    """``game_id`` read and locked for this transaction, with its players."""
    try:
        return (
            Game.objects.select_for_update(of=("self",))
            .select_related("white", "black")
            .get(pk=game_id)
        )
    except Game.DoesNotExist as exc:
        raise errors.GameNotFound() from exc


def colour_in(game: Game, player: Player) -> str:
    """The colour ``player`` plays in ``game``; :class:`~games.errors.NotAPlayer` if none."""
    colour = game.colour_of(player.pk)
    if colour is None:
        raise errors.NotAPlayer()
    return colour


def other(colour: str) -> str:
    return rules.BLACK if colour == rules.WHITE else rules.WHITE


class TimeRanOut(Exception):
    """The locked game's deadline has passed: it must end on time, not take the request.

    Raised inside the service's transaction, which rolls back;
    :func:`games.services.timeouts.on_the_clock` then ends the game in a transaction of
    its own and refuses the request."""


def is_due(game: Game, now: dt.datetime | None = None) -> bool:
    """Whether ``game`` is in progress and its running clock has passed its deadline."""
    return clock.is_due(
        active=game.is_active, deadline=game.deadline, paused_at=game.paused_at,
        now=now or timezone.now(),
    )


def require_active(game: Game) -> None:
    """Refuse a finished game; raise :class:`TimeRanOut` on one whose time is up."""
    if not game.is_active:
        raise errors.GameFinished()
    if is_due(game):
        raise TimeRanOut()


def require_finished(game: Game) -> None:
    if game.is_active:
        raise errors.GameInProgress()


def touch(game: Game, now: dt.datetime | None = None) -> None:
    """Mark ``game`` changed: a new version, for the clients and the move checks."""
    game.updated_at = now or timezone.now()
    game.version += 1
