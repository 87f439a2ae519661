"""Time run out (lichess's CorresAlarm): a game whose deadline has passed is ended, by
the sweep, by a read of a player's games, or by the next request on the game, whichever
comes first, and once."""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Callable, Sequence
from typing import ParamSpec, TypeVar

from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.types import Player
from games import clock, errors, selectors
from games.models import Game
from games.services.clocks import low_time_games, warn_each
from games.services.endings import finish
from games.services.guards import TimeRanOut, colour_in, lock_game

_P = ParamSpec("_P")
_R = TypeVar("_R")


def on_the_clock(service: Callable[_P, _R]) -> Callable[_P, _R]:
    """Let ``service`` (called with ``game_id=``) end a game whose time has run out.

    The request is refused as on a finished game: no move, offer or resignation counts
    once the deadline has passed, whether or not the sweep has come by yet.
    """

    @functools.wraps(service)
    def run(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        try:
            return service(*args, **kwargs)
        except TimeRanOut:
            game_id = kwargs["game_id"]
            assert isinstance(game_id, int)
            expire_game(game_id=game_id)
            raise errors.GameFinished(_("Time ran out: the game is over.")) from None

    return run


@transaction.atomic
def expire_game(*, game_id: int, now: dt.datetime | None = None) -> Game | None:
    """End ``game_id`` if the time of the player it waits for has run out; returns the
    game it ended, or ``None`` when there was nothing to do (no clock, time left, over).

    Idempotent and safe to run from several processes at once: the game row is locked
    and its deadline read again under the lock, so a game ends once. The player who ran
    out loses (a draw when the opponent has no mating material); before both players
    have moved the game is aborted instead (no result, not rated).
    """
    now = now or timezone.now()
    try:
        game = lock_game(game_id)
    except errors.GameNotFound:
        return None
    ended = clock.expiry_of(game, now)
    if ended is None:
        return None
    finish(game, ended.outcome, at=ended.at, now=now, event=ended.event, by=ended.out_of_time)
    return game


@transaction.atomic
def claim_victory(*, game_id: int, player: Player, now: dt.datetime | None = None) -> Game:
    """``player`` claims the win because the opponent's time has run out (the lichess
    API's ``claim-victory``; correspondence has no other way for an opponent to be
    gone). The game ends on time as the sweep would end it; when that would not make
    ``player`` the winner (their own time, an abort before both moved, a draw against a
    lone king) nothing changes and :class:`~games.errors.NoVictoryToClaim` is raised."""
    now = now or timezone.now()
    game = lock_game(game_id)
    colour = colour_in(game, player)
    if not game.is_active:
        raise errors.GameFinished()
    ended = clock.expiry_of(game, now)
    if ended is None or ended.outcome.winner != colour:
        raise errors.NoVictoryToClaim()
    finish(game, ended.outcome, at=ended.at, now=now, event=ended.event, by=ended.out_of_time)
    return game


def expire_each(game_ids: Sequence[int], now: dt.datetime) -> int:
    """:func:`expire_game` on each of ``game_ids``; returns how many it ended."""
    ended = 0
    for game_id in game_ids:
        if expire_game(game_id=game_id, now=now) is not None:
            ended += 1
    return ended


def expire_pages(now: dt.datetime, batch_size: int) -> int:
    """End every game run out by ``now``, found ``batch_size`` at a time."""
    ended = 0
    while True:
        due = list(selectors.games_run_out(now)[:batch_size])
        if not due:
            return ended
        ended_now = expire_each(due, now)
        ended += ended_now
        if len(due) < batch_size or ended_now == 0:
            # A short page was the last; a page that ended nothing was ended meanwhile
            # by another sweep, which goes on with the rest.
            return ended


def run_out_games_of(player: Player, now: dt.datetime) -> list[int]:
    """``player``'s games in progress whose running clock passed its deadline by ``now``."""
    due = Game.objects.of_player(
        player, status=Game.Status.ACTIVE, deadline__lte=now, paused_at__isnull=True
    )
    return list(due.values_list("pk", flat=True))


def expire_due_games_of(player: Player, *, now: dt.datetime | None = None) -> int:
    """End ``player``'s games whose time has run out: the reads of a player's games call
    this first, so no list shows a game in progress whose time is up."""
    now = now or timezone.now()
    ended = expire_each(run_out_games_of(player, now), now)
    # The 24-hour warning too, when a read comes before the sweep.
    low = low_time_games(now).filter(Q(white=player) | Q(black=player))
    warn_each(list(low.values_list("pk", flat=True)), now)
    return ended
