"""Timeouts under concurrency, in real threads with their own database connections:
two sweeps at once end each game once; a move racing the sweep never lands late."""

from __future__ import annotations

import datetime as dt
from functools import partial

import pytest
from django.utils import timezone

from games import errors, services
from games.models import Game, Move
from ranking.models import PlayerRecord
from tests.games.test_concurrency import ON_EACH_DATABASE, race

pytestmark = pytest.mark.django_db(transaction=True)

GAMES = 12


def _timed_games(make_player, play, count: int) -> list[Game]:
    games = []
    for n in range(count):
        white, black = make_player(f"w{n}"), make_player(f"b{n}")
        made = services.challenge(challenger=black, challenged=white, days_per_move=1)
        game = services.accept_challenge(challenge_id=made.pk, player=white, colour="white")
        games.append(play(game, "e4", "e5"))
    return games


@ON_EACH_DATABASE
def test_two_sweeps_at_once_end_each_game_once(database, make_player, play):
    games = _timed_games(make_player, play, GAMES)
    later = timezone.now() + dt.timedelta(days=2)
    # Small pages, so that the two sweeps walk over the same games page after page.
    sweep = partial(services.expire_due_games, now=later, batch_size=3)
    first, second = race(sweep, sweep)
    assert isinstance(first, int) and isinstance(second, int), (first, second)
    assert first + second == GAMES
    assert not Game.objects.filter(status="active").exists()
    for game in games:
        game.refresh_from_db()
        assert (game.result, game.termination) == ("0-1", "timeout")
    # Each win and loss counted once: a game ended twice would count twice.
    assert sorted(PlayerRecord.objects.values_list("wins", "losses")) == sorted(
        [(0, 1)] * GAMES + [(1, 0)] * GAMES
    )


@ON_EACH_DATABASE
def test_a_move_racing_the_sweep_after_the_deadline_never_lands(database, make_player, play):
    for game in _timed_games(make_player, play, 4):
        # Test set-up only: the deadline has just passed.
        Game.objects.filter(pk=game.pk).update(
            deadline=timezone.now() - dt.timedelta(milliseconds=1)
        )
        moved, swept = race(
            partial(
                services.make_move, game_id=game.pk, player=game.white, move_number=3, move="Nf3"
            ),
            services.expire_due_games,
        )
        assert isinstance(moved, errors.GameFinished), moved
        assert isinstance(swept, int), swept
        game.refresh_from_db()
        assert (game.result, game.termination) == ("0-1", "timeout")
        assert Move.objects.filter(game=game).count() == 2


@ON_EACH_DATABASE
def test_two_sweeps_at_once_send_each_24_hour_warning_once(database, make_player):
    from games.models import Notification

    games = []
    for n in range(GAMES):
        white, black = make_player(f"w{n}"), make_player(f"b{n}")
        made = services.challenge(challenger=black, challenged=white, days_per_move=3)
        games.append(
            services.accept_challenge(challenge_id=made.pk, player=white, colour="white")
        )
    # A day or less left for every white player, none run out.
    later = timezone.now() + dt.timedelta(days=2, hours=1)
    sweep = partial(services.warn_low_time, now=later, batch_size=3)
    first, second = race(sweep, sweep)
    assert isinstance(first, int) and isinstance(second, int), (first, second)
    assert first + second == GAMES
    warned = Notification.objects.filter(kind="low_time")
    assert sorted(warned.values_list("game_id", flat=True)) == sorted(g.pk for g in games)
    assert {n.recipient_id for n in warned} == {g.white_id for g in games}
