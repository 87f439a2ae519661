"""The correspondence clocks: started for the player a game waits for, a Fischer clock's
banks kept as moves are made, stopped when a game ends, paused for a player on vacation,
the 24-hour warning, and the demo's time travel. The arithmetic is :mod:`games.clock`'s;
ending a game whose time ran out is :mod:`games.services.timeouts`."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from django.db import transaction
from django.db.models import F, Q, QuerySet
from django.utils import timezone

from games import clock, errors, rules, selectors
from games.events import publish_game_event
from games.models import Game, NotificationKind, Vacation
from games.notifications import notify
from games.services.guards import lock_game, touch

# The fields :func:`keep_banks` may change.
BANK_FIELDS = ["white_bank", "black_bank"]


def deadline_for(game: Game, now: dt.datetime) -> dt.datetime | None:
    """The deadline of the player ``game`` now waits for, whose clock starts at ``now``:
    a move's days, or, with a Fischer clock, what that player's bank holds."""
    fischer = game.fischer
    if fischer is None:
        return clock.deadline_after(now, game.days_per_move)
    stored = game.white_bank if game.colour_on_clock == rules.WHITE else game.black_bank
    return now + (fischer.base if stored is None else stored)


def keep_banks(game: Game, now: dt.datetime) -> None:
    """Write what each side of a Fischer clock has at ``now`` into its stored bank,
    before the clock passes to someone else or stops (nothing without one)."""
    if game.fischer is None:
        return
    game.white_bank = clock.bank_of(game, rules.WHITE, now)
    game.black_bank = clock.bank_of(game, rules.BLACK, now)


def bank_the_move(game: Game, now: dt.datetime) -> None:
    """A Fischer clock's side to move has just moved at ``now`` (the position not yet
    changed): its bank keeps what it had left plus the increment, capped; the other
    side's keeps what it has. Nothing without a Fischer clock."""
    fischer = game.fischer
    if fischer is None:
        return
    mover = game.colour_to_move
    left = clock.bank_of(game, mover, now) or dt.timedelta(0)
    keep_banks(game, now)
    setattr(game, f"{mover}_bank", fischer.bank_after_move(left))


def stop_clock(game: Game, now: dt.datetime | None = None) -> None:
    """The game is over at ``now``: a Fischer clock's banks stay as they stood then."""
    keep_banks(game, now or timezone.now())
    game.deadline = None
    game.time_left = None
    game.paused_at = None


def on_vacation(player_id: int) -> bool:
    return selectors.on_vacation([player_id]) == {player_id}


def pause_for_vacation(game: Game, now: dt.datetime) -> bool:
    """The clock has just been set for the player it now waits for: stop it at once if
    that player is on vacation. A game without a clock costs no query. Returns whether
    it is paused."""
    game.paused_at = None
    if game.deadline is None:
        return False
    if game.away_when_read is not None:
        away = game.player_on_clock_id in game.away_when_read
    else:
        away = on_vacation(game.player_on_clock_id)
    if away:
        game.paused_at = now
        return True
    return False


def low_time_games(now: dt.datetime) -> QuerySet[Game]:
    """The games whose running clock has at most :data:`games.clock.LOW_TIME` left and
    whose player has not been warned about this deadline: a range scan of the
    ``game_deadline_unwarned`` partial index (the filters repeat its condition, which is
    what lets the planners use it). One-day games are left out: their whole move is the
    24 hours, which "opponent moved" already says."""
    return Game.objects.filter(
        Q(low_time_warned_for__isnull=True) | Q(low_time_warned_for__lt=F("deadline")),
        deadline__isnull=False,
        paused_at__isnull=True,
        deadline__gt=now,
        deadline__lte=now + clock.LOW_TIME,
    ).filter(Q(days_per_move__isnull=True) | Q(days_per_move__gt=clock.LOW_TIME.days))


def warn_low_time(*, now: dt.datetime | None = None, batch_size: int = 500) -> int:
    """Tell each player whose clock has a day or less left, once per deadline ("24 hours
    left"); returns how many were told. The sweep runs it after ending the games run
    out; reads of a player's games run it for that player
    (:func:`games.services.timeouts.expire_due_games_of`).
    """
    now = now or timezone.now()
    warned = 0
    while True:
        found = low_time_games(now).order_by("deadline").values_list("pk", flat=True)
        due = list(found[:batch_size])
        warned_now = warn_each(due, now)
        warned += warned_now
        if len(due) < batch_size or warned_now == 0:
            return warned


