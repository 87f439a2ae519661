"""The service's own upkeep: the sweep that ends what ran out, the purge of old
finished games (AdmChess) and of idle guests, and naming the openings of games stored
without one."""

from __future__ import annotations

import datetime as dt

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from games import errors, openings
from games.models import Challenge, Game, Move
from games.services.clocks import warn_low_time
from games.services.guards import lock_game, require_finished
from games.services.timeouts import expire_pages
from games.services.vacations import end_spent_vacations


def expire_due_games(*, now: dt.datetime | None = None, batch_size: int = 500) -> int:
    """End every game whose deadline has passed (the sweep: ``manage.py expire_games``
    and the job inside ``manage.py serve``); returns how many this call ended.

    Finding them is one query on the ``game_deadline_running`` partial index (only games
    whose clock runs have a deadline: it is cleared when a game ends); each is then
    ended in its own short transaction, so a sweep never holds many locks and another
    sweep running at the same time ends none twice. Vacations whose allowance is spent
    end first (their clocks run again), and the 24-hour warnings follow.
    """
    now = now or timezone.now()
    end_spent_vacations(now=now)
    ended = expire_pages(now, batch_size)
    warn_low_time(now=now, batch_size=batch_size)
    return ended


@transaction.atomic
def delete_finished_games(*, older_than_days: int) -> int:
    """Delete games finished more than ``older_than_days`` days ago (AdmChess maintenance).

    Active games and tournaments' games are never touched. Returns how many games were
    deleted.
    """
    if older_than_days < 0:
        raise ValueError("older_than_days must not be negative")
    cutoff = timezone.now() - dt.timedelta(days=older_than_days)
    # An event's games stay, finished or not, however old: its tables and crosstable are
    # made of them, and an event is never deleted (games.tournament_admin).
    old = Game.objects.filter(
        status=Game.Status.FINISHED, finished_at__lt=cutoff, tournament__isnull=True
    )
    return _delete_games(old)


@transaction.atomic
def delete_game(*, game_id: int) -> None:
    """Delete one finished game with its moves (AdmChess). A game in progress is refused,
    and so is a tournament's game (:class:`~games.errors.TournamentGameKept`): its
    event's tables and crosstable are made of it."""
    game = lock_game(game_id)
    require_finished(game)
    if game.tournament_id is not None:
        raise errors.TournamentGameKept()
    _delete_games(Game.objects.filter(pk=game.pk))


def _delete_games(games: QuerySet) -> int:
    # One UPDATE for the challenges that led to these games instead of Django's row-by-row
    # SET_NULL: the purge may take thousands of games at once.
    Challenge.objects.filter(game__in=games).update(game=None)
    _total, per_model = games.delete()
    return per_model.get("games.Game", 0)


def purge_idle_guests(*, older_than_hours: int, batch_size: int = 500) -> int:
    """Delete the guest accounts (``docs/protocols/guests.md``) made more than
    ``older_than_hours`` ago that never played a game through, with their games: none in
    progress and none in which both sides moved (a pairing left at once is aborted or lost
    before that, and tells nothing). Returns how many guests went. In batches, each in a
    short transaction of its own.
    """
    if older_than_hours < 0:
        raise ValueError("older_than_hours must not be negative")
    cutoff = timezone.now() - dt.timedelta(hours=older_than_hours)
    # Both sides have moved once two half-moves are played, whoever began.
    kept = Game.objects.filter(Q(status=Game.Status.ACTIVE) | Q(next_move_number__gte=3))
    idle = (
        get_user_model()
        .objects.filter(guest__isnull=False, date_joined__lt=cutoff)
        .exclude(pk__in=kept.values("white_id"))
        .exclude(pk__in=kept.values("black_id"))
    )
    purged = 0
    while True:
        ids = list(idle.order_by("pk").values_list("pk", flat=True)[:batch_size])
        if not ids:
            return purged
        with transaction.atomic():
            _delete_games(Game.objects.filter(Q(white_id__in=ids) | Q(black_id__in=ids)))
            purged += get_user_model().objects.filter(pk__in=ids).delete()[1].get(
                get_user_model()._meta.label, 0
            )


def name_openings(*, batch_size: int = 500) -> int:
    """Give every stored game without an opening the one its moves reached (games played
    before openings were kept, or before the book named their line); returns how many
    were named. Keyset pages of ``batch_size`` games, each read with its first moves in
    one query and written in one short transaction."""
    named, after = 0, 0
    while True:
        ids = list(
            Game.objects.filter(pk__gt=after, opening_eco="", next_move_number__gt=1)
            .order_by("pk")
            .values_list("pk", flat=True)[:batch_size]
        )
        if not ids:
            return named
        after = ids[-1]
        found: dict[int, openings.Opening] = {}
        positions = (
            Move.objects.filter(game_id__in=ids, number__lte=openings.MAX_PLIES)
            .order_by("game_id", "number")
            .values_list("game_id", "number", "fen_after")
        )
        for game_id, number, fen in positions:
            if (opening := openings.opening_at(fen, number)) is not None:
                found[game_id] = opening
        with transaction.atomic():
            for game_id, opening in found.items():
                named += Game.objects.filter(pk=game_id, opening_eco="").update(
                    opening_eco=opening.eco, opening_name=opening.name
                )
