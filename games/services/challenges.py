"""Challenges and the games they start: made, accepted, declined, withdrawn; and the
games a gateway pairs without one. :func:`create_game` is the one place a game begins."""

from __future__ import annotations

import secrets
from datetime import timedelta
from math import ceil

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from accounts import errors as account_errors
from accounts import selectors as account_selectors
from accounts.types import Player
from games import clock, errors, rules, selectors
from games.events import publish_challenge_event, publish_game_event
from games.models import Challenge, Game, NotificationKind, Seek
from games.models.games import new_short_id
from games.notifications import mark_read, notify, withdraw_unread
from games.services.clocks import pause_for_vacation
from games.services.guards import other

User = get_user_model()


def free_short_id() -> str:
    """A short id no game, challenge or seek has: a game takes its challenge's (or
    seek's), so the three tables share one set of ids."""
    while True:
        short_id = new_short_id()
        if not (
            Game.objects.filter(short_id=short_id).exists()
            or Challenge.objects.filter(short_id=short_id).exists()
            or Seek.objects.filter(short_id=short_id).exists()
        ):
            return short_id


def lock_pair(a_id: int, b_id: int) -> None:
    """Lock the two players' rows until the transaction ends: what a pair may start (its
    games in progress, its pending challenges) is counted, then written, under it.

    PostgreSQL: row locks, in the order of the ids, so that two requests for the same
    pair queue instead of deadlocking; ``NO KEY UPDATE``, which the foreign-key checks of
    rows inserted meanwhile (``KEY SHARE``) do not wait for. Taken before any challenge
    or game row, as closing an account takes its user row before its challenges. SQLite
    has no row locks: every write transaction there holds the database's one write lock
    from its start (``IMMEDIATE``), which serialises the count and the write as well."""
    list(
        User.objects.select_for_update(no_key=True)
        .filter(pk__in=(a_id, b_id))
        .order_by("pk")
        .values_list("pk", flat=True)
    )


def _refuse_at_the_limit(a_id: int, b_id: int) -> int:
    """Refuse a new game (or challenge) for the locked pair when its games in progress
    have reached the site's limit; return how many more it may start."""
    limit = selectors.games_per_pair()
    room = limit - selectors.pair_games_in_progress(a_id, b_id).count()
    if room <= 0:
        raise errors.ActiveGameExists(limit=limit)
    return room


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


def _refuse_pending_between(challenger_id: int, challenged_id: int, *, room: int) -> None:
    """Refuse a second pending challenge to the same opponent (ESPOL's ACEP names a
    challenge by its challenger), and a challenge back to someone whose own challenge,
    accepted, would leave the pair no ``room`` for another game: answer theirs. With one
    game per pair (seed 000's rule) that is always: "el oponente lo solicitó primero"."""
    pending = Challenge.objects.filter(
        Q(challenger_id=challenger_id, challenged_id=challenged_id)
        | Q(challenger_id=challenged_id, challenged_id=challenger_id),
        status=Challenge.Status.PENDING,
    ).values_list("challenger_id", flat=True)
    from_them = 0
    for from_id in pending:
        if from_id == challenger_id:
            raise errors.ChallengeExists()
        from_them += 1
    if from_them and from_them >= room:
        raise errors.OpponentChallengedFirst()


