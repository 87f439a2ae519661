"""Tournaments before their games: the administrator's settings, players joining and
leaving, the start (or the call-off, with too few players) and the sweep that starts the
events whose time has come. The rounds themselves are :mod:`.tournament_rounds`'s; a
withdrawal once the games run is :mod:`.tournament_withdrawals`'s."""

from __future__ import annotations

import datetime as dt

from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts import errors as account_errors
from accounts import selectors as account_selectors
from accounts.types import Player
from games import clock, errors
from games.events import publish_tournament_event
from games.models import NotificationKind, Tournament, TournamentEntry
from games.models.tournaments import MAX_GROUP_SIZE, MAX_PLAYERS
from games.notifications import notify
from games.services.tournament_rounds import start_round
from ranking import selectors as ranking_selectors

# What the administrator may still change once an event has started: only its words.
CHANGEABLE_WHEN_STARTED = ("name", "description")


def check_settings(tournament: Tournament) -> None:
    """Refuse settings that do not fit together, saying which
    (:class:`~games.errors.InvalidTournament`); the database's constraints say the same,
    this says it in words."""
    problems = []
    name = tournament.name.strip()
    if not name:
        problems.append(_("An event needs a name."))
    if not clock.is_valid_days(tournament.days_per_move):
        problems.append(str(errors.InvalidTimeControl.default_message))
    fischer_numbers = (
        tournament.fischer_base_days,
        tournament.fischer_increment_days,
        tournament.fischer_cap_days,
    )
    if any(number is not None for number in fischer_numbers):
        if tournament.days_per_move is not None:
            problems.append(str(errors.BOTH_CLOCKS_MESSAGE))
        elif (problem := clock.fischer_problem(*fischer_numbers)) is not None:
            problems.append(problem)
    if tournament.cycles not in (1, 2):
        problems.append(_("Each pair plays one game or two."))
    if tournament.min_players < 2 or tournament.max_players < tournament.min_players:
        problems.append(_("At least 2 players, and the most at least the fewest."))
    if (
        tournament.min_rating is not None
        and tournament.max_rating is not None
        and tournament.min_rating > tournament.max_rating
    ):
        problems.append(_("The lowest rating is above the highest."))
    if tournament.kind == Tournament.Kind.ROUND_ROBIN:
        if tournament.max_players > MAX_GROUP_SIZE:
            problems.append(
                _("A section holds at most %(count)d players.") % {"count": MAX_GROUP_SIZE}
            )
    elif tournament.kind == Tournament.Kind.MULTI_ROUND:
        size, advance = tournament.group_size, tournament.advance
        if size is None or not 3 <= size <= MAX_GROUP_SIZE:
            problems.append(
                _("A group holds 3 to %(count)d players.") % {"count": MAX_GROUP_SIZE}
            )
        if advance is None or size is None or not 1 <= advance < size:
            problems.append(_("At least one player of each group, and not all, goes on."))
        if tournament.max_players > MAX_PLAYERS:
            problems.append(
                _("An event holds at most %(count)d players.") % {"count": MAX_PLAYERS}
            )
    else:
        problems.append(_("Choose a kind of event."))
    if (
        tournament.registration_closes_at is not None
        and tournament.starts_at is not None
        and tournament.registration_closes_at > tournament.starts_at
    ):
        problems.append(_("Registration must close by the start."))
    if problems:
        raise errors.InvalidTournament(" ".join(problems))


@transaction.atomic
def save_tournament(*, tournament: Tournament, by: Player | None = None) -> Tournament:
    """Create ``tournament`` (unsaved), or save the administrator's changes to it: every
    setting while it takes players, only its name and description once it has started."""
    check_settings(tournament)
    tournament.name = tournament.name.strip()
    if tournament.pk is None:
        tournament.status = Tournament.Status.REGISTRATION
        tournament.current_round = 0
        tournament.created_by = by
        tournament.save()
        return tournament
    stored = _lock(tournament.pk)
    if stored.status == Tournament.Status.REGISTRATION:
        # The status and the round are the services' own, whatever the form sent.
        tournament.status, tournament.current_round = stored.status, stored.current_round
        tournament.save()
    else:
        for field in CHANGEABLE_WHEN_STARTED:
            setattr(stored, field, getattr(tournament, field))
        stored.save(update_fields=list(CHANGEABLE_WHEN_STARTED))
        tournament = stored
    publish_tournament_event(tournament.pk, "changed")
    return tournament


def _lock(tournament_id: int) -> Tournament:
    try:
        return Tournament.objects.select_for_update().get(pk=tournament_id)
    except Tournament.DoesNotExist as exc:
        raise errors.TournamentNotFound() from exc


def registration_open(tournament: Tournament, now: dt.datetime) -> bool:
    """Whether ``tournament`` still takes players (its number aside)."""
    return tournament.status == Tournament.Status.REGISTRATION and (
        tournament.registration_closes_at is None or now < tournament.registration_closes_at
    )


def current_rating(player_id: int) -> float:
    return ranking_selectors.record_of(player_id).rating


