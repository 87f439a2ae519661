"""Vacations: the clocks where a player is to move stand still while they are away, up
to the year's allowance, and run again with the time that was left when they return.
Every game of the player changes when they leave and when they are back (its pages
show them away), whether its clock stops or not."""

from __future__ import annotations

import datetime as dt

from django.db import transaction
from django.utils import timezone

from accounts import selectors as account_selectors
from accounts.types import Player
from games import errors, selectors
from games.events import publish_game_event
from games.models import Game, NotificationKind, Vacation
from games.notifications import notify
from games.services.clocks import on_vacation
from games.services.guards import lock_game, touch
from games.services.timeouts import expire_each, run_out_games_of


def _active_games_of(player: Player) -> list[int]:
    return list(
        Game.objects.of_player(player, status=Game.Status.ACTIVE)
        .order_by("pk")
        .values_list("pk", flat=True)
    )


def _show_away_change(game: Game, event: str) -> None:
    """A game whose clock the vacation leaves as it is still changes for its pages: they
    show the player away, or back. A new version, told to them as every change is; not
    an activity of the game (its ``updated_at`` stays)."""
    game.version += 1
    game.save(update_fields=["version"])
    publish_game_event(game, event)


def _lock_player(player: Player) -> None:
    """Lock the user row: it orders two vacation requests of the same player."""
    account_selectors.players().select_for_update(no_key=True, of=("self",)).filter(
        pk=player.pk
    ).first()


def start_vacation(*, player: Player) -> Vacation:
    """``player`` goes on vacation: every clock where they are to move stops, with the
    time they had kept; opponents see it. Refused while on vacation already, and once
    the year's allowance is spent. It ends by itself when the allowance runs out (the
    sweep), or when the player ends it.

    Like every action, it first ends the player's games whose time has run out, each
    in its own transaction (kept when the vacation is refused): a clock that ran out
    before the vacation began is not stopped, the game is lost on time."""
    now = timezone.now()
    expire_each(run_out_games_of(player, now), now)
    return _start_vacation(player, now)


@transaction.atomic
def _start_vacation(player: Player, now: dt.datetime) -> Vacation:
    _lock_player(player)
    if on_vacation(player.pk):
        raise errors.AlreadyOnVacation()
    left = selectors.vacation_left(player, now=now)
    if left < dt.timedelta(hours=1):
        raise errors.NoVacationLeft()
    spell = Vacation.objects.create(player=player, started_at=now, ends_by=now + left)
    _tell_opponents_of_vacation(player, spell)
    for game_id in _active_games_of(player):
        game = lock_game(game_id)
        if not game.is_active:
            continue
        on_clock = game.deadline is not None and game.player_on_clock_id == player.pk
        if on_clock and game.paused_at is None:
            game.paused_at = now
            touch(game, now)
            game.save(update_fields=["paused_at", "updated_at", "version"])
            publish_game_event(game, "clock_paused")
        else:
            _show_away_change(game, "vacation_started")
    return spell


def _tell_opponents_of_vacation(player: Player, spell: Vacation) -> None:
    active = Game.objects.of_player(player, status=Game.Status.ACTIVE).select_related(
        "white", "black"
    )
    for game in active.order_by("pk"):
        notify(
            recipient=game.opponent_of(player.pk),
            kind=NotificationKind.OPPONENT_ON_VACATION,
            game=game,
            actor=player,
            detail={"until": spell.ends_by.isoformat()},
        )


@transaction.atomic
def end_vacation(*, player: Player, now: dt.datetime | None = None) -> Vacation:
    """``player`` is back: their clocks run again with the time they had left."""
    now = now or timezone.now()
    _lock_player(player)
    spell = Vacation.objects.filter(player=player, ended_at__isnull=True).first()
    if spell is None:
        raise errors.NotOnVacation()
    # A spell the sweep ends late still ends when the allowance ran out: the clocks
    # run again from then, not from the sweep.
    back_at = min(now, spell.ends_by)
    spell.ended_at = back_at
    spell.save(update_fields=["ended_at"])
    for game_id in _active_games_of(player):
        game = lock_game(game_id)
        if not game.is_active:
            continue
        if game.paused_at is None or game.deadline is None or game.player_on_clock_id != player.pk:
            _show_away_change(game, "vacation_ended")
        else:
            # The time left when the clock stopped, counted again from the return.
            warned = game.low_time_warned_for is not None and (
                game.low_time_warned_for >= game.deadline
            )
            game.deadline += max(dt.timedelta(0), back_at - game.paused_at)
            game.paused_at = None
            changed = ["deadline", "paused_at", "updated_at", "version"]
            if warned:
                # The same clock, moved later by the days away: its 24-hour warning
                # was given, and the player has no less time than when it was.
                game.low_time_warned_for = game.deadline
                changed.append("low_time_warned_for")
            touch(game, now)
            game.save(update_fields=changed)
            publish_game_event(game, "clock_resumed")
    return spell


def end_spent_vacations(*, now: dt.datetime | None = None) -> int:
    """End the vacations whose allowance has run out (the sweep runs this first)."""
    now = now or timezone.now()
    ended = 0
    spent = Vacation.objects.filter(ended_at__isnull=True, ends_by__lte=now).select_related(
        "player"
    )
    for spell in spent:
        try:
            end_vacation(player=spell.player, now=now)
        except errors.NotOnVacation:
            continue  # ended meanwhile
        ended += 1
    return ended