def warn_each(game_ids: Sequence[int], now: dt.datetime) -> int:
    """Give the 24-hour warning in each of ``game_ids`` still due one, each in its own
    short transaction; returns how many were given."""
    warned = 0
    for game_id in game_ids:
        with transaction.atomic():
            try:
                game = lock_game(game_id)
            except errors.GameNotFound:
                continue
            deadline = game.deadline
            # Read again under the lock: another sweep may have warned, a move may have
            # set a new deadline, the game may have ended.
            if (
                not game.is_active
                or deadline is None
                or game.paused_at is not None
                or not now < deadline <= now + clock.LOW_TIME
                or (game.low_time_warned_for is not None and game.low_time_warned_for >= deadline)
            ):
                continue
            game.low_time_warned_for = deadline
            game.save(update_fields=["low_time_warned_for"])
            on_clock = game.player_on_clock
            notify(
                recipient=on_clock,
                kind=NotificationKind.LOW_TIME,
                game=game,
                actor=game.opponent_of(on_clock.pk),
                detail={"deadline": deadline.isoformat()},
            )
            warned += 1
    return warned


def advance_clocks(*, by: dt.timedelta, game_id: int | None = None) -> int:
    """Demo time travel: move the clocks of the games in progress (or of ``game_id``)
    ``by`` earlier, as if that much time had passed. Returns how many games it moved.

    Every time a clock keeps moves with it, so the journey is one the clocks could have
    made: a deadline, the warning given for it, and the moment a clock stopped for a
    vacation (a clock standing still loses nothing by it: the player was away). The
    vacations running for the players concerned (every player, without ``game_id``) move
    too, so the days jumped count as vacation taken, and a vacation whose allowance the
    jump spends ends where it ran out (the sweep). Ending a vacation afterwards gives
    back the time the clock had when it stopped; no game ends that was not overdue.

    Only ``manage.py travel_clock`` calls it, and only where the settings allow it
    (``DEMO_TIME_TRAVEL``): a newcomer sees a game end on time without waiting days.
    """
    if by <= dt.timedelta(0):
        raise ValueError("the clock only moves forward")
    # A journey past the calendar's start (OverflowError) is refused before any change.
    timezone.now() - by
    moved = 0
    games = Game.objects.filter(status=Game.Status.ACTIVE, deadline__isnull=False)
    travellers: list[int] | None = None
    if game_id is not None:
        games = games.filter(pk=game_id)
        travellers = list(
            Game.objects.filter(pk=game_id, status=Game.Status.ACTIVE)
            .values_list("white_id", "black_id")
            .first()
            or ()
        )
    _advance_vacations(by, travellers)
    for pk in games.order_by("pk").values_list("pk", flat=True):
        with transaction.atomic():
            game = lock_game(pk)
            if not game.is_active or game.deadline is None:
                continue
            game.deadline -= by
            changed = ["deadline", "updated_at", "version"]
            if game.paused_at is not None:
                game.paused_at -= by
                changed.append("paused_at")
            if game.low_time_warned_for is not None:
                game.low_time_warned_for -= by
                changed.append("low_time_warned_for")
            touch(game)
            game.save(update_fields=changed)
            publish_game_event(game, "clock_changed")
            moved += 1
    return moved


def _advance_vacations(by: dt.timedelta, player_ids: list[int] | None) -> None:
    """Move the running vacations of ``player_ids`` (``None``: everyone's) ``by``
    earlier, with the demo's clocks (:func:`advance_clocks`)."""
    running = Vacation.objects.filter(ended_at__isnull=True)
    if player_ids is not None:
        running = running.filter(player_id__in=player_ids)
    with transaction.atomic():
        # One row per player on vacation: moved in Python, whose dates refuse to go
        # before year 1 (OverflowError) where each database would say it its own way.
        for spell in running.select_for_update():
            spell.started_at -= by
            spell.ends_by -= by
            spell.save(update_fields=["started_at", "ends_by"])