@transaction.atomic
def join_tournament(*, tournament_id: int, player: Player) -> TournamentEntry:
    """``player`` joins the event; when that fills an event that starts when full, it
    starts now."""
    tournament = _lock(tournament_id)
    now = timezone.now()
    if not registration_open(tournament, now):
        raise errors.RegistrationClosed()
    # Read from the database, not the caller's object: the account may have closed. A
    # gateway's guest or a staff account is no player (accounts.selectors.players).
    if not account_selectors.players().filter(pk=player.pk).exists():
        raise account_errors.UserNotFound()
    if account_selectors.is_bot(player.pk):
        raise errors.BotInTournament()
    if TournamentEntry.objects.filter(tournament=tournament, player=player).exists():
        raise errors.AlreadyRegistered()
    joined = TournamentEntry.objects.filter(tournament=tournament).count()
    if joined >= tournament.max_players:
        raise errors.TournamentFull()
    rating = current_rating(player.pk)
    if (tournament.min_rating is not None and rating < tournament.min_rating) or (
        tournament.max_rating is not None and rating > tournament.max_rating
    ):
        raise errors.RatingOutOfBounds()
    try:
        with transaction.atomic():
            entry = TournamentEntry.objects.create(tournament=tournament, player=player,
                                                   joined_at=now)
    except IntegrityError as exc:
        raise errors.AlreadyRegistered() from exc
    publish_tournament_event(tournament.pk, "joined")
    if joined + 1 == tournament.max_players and tournament.starts_at is None:
        _start(tournament, now)
    return entry


@transaction.atomic
def leave_tournament(*, tournament_id: int, player: Player) -> None:
    """``player`` leaves an event that has not started (once it runs: a withdrawal)."""
    tournament = _lock(tournament_id)
    if tournament.status != Tournament.Status.REGISTRATION:
        raise errors.RegistrationClosed()
    deleted, _rows = TournamentEntry.objects.filter(tournament=tournament, player=player).delete()
    if not deleted:
        raise errors.NotRegistered()
    publish_tournament_event(tournament.pk, "left")


@transaction.atomic
def start_tournament(*, tournament_id: int, now: dt.datetime | None = None) -> Tournament:
    """Start the event now (the administrator's "start now", or its time come): its
    first round's games all begin; with fewer than its fewest players it is called off
    instead. Starting an event that is not taking players changes nothing."""
    tournament = _lock(tournament_id)
    if tournament.status == Tournament.Status.REGISTRATION:
        _start(tournament, now or timezone.now())
    return tournament


def _start(tournament: Tournament, now: dt.datetime) -> None:
    entries = list(
        TournamentEntry.objects.filter(tournament=tournament)
        .select_related("player")
        .order_by("joined_at", "pk")
    )
    active = [e for e in entries if e.player.is_active]
    if len(active) < tournament.min_players:
        _cancel(tournament, now)
        return
    ratings = ranking_selectors.records_of([e.player_id for e in active])
    for entry in active:
        entry.rating = ratings[entry.player_id].rating
    TournamentEntry.objects.bulk_update(active, ["rating"])
    # The seed: the strongest first; the earlier entry first between equals.
    seeded = sorted(active, key=lambda e: -(e.rating or 0))
    tournament.status = Tournament.Status.RUNNING
    tournament.started_at = now
    tournament.save(update_fields=["status", "started_at"])
    start_round(tournament, 1, [e.player for e in seeded], now=now)


@transaction.atomic
def cancel_tournament(*, tournament_id: int) -> Tournament:
    """Call off an event that has not started; its players are told."""
    tournament = _lock(tournament_id)
    if tournament.status != Tournament.Status.REGISTRATION:
        raise errors.RegistrationClosed()
    _cancel(tournament, timezone.now())
    return tournament


def _cancel(tournament: Tournament, now: dt.datetime) -> None:
    tournament.status = Tournament.Status.CANCELLED
    tournament.finished_at = now
    tournament.save(update_fields=["status", "finished_at"])
    for entry in TournamentEntry.objects.filter(tournament=tournament).select_related("player"):
        notify(
            recipient=entry.player,
            kind=NotificationKind.TOURNAMENT_CANCELLED,
            detail={"tournament": tournament.pk, "name": tournament.name},
        )
    publish_tournament_event(tournament.pk, "cancelled")


def start_due_tournaments(now: dt.datetime | None = None) -> int:
    """Start (or call off) every event whose start time, or whose registration's end
    when it starts when full, has passed; each in a transaction of its own. Returns how
    many changed. Run by the sweep of ``manage.py serve`` and ``manage.py
    start_tournaments``."""
    now = now or timezone.now()
    due = Tournament.objects.filter(status=Tournament.Status.REGISTRATION).filter(
        Q(starts_at__lte=now) | Q(starts_at__isnull=True, registration_closes_at__lte=now)
    )
    started = 0
    for tournament_id in due.values_list("pk", flat=True):
        before = Tournament.Status.REGISTRATION
        if start_tournament(tournament_id=tournament_id, now=now).status != before:
            started += 1
    return started
