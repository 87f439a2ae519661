"""Challenges and the games they start: made, accepted, declined, withdrawn; and the
games a gateway pairs without one. :func:`create_game` is the one place a game begins."""

from __future__ import annotations

from datetime import timedelta
from math import ceil

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from accounts import errors as account_errors
from accounts import selectors as account_selectors
from accounts.models import NotificationKind
from accounts.types import Player
from games import clock, errors, rules
from games.events import publish_challenge_event, publish_game_event
from games.models import Challenge, Game
from games.notifications import mark_read, notify, withdraw_unread
from games.services.clocks import pause_for_vacation
from games.services.guards import other

User = get_user_model()


def _active_game_between(a_id: int, b_id: int) -> bool:
    return Game.objects.filter(
        Q(white_id=a_id, black_id=b_id) | Q(white_id=b_id, black_id=a_id),
        status=Game.Status.ACTIVE,
    ).exists()


def _both_active(a_id: int, b_id: int) -> bool:
    return account_selectors.players().filter(pk__in=(a_id, b_id)).count() == 2


def _refuse_over_the_rate(challenger_id: int, challenged_id: int) -> None:
    """Refuse a challenge beyond :setting:`CHALLENGES_PER_WINDOW` made by the challenger,
    or :setting:`CHALLENGES_PER_PAIR_PER_WINDOW` to this opponent, in the last
    :setting:`CHALLENGE_WINDOW_SECONDS`. Counted from the stored challenges that were not
    accepted, so every door and process shares the count and a withdrawn one still
    counts."""
    window = timedelta(seconds=settings.CHALLENGE_WINDOW_SECONDS)
    since = timezone.now() - window
    # An accepted challenge was wanted: only the others (pending, declined, withdrawn)
    # can be spam.
    recent = Challenge.objects.filter(
        challenger_id=challenger_id, created_at__gt=since
    ).exclude(status=Challenge.Status.ACCEPTED)
    for limit, made in (
        (settings.CHALLENGES_PER_WINDOW, recent),
        (settings.CHALLENGES_PER_PAIR_PER_WINDOW, recent.filter(challenged_id=challenged_id)),
    ):
        if not limit:
            continue
        times = list(made.order_by("-created_at").values_list("created_at", flat=True)[:limit])
        if len(times) >= limit:
            # The oldest of the last ``limit`` leaves the window first.
            wait = times[-1] + window - timezone.now()
            raise errors.ChallengeRateLimited(retry_after=max(1, ceil(wait.total_seconds())))


def _refuse_pending_between(challenger_id: int, challenged_id: int) -> None:
    pending = Challenge.objects.filter(
        Q(challenger_id=challenger_id, challenged_id=challenged_id)
        | Q(challenger_id=challenged_id, challenged_id=challenger_id),
        status=Challenge.Status.PENDING,
    ).values_list("challenger_id", flat=True)
    for from_id in pending:
        if from_id == challenger_id:
            raise errors.ChallengeExists()
        raise errors.OpponentChallengedFirst()


@transaction.atomic
def challenge(
    *, challenger: Player, challenged: Player, days_per_move: int | None = None
) -> Challenge:
    """``challenger`` invites ``challenged`` to a game (ESPOL JUEG), with
    ``days_per_move`` per move (one of :data:`games.clock.DAYS_PER_MOVE`) or no clock."""
    if not clock.is_valid_days(days_per_move):
        raise errors.InvalidTimeControl()
    if challenger.pk == challenged.pk:
        raise errors.SelfChallenge()
    # Read from the database, not the caller's object: the account may have been closed
    # since the caller loaded it.
    if not _both_active(challenger.pk, challenged.pk):
        raise account_errors.UserNotFound()
    if _active_game_between(challenger.pk, challenged.pk):
        raise errors.ActiveGameExists()
    _refuse_pending_between(challenger.pk, challenged.pk)
    _refuse_over_the_rate(challenger.pk, challenged.pk)
    try:
        with transaction.atomic():
            created = Challenge.objects.create(
                challenger=challenger, challenged=challenged, days_per_move=days_per_move
            )
    except IntegrityError as exc:
        # Another request for the same pair committed between our check and our insert:
        # look again to tell the caller which of the two it was.
        _refuse_pending_between(challenger.pk, challenged.pk)
        raise errors.ChallengeExists() from exc
    publish_challenge_event(created, "challenge_created")
    notify(
        recipient=challenged,
        kind=NotificationKind.CHALLENGE_RECEIVED,
        challenge=created,
        actor=challenger,
        detail={"days_per_move": days_per_move},
    )
    return created


def _lock_pending_challenge(challenge_id: int) -> Challenge:
    try:
        found = (
            Challenge.objects.select_for_update(of=("self",))
            .select_related("challenger", "challenged")
            .get(pk=challenge_id)
        )
    except Challenge.DoesNotExist as exc:
        raise errors.ChallengeNotFound() from exc
    if found.status != Challenge.Status.PENDING:
        raise errors.ChallengeNotFound()
    return found


