"""Migration games 0009: the games finished under Elo are rated again with Glicko-2."""

from __future__ import annotations

import datetime as dt

import pytest

from ranking import glicko2
from ranking.rating_rules import Side, rate_game
from tests.games.test_migrations import executor_leaf, migrate

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("games", "0005_draw_offer_and_ended_by"), ("ranking", "0001_initial")]
AFTER = [("games", "0009_rate_finished_games_with_glicko2")]
DAY1 = dt.datetime(2026, 3, 1, 12, tzinfo=dt.UTC)


def test_finished_games_are_replayed_in_order_and_unrated_ones_skipped(alice, bob, carol):
    apps = migrate(BEFORE)
    Game = apps.get_model("games", "Game")
    PlayerRecord = apps.get_model("ranking", "PlayerRecord")
    # The Elo era's records: counts and ratings.
    PlayerRecord.objects.filter(player_id=alice.pk).update(wins=1, losses=1, rating=1500)
    PlayerRecord.objects.filter(player_id=bob.pk).update(wins=1, losses=1, rating=1516)
    PlayerRecord.objects.filter(player_id=carol.pk).update(wins=1, rating=1484)

    def finished(white, black, result, at, moves):
        return Game.objects.create(
            white_id=white.pk, black_id=black.pk, status="finished", result=result,
            termination="resignation", finished_at=at, next_move_number=moves + 1,
        ).pk

    second = finished(alice, bob, "0-1", DAY1 + dt.timedelta(days=10), moves=30)
    first = finished(alice, bob, "1-0", DAY1, moves=20)
    unrated = finished(carol, alice, "1-0", DAY1 + dt.timedelta(days=3), moves=1)
    Game.objects.create(white_id=bob.pk, black_id=carol.pk)  # in progress
    try:
        apps = migrate(AFTER)
        PlayerRecord = apps.get_model("ranking", "PlayerRecord")
        RatingChange = apps.get_model("ranking", "RatingChange")
        records = {r.player_id: r for r in PlayerRecord.objects.all()}

        new = Side(glicko2.Rating(), None)
        a1, b1 = rate_game(new, new, "1-0", DAY1)
        at2 = DAY1 + dt.timedelta(days=10)
        a2, b2 = rate_game(Side(a1, DAY1), Side(b1, DAY1), "0-1", at2)
        assert records[alice.pk].rating == pytest.approx(a2.rating)
        assert records[bob.pk].deviation == pytest.approx(b2.deviation)
        assert records[alice.pk].rated_at == at2
        assert (records[alice.pk].rated_games, records[bob.pk].rated_games) == (2, 2)
        # carol's only game ended before black moved: her rating is a newcomer's.
        assert (records[carol.pk].rating, records[carol.pk].deviation) == (1500, 350)
        assert records[carol.pk].rated_games == 0
        # Wins, losses and draws are as they were.
        assert (records[carol.pk].wins, records[bob.pk].losses) == (1, 1)
        history = list(
            RatingChange.objects.filter(player_id=alice.pk).order_by("at").values_list(
                "game_id", "rating_before", "rating_after"
            )
        )
        assert history == [
            (first, 1500, pytest.approx(a1.rating)),
            (second, pytest.approx(a1.rating), pytest.approx(a2.rating)),
        ]
        assert not RatingChange.objects.filter(game_id=unrated).exists()
    finally:
        migrate(executor_leaf())
