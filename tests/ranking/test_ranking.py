"""Records after each kind of ending, the leaderboard order, and rating changes."""

from __future__ import annotations

import datetime as dt

import pytest
import time_machine
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts import services as account_services
from games import services
from games.models import Game
from ranking.models import INITIAL_RATING, PlayerRecord, RatingChange
from ranking.selectors import ranking, rating_chart, top_ten
from ranking.services import record_result
from tests.conftest import PASSWORD
from tests.games.knight_walks import knight_walk

KNIGHT_DANCE = ["Nf3", "Nf6", "Ng1", "Ng8"]


def record(player) -> tuple[int, int, int]:
    found = PlayerRecord.objects.get(player=player)
    return (found.wins, found.losses, found.draws)


def test_new_player_starts_with_an_empty_record(alice):
    found = PlayerRecord.objects.get(player=alice)
    assert (found.wins, found.losses, found.draws, found.rating) == (0, 0, 0, INITIAL_RATING)


def test_checkmate_counts_a_win_and_a_loss(game, play, alice, bob):
    play(game, "f3", "e5", "g4", "Qh4#")
    assert record(bob) == (1, 0, 0)
    assert record(alice) == (0, 1, 0)


def test_resignation_counts_a_win_and_a_loss(game, alice, bob):
    services.resign(game_id=game.pk, player=alice)
    assert (record(alice), record(bob)) == ((0, 1, 0), (1, 0, 0))


def test_agreement_counts_a_draw_for_both(game, alice, bob):
    services.offer_draw(game_id=game.pk, player=alice)
    services.answer_draw(game_id=game.pk, player=bob, accept=True)
    assert (record(alice), record(bob)) == ((0, 0, 1), (0, 0, 1))


def test_claimed_draw_counts_a_draw_for_both(game, play, alice, bob):
    play(game, *(KNIGHT_DANCE * 2))
    services.claim_draw(game_id=game.pk, player=alice)
    assert (record(alice), record(bob)) == ((0, 0, 1), (0, 0, 1))


def test_stalemate_counts_a_draw_for_both(game, play, alice, bob):
    # Sam Loyd's ten-move stalemate.
    play(
        game,
        "e3",
        "a5",
        "Qh5",
        "Ra6",
        "Qxa5",
        "h5",
        "h4",
        "Rah6",
        "Qxc7",
        "f6",
        "Qxd7+",
        "Kf7",
        "Qxb7",
        "Qd3",
        "Qxb8",
        "Qh7",
        "Qxc8",
        "Kg6",
        "Qe6",
    )
    game.refresh_from_db()
    assert game.termination == "stalemate"
    assert (record(alice), record(bob)) == ((0, 0, 1), (0, 0, 1))


def _insufficient_material(game, play, alice) -> None:
    Game.objects.filter(pk=game.pk).update(fen="7k/8/8/8/8/8/1r6/K7 w - - 0 40")
    play(game, "Kxb2")


def _fivefold_repetition(game, play, alice) -> None:
    play(game, *(KNIGHT_DANCE * 4))


def _seventyfive_moves(game, play, alice) -> None:
    play(game, "e4", "e5", *knight_walk(["e4", "e5"], 150))


def _fifty_moves_claimed(game, play, alice) -> None:
    play(game, "e4", "e5", *knight_walk(["e4", "e5"], 100))
    services.claim_draw(game_id=game.pk, player=alice)


@pytest.mark.parametrize(
    ("end", "termination"),
    [
        (_insufficient_material, "insufficient_material"),
        (_fivefold_repetition, "fivefold_repetition"),
        (_seventyfive_moves, "seventyfive_moves"),
        (_fifty_moves_claimed, "fifty_moves"),
    ],
)
def test_every_other_draw_counts_a_draw_for_both(game, play, alice, bob, end, termination):
    end(game, play, alice)
    game.refresh_from_db()
    assert (game.result, game.termination) == ("1/2-1/2", termination)
    assert (record(alice), record(bob)) == ((0, 0, 1), (0, 0, 1))


def test_abandonment_counts_a_loss_for_the_leaver(game, play, alice, bob):
    play(game, "e4", "e5")
    account_services.unsubscribe(player=bob, password=PASSWORD)
    assert (record(alice), record(bob)) == ((1, 0, 0), (0, 1, 0))


