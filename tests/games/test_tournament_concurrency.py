"""Tournaments under concurrent requests, in real threads with their own connections
(PostgreSQL settles them with row locks, SQLite by queueing writers): games of one group
ending at once are all counted, the last place is taken once, and a withdrawal racing an
ending of one of the player's games neither deadlocks nor loses a result."""

from __future__ import annotations

from functools import partial

import pytest

from games import errors, services
from games.models import Game, GroupStanding, Tournament, TournamentEntry, TournamentGroup
from tests.games.test_concurrency import race
from tests.games.tournaments import join_all, make_event, make_players

pytestmark = pytest.mark.django_db(transaction=True)


def test_games_of_one_group_ending_at_once_are_all_counted(make_player):
    players = make_players(make_player, 6)
    event = make_event(max_players=6)
    join_all(event, players)
    group = TournamentGroup.objects.get(tournament=event)
    games = list(Game.objects.filter(tournament_group=group).order_by("pk"))
    for first, second in zip(games[0::2], games[1::2], strict=False):
        outcomes = race(
            partial(services.resign, game_id=first.pk, player=first.black),
            partial(services.resign, game_id=second.pk, player=second.black),
        )
        assert all(isinstance(o, Game) for o in outcomes), outcomes
    finished = Game.objects.filter(tournament_group=group, status=Game.Status.FINISHED).count()
    points = sum(float(p) for p in GroupStanding.objects.values_list("points", flat=True))
    assert points == finished == 14  # 15 games: the last one of an odd count not played
    assert sum(GroupStanding.objects.values_list("left", flat=True)) == 2


def test_the_last_place_is_taken_once_and_the_event_starts_once(make_player):
    players = make_players(make_player, 5)
    event = make_event(max_players=4)
    join_all(event, players[:3])
    outcomes = race(
        partial(services.join_tournament, tournament_id=event.pk, player=players[3]),
        partial(services.join_tournament, tournament_id=event.pk, player=players[4]),
    )
    joined = [o for o in outcomes if isinstance(o, TournamentEntry)]
    # Full, or already started by the other: either way, refused.
    too_late = errors.TournamentFull | errors.RegistrationClosed
    refused = [o for o in outcomes if isinstance(o, too_late)]
    assert (len(joined), len(refused)) == (1, 1), outcomes
    event.refresh_from_db()
    assert event.status == Tournament.Status.RUNNING
    assert Game.objects.filter(tournament=event).count() == 6
    assert TournamentGroup.objects.filter(tournament=event).count() == 1


def test_a_withdrawal_racing_an_ending_of_the_players_game(make_player):
    for round_number in range(3):
        players = make_players(make_player, 4, prefix=f"r{round_number}p")
        event = make_event(name=f"Cup {round_number}", max_players=4)
        join_all(event, players)
        leaver = players[0]
        game = Game.objects.filter(tournament=event).of_player(leaver).order_by("pk").first()
        opponent = game.opponent_of(leaver.pk)
        withdrawn, resigned = race(
            partial(services.withdraw, tournament_id=event.pk, player=leaver),
            partial(services.resign, game_id=game.pk, player=opponent),
        )
        assert isinstance(withdrawn, TournamentEntry), withdrawn
        assert isinstance(resigned, Game | errors.GameFinished), resigned
        assert not Game.objects.filter(tournament=event).of_player(
            leaver, status=Game.Status.ACTIVE
        ).exists()
        group = TournamentGroup.objects.get(tournament=event)
        row = GroupStanding.objects.get(group=group, player=leaver)
        assert row.withdrawn and row.annulled  # none or one of three finished: annulled
