"""A player gives a game up: resigns, leaves the service (unsubscribed or revoked), or,
as a gateway's guest, closes the session the game lived in."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from accounts import selectors as account_selectors
from accounts.types import Player
from games import errors, rules
from games.models import Challenge, Game
from games.services.challenges import close_challenge
from games.services.endings import finish
from games.services.guards import colour_in, is_due, lock_game, other, require_active
from games.services.timeouts import expire_game, on_the_clock


@on_the_clock
@transaction.atomic
def resign(*, game_id: int, player: Player) -> Game:
    """``player`` resigns; the opponent wins (ESPOL REND)."""
    game = lock_game(game_id)
    colour = colour_in(game, player)
    require_active(game)
    outcome = rules.Outcome(rules.Termination.RESIGNATION, other(colour))
    finish(game, outcome, at=timezone.now(), event="resigned", ended_by=colour, actor=player,
           by=colour)
    return game


@on_the_clock
@transaction.atomic
def abort(*, game_id: int, player: Player) -> Game:
    """``player`` calls the game off before both players have moved (lichess's abort):
    no result, no rating. Once both have moved, :class:`~games.errors.NotAbortable`."""
    game = lock_game(game_id)
    colour = colour_in(game, player)
    require_active(game)
    if rules.both_sides_have_moved(start_fen=game.start_fen, plies=game.next_move_number - 1):
        raise errors.NotAbortable()
    finish(game, rules.ABORTED, at=timezone.now(), event="aborted", ended_by=colour,
           actor=player, by=colour)
    return game


@transaction.atomic
def abandon_games(*, player: Player) -> Sequence[Game]:
    """End each of ``player``'s active games as a loss for them (unsubscribe, revocation)."""
    # Challenges first: an accept running now holds its challenge row, so waiting for that
    # row here means the game it creates is committed, and found, when the games are read.
    for pending in Challenge.objects.select_for_update().filter(
        Q(challenger=player) | Q(challenged=player), status=Challenge.Status.PENDING
    ):
        close_challenge(pending, Challenge.Status.WITHDRAWN)
    ended = []
    game_ids = list(
        Game.objects.of_player(player, status=Game.Status.ACTIVE)
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    now = timezone.now()
    for game_id in game_ids:
        game = lock_game(game_id)
        if not game.is_active:
            continue
        _abandon(game, player, now)
        ended.append(game)
    return ended


def _abandon(game: Game, player: Player, now: dt.datetime) -> None:
    """``player`` leaves ``game`` (locked, active) for good: the opponent wins, or, if
    ``player`` had not moved yet, the game is aborted (it costs nothing and wins the
    opponent nothing, lichess's rule)."""
    colour = colour_in(game, player)
    moved = rules.plies_played_by(colour, start_fen=game.start_fen, plies=game.next_move_number - 1)
    if moved:
        outcome = rules.Outcome(rules.Termination.ABANDONMENT, other(colour))
        event = "abandoned"
    else:
        outcome, event = rules.ABORTED, "aborted"
    finish(game, outcome, at=now, event=event, ended_by=colour, actor=player, tell_actor=False,
           by=colour)


@transaction.atomic
def leave_gateway_game(*, game_id: int, player: Player | None = None) -> Game | None:
    """A gateway's session closed with ``game_id`` unfinished. Nothing can bring a guest
    back to its game (the name lives as long as the connection), so the guest ``player``
    leaves it for good: the opponent wins, or before the guest's first move the game is
    aborted; without ``player``, the player the game waits for, when a guest (chessirc,
    where one connection may hold both sides). A registered player keeps the game, to go
    on through another door. A clock that ran out first ends the game on time instead.
    Returns the game when this ended it, ``None`` when nothing changed."""
    game = lock_game(game_id)
    if not game.is_active:
        return None
    if is_due(game):
        # Time ran out before the session closed: the clock decides, not the leaving.
        return expire_game(game_id=game_id)
    if player is None:
        player = game.player_on_clock
    elif game.colour_of(player.pk) is None:
        return None
    if not account_selectors.is_guest(player.pk):
        return None
    _abandon(game, player, timezone.now())
    return game