def test_unfinished_game_counts_nothing(game, play, alice, bob):
    play(game, "e4", "e5")
    assert record(alice) == record(bob) == (0, 0, 0)


def rating_of(player) -> PlayerRecord:
    return PlayerRecord.objects.get(player=player)


def test_a_rated_game_moves_both_ratings_and_narrows_both_deviations(game, play, alice, bob):
    play(game, "f3", "e5", "g4", "Qh4#")
    winner, loser = rating_of(bob), rating_of(alice)
    # Two new players (1500, RD 350): Glicko-2 moves each by about 160 points.
    assert winner.rating == pytest.approx(1662.3, abs=0.1)
    assert loser.rating == pytest.approx(1337.7, abs=0.1)
    assert winner.deviation == loser.deviation == pytest.approx(290.3, abs=0.1)
    assert (winner.rated_games, loser.rated_games) == (1, 1)
    game.refresh_from_db()
    assert winner.rated_at == loser.rated_at == game.finished_at
    changes = {c.player_id: c for c in RatingChange.objects.filter(game_id=game.pk)}
    assert changes[bob.pk].rating_before == 1500
    assert changes[bob.pk].rating_after == winner.rating
    assert (changes[bob.pk].score, changes[alice.pk].score) == (1.0, 0.0)
    assert changes[alice.pk].opponent_id == bob.pk


def test_a_game_resigned_before_both_players_moved_is_not_rated(game, play, alice, bob):
    play(game, "e4")
    services.resign(game_id=game.pk, player=bob)
    assert (record(alice), record(bob)) == ((1, 0, 0), (0, 1, 0))  # counted, as the seed does
    assert rating_of(alice).rating == rating_of(bob).rating == INITIAL_RATING
    assert rating_of(alice).rated_games == 0
    assert not RatingChange.objects.exists()


def test_a_game_resigned_without_a_move_is_not_rated(game, alice, bob):
    services.resign(game_id=game.pk, player=alice)
    assert rating_of(bob).deviation == 350
    assert not RatingChange.objects.exists()


def test_a_game_ended_once_both_have_moved_is_rated(game, play, alice, bob):
    play(game, "e4", "e5")
    services.resign(game_id=game.pk, player=alice)
    assert rating_of(bob).rating > INITIAL_RATING > rating_of(alice).rating


def test_beating_a_stronger_player_gains_more(alice, bob, carol):
    now = timezone.now()
    PlayerRecord.objects.filter(player=bob).update(rating=1800, deviation=80)
    record_result(white_id=alice.pk, black_id=bob.pk, result="1-0", game_id=1, at=now,
                  rated=True)
    record_result(white_id=carol.pk, black_id=bob.pk, result="0-1", game_id=2, at=now,
                  rated=True)
    gain_upset = rating_of(alice).rating - INITIAL_RATING
    loss_expected = INITIAL_RATING - rating_of(carol).rating
    assert gain_upset > loss_expected > 0


def test_draw_between_equals_leaves_ratings_unchanged(alice, bob):
    record_result(white_id=alice.pk, black_id=bob.pk, result="1/2-1/2", game_id=1,
                  at=timezone.now(), rated=True)
    for player in (alice, bob):
        assert rating_of(player).rating == pytest.approx(INITIAL_RATING)
        assert rating_of(player).deviation < 350


def test_the_same_game_cannot_be_rated_twice(alice, bob):
    now = timezone.now()
    record_result(white_id=alice.pk, black_id=bob.pk, result="1-0", game_id=7, at=now,
                  rated=True)
    with pytest.raises(IntegrityError), transaction.atomic():
        record_result(white_id=alice.pk, black_id=bob.pk, result="1-0", game_id=7, at=now,
                      rated=True)
    assert rating_of(alice).rated_games == 1


