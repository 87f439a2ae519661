"""``python -m bench``'s bookkeeping (the benchmarks themselves print figures; they are
not timed tests): goals, sizes, the table."""

from __future__ import annotations

import importlib

entry = importlib.import_module("bench.__main__")


def test_a_figure_with_a_goal_says_whether_it_meets_it():
    assert entry.Metric("p99", 19.9, "ms", 20.0).met is True
    assert entry.Metric("p99", 20.1, "ms", 20.0).met is False


def test_a_figure_with_a_floor_says_whether_it_reaches_it():
    assert entry.Metric("logins", 40.0, "/s", 40.0, at_least=True).met is True
    assert entry.Metric("logins", 39.9, "/s", 40.0, at_least=True).met is False


def test_a_figure_given_for_context_has_no_verdict():
    assert entry.Metric("limit", 3.0, "ms").met is None


def test_the_full_run_measures_at_the_sizes_the_goals_name():
    assert entry.FULL.spectators == entry.GOAL_SPECTATORS == 1_000
    assert entry.FULL.idle_sessions == entry.GOAL_IDLE_SESSIONS == 10_000
    assert (entry.FULL.small_games, entry.FULL.large_games) == (1_000, 1_000_000)
    assert "4" in entry.FULL.writers.split(",")


def test_the_quick_run_is_smaller_everywhere_it_is_slow():
    quick, full = entry.QUICK, entry.FULL
    assert quick.large_games < full.large_games
    assert quick.spectators < full.spectators
    assert quick.idle_sessions < full.idle_sessions
    assert quick.writers == "4"  # the one count with a goal
    assert quick.pgn_games < full.pgn_games == 2_000
    assert quick.api_event_streams < full.api_event_streams == 500
    assert quick.api_board_streams < full.api_board_streams == 200
    assert quick.login_rounds < full.login_rounds


def test_the_table_shows_each_verdict():
    text = entry.table([entry.Metric("a", 1.0, "ms", 2.0), entry.Metric("b", 3.0, "ms", 2.0),
                        entry.Metric("c", 4.0, "MB")])
    rows = text.splitlines()[1:]
    assert rows[0].endswith("yes") and rows[1].endswith("NO") and rows[2].rstrip().endswith("MB")