@transaction.atomic
def challenge(
    *,
    challenger: Player,
    challenged: Player,
    days_per_move: int | None = None,
    fischer: clock.Fischer | None = None,
    colour: str = Challenge.ColourChoice.ACCEPTOR,
    rated: bool = True,
) -> Challenge:
    """``challenger`` invites ``challenged`` to a game (ESPOL JUEG), with
    ``days_per_move`` per move (one of :data:`games.clock.DAYS_PER_MOVE`) or no clock.

    ``colour``: who picks the colours (:class:`Challenge.ColourChoice`): the challenged
    player when accepting (``"acceptor"``, ESPOL's rule), or the challenger now, playing
    ``"white"``, ``"black"`` or a colour drawn now (``"random"``, lichess's rule).
    ``rated``: whether the game will count in the ratings. ``fischer``: a Fischer clock
    instead of days per move."""
    check_time_control(days_per_move, fischer)
    if colour not in Challenge.ColourChoice.values:
        raise errors.InvalidColour()
    if colour == Challenge.ColourChoice.ACCEPTOR:
        challenger_colour = ""
    elif colour == Challenge.ColourChoice.RANDOM:
        challenger_colour = secrets.choice((rules.WHITE, rules.BLACK))
    else:
        challenger_colour = colour
    if challenger.pk == challenged.pk:
        raise errors.SelfChallenge()
    lock_pair(challenger.pk, challenged.pk)
    # Read from the database, not the caller's object: the account may have been closed
    # since the caller loaded it.
    if not _both_active(challenger.pk, challenged.pk):
        raise account_errors.UserNotFound()
    room = _refuse_at_the_limit(challenger.pk, challenged.pk)
    _refuse_pending_between(challenger.pk, challenged.pk, room=room)
    _refuse_over_the_rate(challenger.pk, challenged.pk)
    try:
        with transaction.atomic():
            created = Challenge.objects.create(
                challenger=challenger,
                challenged=challenged,
                days_per_move=days_per_move,
                **fischer_fields(fischer),
                short_id=free_short_id(),
                colour_choice=colour,
                challenger_colour=challenger_colour,
                rated=rated,
            )
    except IntegrityError as exc:
        # The constraint stands behind the lock: one pending challenge per ordered pair.
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
    found.save(update_fields=["status", "decided_at", "game", "decline_reason"])
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
def accept_challenge(*, challenge_id: int, player: Player, colour: str | None) -> Game:
    """The challenged ``player`` accepts (ESPOL ACEP). Returns the game.

    ``colour``: the colour ``player`` plays, when the challenge lets them pick; ``None``
    for the one the challenger left them, or a colour drawn now when they may pick. A
    colour other than the one the challenger left is refused
    (:class:`~games.errors.ColourChosenByChallenger`). Refused while the pair has as many
    games in progress as the site allows (the challenge then stays pending: it may be
    accepted once one of them ends)."""
    pair = (
        Challenge.objects.filter(pk=challenge_id)
        .values_list("challenger_id", "challenged_id")
        .first()
    )
    if pair is None:
        raise errors.ChallengeNotFound()
    # The pair first, then the challenge: the order every service locks them in.
    lock_pair(*pair)
    found = _lock_pending_challenge(challenge_id)
    if found.challenged_id != player.pk:
        raise errors.ChallengeNotFound()
    if found.challenger_colour:
        left = found.challenged_colour
        if colour is not None and colour != left:
            if colour not in (rules.WHITE, rules.BLACK):
                raise errors.InvalidColour()
            raise errors.ColourChosenByChallenger(colour=left)
        colour = left
    elif colour is None:
        colour = secrets.choice((rules.WHITE, rules.BLACK))
    elif colour not in (rules.WHITE, rules.BLACK):
        raise errors.InvalidColour()
    if not (found.challenger.is_active and found.challenged.is_active):
        # A challenge left over from an account closed in the meantime: no game can start.
        raise account_errors.UserNotFound()
    if colour == rules.WHITE:
        white, black = found.challenged, found.challenger
    else:
        white, black = found.challenger, found.challenged
    # The game takes the challenge's id, as on lichess: a client that made the challenge
    # knows its game by the id it was given.
    game = create_game(
        white=white,
        black=black,
        days_per_move=found.days_per_move,
        fischer=found.fischer,
        short_id=found.short_id,
        rated=found.rated,
    )
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


def check_time_control(days_per_move: object, fischer: object) -> None:
    """Refuse a time control that is not one: days per move not offered, a Fischer
    clock out of bounds, or both at once."""
    if not clock.is_valid_days(days_per_move):
        raise errors.InvalidTimeControl()
    if fischer is None:
        return
    if not isinstance(fischer, clock.Fischer):
        raise errors.InvalidTimeControl()
    if days_per_move is not None:
        raise errors.InvalidTimeControl(str(errors.BOTH_CLOCKS_MESSAGE))
    problem = clock.fischer_problem(fischer.base_days, fischer.increment_days, fischer.cap_days)
    if problem is not None:
        raise errors.InvalidTimeControl(problem)


def fischer_fields(fischer: clock.Fischer | None) -> dict[str, int | None]:
    """The model fields of a Fischer clock (all ``None`` without one)."""
    return {
        "fischer_base_days": fischer.base_days if fischer else None,
        "fischer_increment_days": fischer.increment_days if fischer else None,
        "fischer_cap_days": fischer.cap_days if fischer else None,
    }


def create_game(
    *,
    white: Player,
    black: Player,
    days_per_move: int | None,
    fischer: clock.Fischer | None = None,
    within_pair_limit: bool = True,
    **fields: object,
) -> Game:
    """A new game in progress between ``white`` and ``black``, its clock started (and
    stopped at once if the player to move is on vacation). The one place a game is
    created, for challenges, gateways and tournaments alike, in the caller's transaction
    (a tournament's game passes its ``tournament``, ``tournament_group`` and
    ``tournament_round`` in ``fields``).

    Refused (:class:`~games.errors.ActiveGameExists`) when the pair has as many games in
    progress as the site allows, counted under a lock on both players, so that two
    acceptances racing each other cannot both pass. ``within_pair_limit=False``: the games of a
    tournament, neither refused nor counted (:func:`games.selectors.pair_games_in_progress`
    leaves them out)."""
    if within_pair_limit:
        lock_pair(white.pk, black.pk)
        _refuse_at_the_limit(white.pk, black.pk)
    now = timezone.now()
    fields.setdefault("short_id", free_short_id())
    game = Game.objects.create(
        white=white,
        black=black,
        created_at=now,
        updated_at=now,
        version=1,
        days_per_move=days_per_move,
        **fischer_fields(fischer),
        white_bank=fischer.base if fischer else None,
        black_bank=fischer.base if fischer else None,
        deadline=now + fischer.base if fischer else clock.deadline_after(now, days_per_move),
        **fields,
    )
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
def decline_challenge(*, challenge_id: int, player: Player, reason: str = "") -> Challenge:
    """The challenged ``player`` turns the challenge down, for ``reason`` (one of
    :class:`Challenge.DeclineReason`, or none)."""
    if reason and reason not in Challenge.DeclineReason.values:
        raise errors.InvalidDeclineReason()
    found = _lock_pending_challenge(challenge_id)
    if found.challenged_id != player.pk:
        raise errors.ChallengeNotFound()
    found.decline_reason = reason
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
