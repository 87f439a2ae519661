"""ranking.glicko2 against Glickman's worked example ("Example of the Glicko-2 system")."""

from __future__ import annotations

import pytest

from ranking.glicko2 import Rating, at, update


def test_glickmans_worked_example():
    # A 1500 player (RD 200, volatility 0.06) beats a 1400 (RD 30) and loses to a 1550
    # (RD 100) and a 1700 (RD 300), with τ = 0.5: Glickman gets 1464.06, 151.52, 0.05999.
    player = Rating(1500, 200, 0.06)
    results = [(Rating(1400, 30), 1.0), (Rating(1550, 100), 0.0), (Rating(1700, 300), 0.0)]

    after = update(player, results, tau=0.5)

    assert after.rating == pytest.approx(1464.06, abs=0.01)
    assert after.deviation == pytest.approx(151.52, abs=0.01)
    assert after.volatility == pytest.approx(0.05999, abs=0.00001)


def test_a_period_without_games_only_widens_the_deviation():
    # Glickman's step 6 alone: φ' = √(φ² + σ²); 200 → 200.27 on the Glicko scale.
    after = update(Rating(1500, 200, 0.06), [])
    assert after.rating == 1500
    assert after.deviation == pytest.approx(200.27, abs=0.01)


def test_the_deviation_grows_with_the_time_away_and_stops_at_350():
    steady = Rating(1800, 60, 0.06)
    assert at(steady, 0) == steady
    assert 60 < at(steady, 10).deviation < at(steady, 100).deviation < 350
    assert at(steady, 100_000).deviation == 350
    assert at(steady, 100).rating == 1800


def test_a_win_against_a_stronger_player_gains_more_than_against_a_weaker():
    me = Rating(1500, 100, 0.06)
    upset = update(me, [(Rating(1800, 80), 1.0)]).rating - 1500
    expected = update(me, [(Rating(1200, 80), 1.0)]).rating - 1500
    assert upset > expected > 0


def test_a_draw_between_equals_changes_no_rating():
    after = update(Rating(1500, 120, 0.06), [(Rating(1500, 120, 0.06), 0.5)])
    assert after.rating == pytest.approx(1500)
    assert after.deviation < 120