def close_challenge(found: Challenge, status: str) -> Challenge:
    """Close the locked, pending challenge ``found`` with ``status``."""
    found.status = status
    found.decided_at = timezone.now()
    found.save(update_fields=["status", "decided_at", "game"])
    publish_challenge_event(found, f"challenge_{status}")
    if status == Challenge.Status.WITHDRAWN:
        # Taken back before it was read: the challenged player's list and inbox forget
        # it (its queued mail finds no notification and is not sent). A read one stays.
        withdraw_unread(found.challenged_id, challenge_id=found.pk)
    else:
        # Whatever became of it, the challenge no longer waits for its challenged player.
        mark_read(found.challenged_id, challenge_id=found.pk)
    return found


@transaction.atomic
def accept_challenge(*, challenge_id: int, player: Player, colour: str) -> Game:
    """The challenged ``player`` accepts, playing ``colour`` (ESPOL ACEP). Returns the game."""
    found = _lock_pending_challenge(challenge_id)
    if found.challenged_id != player.pk:
        raise errors.ChallengeNotFound()
    if colour not in (rules.WHITE, rules.BLACK):
        raise errors.InvalidColour()
    if not (found.challenger.is_active and found.challenged.is_active):
        # A challenge left over from an account closed in the meantime: no game can start.
        raise account_errors.UserNotFound()
    if colour == rules.WHITE:
        white, black = found.challenged, found.challenger
    else:
        white, black = found.challenger, found.challenged
    game = create_game(white=white, black=black, days_per_move=found.days_per_move)
    found.game = game
    close_challenge(found, Challenge.Status.ACCEPTED)
    publish_game_event(game, "game_started")
    notify(
        recipient=found.challenger,
        kind=NotificationKind.CHALLENGE_ACCEPTED,
        game=game,
        challenge=found,
        actor=player,
        detail={"colour": other(colour)},
    )
    return game


def create_game(
    *, white: Player, black: Player, days_per_move: int | None, **fields: object
) -> Game:
    """A new game in progress between ``white`` and ``black``, its clock started (and
    stopped at once if the player to move is on vacation). The one place a game is
    created, for challenges and for gateways alike."""
    now = timezone.now()
    try:
        # A savepoint: the pair's one-active-game constraint fails here, not the caller's
        # whole transaction.
        with transaction.atomic():
            game = Game.objects.create(
                white=white,
                black=black,
                created_at=now,
                updated_at=now,
                version=1,
                days_per_move=days_per_move,
                deadline=clock.deadline_after(now, days_per_move),
                **fields,
            )
    except IntegrityError as exc:
        raise errors.ActiveGameExists() from exc
    if pause_for_vacation(game, now):
        game.save(update_fields=["paused_at"])
    return game


@transaction.atomic
def start_gateway_game(
    *,
    white: Player,
    black: Player,
    initial_fen: str = "",
    site: str = "",
    days_per_move: int | None = None,
) -> Game:
    """Start a game between two players a gateway paired as they arrived (seed 001's
    ``#`` protocol, seed 004's IRC sessions), without a challenge: they asked for a game
    by registering. Unrated when either is a guest (``docs/protocols/guests.md``).

    ``initial_fen``: a position to start from instead of the standard one (chessirc's
    START); ``site``: where it is played (an IRC channel), for the PGN;
    ``days_per_move``: the clock both asked for (one of :data:`games.clock.DAYS_PER_MOVE`,
    or none).
    """
    if not clock.is_valid_days(days_per_move):
        raise errors.InvalidTimeControl()
    if white.pk == black.pk:
        raise errors.SelfChallenge()
    fen = rules.STARTING_FEN
    if initial_fen:
        try:
            fen = rules.starting_position(initial_fen)
        except rules.InvalidPositionError as exc:
            raise errors.InvalidPosition() from exc
    if User.objects.filter(pk__in=(white.pk, black.pk), is_active=True).count() != 2:
        raise account_errors.UserNotFound()
    rated = not (account_selectors.is_guest(white.pk) or account_selectors.is_guest(black.pk))
    game = create_game(
        white=white,
        black=black,
        days_per_move=days_per_move,
        rated=rated,
        fen=fen,
        initial_fen="" if fen == rules.STARTING_FEN else fen,
        site=site[:60],
    )
    publish_game_event(game, "game_started")
    return game


@transaction.atomic
def decline_challenge(*, challenge_id: int, player: Player) -> Challenge:
    """The challenged ``player`` turns the challenge down."""
    found = _lock_pending_challenge(challenge_id)
    if found.challenged_id != player.pk:
        raise errors.ChallengeNotFound()
    close_challenge(found, Challenge.Status.DECLINED)
    notify(
        recipient=found.challenger,
        kind=NotificationKind.CHALLENGE_DECLINED,
        challenge=found,
        actor=player,
    )
    return found


@transaction.atomic
def withdraw_challenge(*, challenge_id: int, player: Player) -> Challenge:
    """The ``player`` who made the challenge takes it back."""
    found = _lock_pending_challenge(challenge_id)
    if found.challenger_id != player.pk:
        raise errors.ChallengeNotFound()
    return close_challenge(found, Challenge.Status.WITHDRAWN)