def test_the_deviation_grows_while_a_player_is_away(alice, bob):
    start = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    PlayerRecord.objects.filter(player=alice).update(deviation=60, rated_at=start)
    steady = rating_of(alice)
    assert not steady.is_provisional_at(start + dt.timedelta(days=300))
    assert steady.is_provisional_at(start + dt.timedelta(days=400))
    assert steady.deviation_at(start + dt.timedelta(days=30)) > 60
    # A game after a long absence moves the rating more than one after a short one.
    PlayerRecord.objects.filter(player=bob).update(deviation=60, rated_at=start)
    record_result(white_id=alice.pk, black_id=bob.pk, result="1-0", game_id=1,
                  at=start + dt.timedelta(days=3), rated=True)
    soon = rating_of(alice).rating - INITIAL_RATING
    PlayerRecord.objects.filter(player=alice).update(
        rating=INITIAL_RATING, deviation=60, rated_at=start
    )
    record_result(white_id=alice.pk, black_id=bob.pk, result="1-0", game_id=2,
                  at=start + dt.timedelta(days=3 * 365), rated=True)
    assert rating_of(alice).rating - INITIAL_RATING > soon > 0


def test_established_until_is_when_the_deviation_passes_110(alice, bob):
    now = timezone.now()
    PlayerRecord.objects.filter(player__in=[alice, bob]).update(deviation=50, rated_at=now)
    record_result(white_id=alice.pk, black_id=bob.pk, result="1/2-1/2", game_id=1, at=now,
                  rated=True)
    found = rating_of(alice)
    assert found.established_until is not None
    just_before = found.established_until - dt.timedelta(minutes=1)
    assert not found.is_provisional_at(just_before)
    assert found.is_provisional_at(found.established_until + dt.timedelta(minutes=1))


def _set(player, wins: int, losses: int = 0, draws: int = 0) -> None:
    PlayerRecord.objects.filter(player=player).update(wins=wins, losses=losses, draws=draws)


def test_ranking_orders_by_wins(alice, bob, carol):
    _set(alice, 1)
    _set(bob, 3)
    _set(carol, 2)
    assert [r.player.username for r in ranking()] == ["bob", "carol", "alice"]


def test_ranking_tie_on_wins_goes_to_fewer_games(alice, bob):
    _set(alice, 2, losses=3)
    _set(bob, 2, losses=1)
    assert [r.player.username for r in ranking()] == ["bob", "alice"]


def test_ranking_tie_on_wins_and_games_goes_by_name(make_player):
    for name in ("zoe", "adam", "mia"):
        _set(make_player(name), 1, draws=1)
    assert [r.player.username for r in ranking()] == ["adam", "mia", "zoe"]


def test_ranking_leaves_out_inactive_players(alice, bob):
    _set(bob, 5)
    bob.is_active = False
    bob.save()
    assert [r.player.username for r in ranking()] == ["alice"]


def test_top_ten_holds_the_ten_best(make_player):
    players = [make_player(f"p{n:02d}") for n in range(12)]
    for n, player in enumerate(players):
        _set(player, n)
    best = top_ten()
    assert [r.player.username for r in best] == [f"p{n:02d}" for n in range(11, 1, -1)]


@pytest.mark.parametrize("order", ["rating", "draws", "losses", "played", "name", "bogus"])
def test_ranking_accepts_each_order_and_falls_back_to_wins(alice, bob, order):
    assert {r.player.username for r in ranking(order=order)} == {"alice", "bob"}


def test_ranking_reads_in_one_query(make_player, django_assert_num_queries):
    for n in range(15):
        make_player(f"p{n:02d}")
    with django_assert_num_queries(1):
        names = [r.player.username for r in top_ten()]
    assert len(names) == 10


def test_the_rating_chart_places_each_rating_at_the_moment_it_was_reached(
    game, play, alice, bob
):
    ended = dt.datetime(2026, 2, 14, 12, tzinfo=dt.UTC)
    play(game, "e4", "e5")
    with time_machine.travel(ended, tick=False):
        services.resign(game_id=game.pk, player=bob)
    chart = rating_chart(alice.pk)
    # The rating before the first game is drawn at that game's moment too.
    assert chart["times"] == [int(ended.timestamp())] * 2
    assert chart["ratings"][0] == INITIAL_RATING and chart["ratings"][1] > INITIAL_RATING
    assert rating_chart(0) == {"games": 0, "ratings": [], "times": []}
