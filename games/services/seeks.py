"""Open challenges (seeks): made by one player, listed in the lobby, taken by any other
player the seek admits, or cancelled by its maker. Taking one starts its game through
:func:`~games.services.challenges.create_game`, under the same lock on the pair as an
accepted challenge, so the site's games-per-pair rule holds at every door."""

from __future__ import annotations

import secrets

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from accounts import errors as account_errors
from accounts import selectors as account_selectors
from accounts.types import Player
from games import clock, errors, rules
from games.events import publish_game_event, publish_seek_event
from games.models import Game, NotificationKind, Seek
from games.models.seeks import NAME_MAX_LENGTH, RATING_CEILING, RATING_FLOOR
from games.notifications import notify
from games.services.challenges import create_game, free_short_id, lock_pair
from ranking import selectors as ranking_selectors

User = get_user_model()


def _check_range(rating_min: int | None, rating_max: int | None) -> None:
    for bound in (rating_min, rating_max):
        # A bool is an int to Python, not a rating.
        if bound is not None and not (
            type(bound) is int and RATING_FLOOR <= bound <= RATING_CEILING
        ):
            raise errors.InvalidRatingRange()
    if rating_min is not None and rating_max is not None and rating_min > rating_max:
        raise errors.InvalidRatingRange()


def _refuse_bots_and_non_players(player_id: int) -> None:
    if not account_selectors.players().filter(pk=player_id).exists():
        raise account_errors.UserNotFound()
    if account_selectors.is_bot(player_id):
        raise errors.BotsCannotSeek()


@transaction.atomic
def create_seek(
    *,
    maker: Player,
    days_per_move: int | None,
    colour: str = Seek.MakerColour.RANDOM,
    rated: bool = True,
    rating_min: int | None = None,
    rating_max: int | None = None,
    name: str = "",
) -> Seek:
    """``maker`` offers a game to anyone: ``days_per_move`` per move (one of
    :data:`games.clock.DAYS_PER_MOVE`, or no clock), playing ``colour`` (white, black,
    or random: drawn when it is taken, unless the acceptor picks), ``rated`` or not,
    to an acceptor rated from ``rating_min`` to ``rating_max`` (either may be open).
    Refused beyond :setting:`SEEKS_PER_PLAYER` open at once."""
    if not clock.is_valid_days(days_per_move):
        raise errors.InvalidTimeControl()
    if colour not in Seek.MakerColour.values:
        raise errors.InvalidColour()
    _check_range(rating_min, rating_max)
    if len(name) > NAME_MAX_LENGTH:
        raise errors.InvalidSeekName()
    # The maker's row, locked: two requests of one maker count their open seeks in turn.
    User.objects.select_for_update(no_key=True).filter(pk=maker.pk).values_list("pk").first()
    _refuse_bots_and_non_players(maker.pk)
    limit = settings.SEEKS_PER_PLAYER
    if limit and Seek.objects.filter(maker_id=maker.pk, status=Seek.Status.OPEN).count() >= limit:
        raise errors.TooManySeeks(limit=limit)
    made = Seek.objects.create(
        maker=maker,
        short_id=free_short_id(),
        days_per_move=days_per_move,
        colour=colour,
        rated=rated,
        rating_min=rating_min,
        rating_max=rating_max,
        name=name,
    )
    publish_seek_event(made, "seek_created")
    return made


def _lock_open_seek(seek_id: int) -> Seek:
    """The seek, locked; refused with the reason it cannot be taken any more."""
    try:
        found = Seek.objects.select_for_update(of=("self",)).select_related("maker").get(
            pk=seek_id
        )
    except Seek.DoesNotExist as exc:
        raise errors.SeekNotFound() from exc
    if found.status == Seek.Status.TAKEN:
        raise errors.SeekTaken()
    if found.status == Seek.Status.CANCELLED:
        raise errors.SeekCancelled()
    return found


def _colours(found: Seek, wanted: str | None) -> str:
    """The acceptor's colour: the one the maker left, or for a random seek the one the
    acceptor asks for (lichess's open challenge's ``urlWhite``/``urlBlack``), else drawn."""
    if wanted is not None and wanted not in (rules.WHITE, rules.BLACK):
        raise errors.InvalidColour()
    if found.colour == Seek.MakerColour.RANDOM:
        return wanted or secrets.choice((rules.WHITE, rules.BLACK))
    left = rules.BLACK if found.colour == rules.WHITE else rules.WHITE
    if wanted is not None and wanted != left:
        raise errors.ColourChosenByChallenger(colour=left)
    return left


@transaction.atomic
def accept_seek(*, seek_id: int, player: Player, colour: str | None = None) -> Game:
    """``player`` takes the open seek; its game starts for both. ``colour``: the one
    ``player`` asks for (``None``: whatever the seek leaves). Refused for the maker, a
    bot, a player outside the rating range, a pair at the site's limit of games, and a
    seek already taken or cancelled: of two acceptors at once exactly one wins, as
    each locks the seek's row and reads its status again under the lock."""
    maker_id = Seek.objects.filter(pk=seek_id).values_list("maker_id", flat=True).first()
    if maker_id is None:
        raise errors.SeekNotFound()
    if maker_id == player.pk:
        raise errors.OwnSeek()
    # The pair first, then the seek: the order every service locks them in.
    lock_pair(maker_id, player.pk)
    found = _lock_open_seek(seek_id)
    _refuse_bots_and_non_players(player.pk)
    if not account_selectors.players().filter(pk=maker_id).exists():
        raise account_errors.UserNotFound()
    if not found.admits(ranking_selectors.record_of(player.pk).rating):
        raise errors.OutOfRatingRange()
    mine = _colours(found, colour)
    white, black = (player, found.maker) if mine == rules.WHITE else (found.maker, player)
    game = create_game(
        white=white,
        black=black,
        days_per_move=found.days_per_move,
        short_id=found.short_id,
        rated=found.rated,
    )
    found.status = Seek.Status.TAKEN
    found.decided_at = timezone.now()
    found.game = game
    found.save(update_fields=["status", "decided_at", "game"])
    publish_seek_event(found, "seek_taken")
    publish_game_event(game, "game_started")
    notify(
        recipient=found.maker,
        kind=NotificationKind.CHALLENGE_ACCEPTED,
        game=game,
        actor=player,
        detail={"colour": rules.BLACK if mine == rules.WHITE else rules.WHITE},
    )
    return game


@transaction.atomic
def cancel_seek(*, seek_id: int, player: Player) -> Seek:
    """The maker takes their open seek back; anyone else is told there is no such seek."""
    found = _lock_open_seek(seek_id)
    if found.maker_id != player.pk:
        raise errors.SeekNotFound()
    found.status = Seek.Status.CANCELLED
    found.decided_at = timezone.now()
    found.save(update_fields=["status", "decided_at"])
    publish_seek_event(found, "seek_cancelled")
    return found
