"""The tournament rules as pure functions: FIDE's Berger tables, snake seeding, the
standings and their tiebreaks, ICCF's withdrawal rule. No database."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import pytest

from games.tournament_rules import (
    GameResult,
    annuls_on_withdrawal,
    berger_table,
    group_count,
    round_robin,
    snake_groups,
    standings,
)


def _table(text: str) -> list[list[tuple[int, int]]]:
    """A table as the FIDE Handbook prints it: one round per line, ``1-4, 2-3``."""
    return [
        [tuple(int(n) for n in pair.split("-")) for pair in line.split(",")]  # type: ignore[misc]
        for line in text.strip().splitlines()
    ]


# FIDE Handbook C.05, Annex 1 ("Berger Tables for Round-Robin Tournaments"), as printed.
PUBLISHED = {
    4: """
        1-4, 2-3
        4-3, 1-2
        2-4, 3-1
    """,
    6: """
        1-6, 2-5, 3-4
        6-4, 5-3, 1-2
        2-6, 3-1, 4-5
        6-5, 1-4, 2-3
        3-6, 4-2, 5-1
    """,
    8: """
        1-8, 2-7, 3-6, 4-5
        8-5, 6-4, 7-3, 1-2
        2-8, 3-1, 4-7, 5-6
        8-6, 7-5, 1-4, 2-3
        3-8, 4-2, 5-1, 6-7
        8-7, 1-6, 2-5, 3-4
        4-8, 5-3, 6-2, 7-1
    """,
    10: """
        1-10, 2-9, 3-8, 4-7, 5-6
        10-6, 7-5, 8-4, 9-3, 1-2
        2-10, 3-1, 4-9, 5-8, 6-7
        10-7, 8-6, 9-5, 1-4, 2-3
        3-10, 4-2, 5-1, 6-9, 7-8
        10-8, 9-7, 1-6, 2-5, 3-4
        4-10, 5-3, 6-2, 7-1, 8-9
        10-9, 1-8, 2-7, 3-6, 4-5
        5-10, 6-4, 7-3, 8-2, 9-1
    """,
    12: """
        1-12, 2-11, 3-10, 4-9, 5-8, 6-7
        12-7, 8-6, 9-5, 10-4, 11-3, 1-2
        2-12, 3-1, 4-11, 5-10, 6-9, 7-8
        12-8, 9-7, 10-6, 11-5, 1-4, 2-3
        3-12, 4-2, 5-1, 6-11, 7-10, 8-9
        12-9, 10-8, 11-7, 1-6, 2-5, 3-4
        4-12, 5-3, 6-2, 7-1, 8-11, 9-10
        12-10, 11-9, 1-8, 2-7, 3-6, 4-5
        5-12, 6-4, 7-3, 8-2, 9-1, 10-11
        12-11, 1-10, 2-9, 3-8, 4-7, 5-6
        6-12, 7-5, 8-4, 9-3, 10-2, 11-1
    """,
    14: """
        1-14, 2-13, 3-12, 4-11, 5-10, 6-9, 7-8
        14-8, 9-7, 10-6, 11-5, 12-4, 13-3, 1-2
        2-14, 3-1, 4-13, 5-12, 6-11, 7-10, 8-9
        14-9, 10-8, 11-7, 12-6, 13-5, 1-4, 2-3
        3-14, 4-2, 5-1, 6-13, 7-12, 8-11, 9-10
        14-10, 11-9, 12-8, 13-7, 1-6, 2-5, 3-4
        4-14, 5-3, 6-2, 7-1, 8-13, 9-12, 10-11
        14-11, 12-10, 13-9, 1-8, 2-7, 3-6, 4-5
        5-14, 6-4, 7-3, 8-2, 9-1, 10-13, 11-12
        14-12, 13-11, 1-10, 2-9, 3-8, 4-7, 5-6
        6-14, 7-5, 8-4, 9-3, 10-2, 11-1, 12-13
        14-13, 1-12, 2-11, 3-10, 4-9, 5-8, 6-7
        7-14, 8-6, 9-5, 10-4, 11-3, 12-2, 13-1
    """,
}


@pytest.mark.parametrize("players", sorted(PUBLISHED))
def test_the_berger_table_is_fides_published_one(players):
    assert berger_table(players) == _table(PUBLISHED[players])


@pytest.mark.parametrize("players", [3, 5, 7, 9, 11, 13])
def test_an_odd_number_plays_the_next_even_table_with_a_bye(players):
    assert berger_table(players) == _table(PUBLISHED[players + 1])
    games = round_robin(players)
    # Each round one player meets the missing number: a bye, not a game.
    for number in range(1, players + 1):
        rounds_played = {g.round for g in games if number in (g.white, g.black)}
        assert len(rounds_played) == players - 1
    assert all(max(g.white, g.black) <= players for g in games)


@pytest.mark.parametrize("players", range(2, 16))
def test_every_pair_meets_once_and_colours_balance(players):
    games = round_robin(players)
    pairs = Counter(frozenset((g.white, g.black)) for g in games)
    assert set(pairs) == {frozenset(p) for p in combinations(range(1, players + 1), 2)}
    assert set(pairs.values()) == {1}
    whites = Counter(g.white for g in games)
    blacks = Counter(g.black for g in games)
    for number in range(1, players + 1):
        assert abs(whites[number] - blacks[number]) <= 1


def test_a_double_round_robin_plays_each_pair_once_with_each_colour():
    games = round_robin(6, cycles=2)
    assert len(games) == 30
    assert len({(g.white, g.black) for g in games}) == 30
    first, second = games[:15], games[15:]
    assert [(g.black, g.white) for g in second] == [(g.white, g.black) for g in first]
    assert [g.round for g in second] == [g.round + 5 for g in first]


@pytest.mark.parametrize("bad", [0, 1, -3])
def test_a_round_robin_needs_two_players(bad):
    with pytest.raises(ValueError):
        berger_table(bad)


def test_a_round_robin_has_one_or_two_cycles():
    with pytest.raises(ValueError):
        round_robin(4, cycles=3)


# --------------------------------------------------------------------------- seeding


def test_snake_seeding_makes_even_groups_of_the_chosen_size():
    groups = snake_groups(list(range(1, 101)), 10)
    assert [len(g) for g in groups] == [10] * 10
    assert groups[0][:4] == [1, 20, 21, 40]
    assert groups[9][:4] == [10, 11, 30, 31]
    # Each group's seeds add up to the same.
    assert len({sum(g) for g in groups}) == 1


def test_snake_seeding_spreads_a_remainder_one_per_group():
    groups = snake_groups(list(range(1, 23)), 10)
    assert group_count(22, 10) == 3
    assert sorted(len(g) for g in groups) == [7, 7, 8]
    assert sorted(p for g in groups for p in g) == list(range(1, 23))


def test_players_fewer_than_a_group_are_one_group():
    assert snake_groups(["a", "b", "c"], 10) == [["a", "b", "c"]]


# --------------------------------------------------------------------------- standings

PRAGG, ABDU, SINDAROV, ERIGAISI, MAGHSOODLOO = "Pragg", "Abdu", "Sindarov", "Erigaisi", "Magh"
RAPPORT, YAKUBBOEV, VOKHIDOV, NEPO, ARAVINDH = "Rapport", "Yakub", "Vokhidov", "Nepo", "Aravindh"
HALF = 0.5

# UzChess Cup Masters 2025 (Tashkent, 18–27 June 2025), a 10-player round robin: every
# game, round by round, white first, white's points.
UZCHESS_CUP_2025 = [
    (ARAVINDH, PRAGG, HALF), (YAKUBBOEV, ERIGAISI, 0), (MAGHSOODLOO, RAPPORT, HALF),
    (NEPO, SINDAROV, 0), (ABDU, VOKHIDOV, 1),
    (PRAGG, VOKHIDOV, 1), (SINDAROV, ABDU, HALF), (RAPPORT, NEPO, HALF),
    (ERIGAISI, MAGHSOODLOO, HALF), (ARAVINDH, YAKUBBOEV, 0),
    (YAKUBBOEV, PRAGG, HALF), (MAGHSOODLOO, ARAVINDH, HALF), (NEPO, ERIGAISI, HALF),
    (ABDU, RAPPORT, 1), (VOKHIDOV, SINDAROV, HALF),
    (PRAGG, SINDAROV, 1), (RAPPORT, VOKHIDOV, HALF), (ERIGAISI, ABDU, HALF),
    (ARAVINDH, NEPO, HALF), (YAKUBBOEV, MAGHSOODLOO, 0),
    (MAGHSOODLOO, PRAGG, 1), (NEPO, YAKUBBOEV, HALF), (ABDU, ARAVINDH, 1),
    (VOKHIDOV, ERIGAISI, 0), (SINDAROV, RAPPORT, 1),
    (PRAGG, RAPPORT, 0), (ERIGAISI, SINDAROV, HALF), (ARAVINDH, VOKHIDOV, HALF),
    (YAKUBBOEV, ABDU, 1), (MAGHSOODLOO, NEPO, HALF),
    (NEPO, PRAGG, HALF), (ABDU, MAGHSOODLOO, 1), (VOKHIDOV, YAKUBBOEV, HALF),
    (SINDAROV, ARAVINDH, 1), (RAPPORT, ERIGAISI, HALF),
    (PRAGG, ERIGAISI, 1), (ARAVINDH, RAPPORT, 0), (YAKUBBOEV, SINDAROV, HALF),
    (MAGHSOODLOO, VOKHIDOV, 0), (NEPO, ABDU, HALF),
    (ABDU, PRAGG, 0), (VOKHIDOV, NEPO, 1), (SINDAROV, MAGHSOODLOO, HALF),
    (RAPPORT, YAKUBBOEV, HALF), (ERIGAISI, ARAVINDH, HALF),
]
# Its published final crosstable: chess-results.com, tournament 1175851
# (https://chess-results.com/tnr1175851.aspx?art=1), points and Sonneborn–Berger (the
# same figures lichess's scalachess checks its tiebreaks against, in its test "Uzchess
# Cup"), and the number of wins.
UZCHESS_CUP_2025_PUBLISHED = {
    PRAGG: (5.5, 25.25, 4), ABDU: (5.5, 22.5, 4), SINDAROV: (5.5, 22.25, 3),
    ERIGAISI: (5.0, 21.5, 2), MAGHSOODLOO: (4.5, 20.5, 2), RAPPORT: (4.5, 18.75, 2),
    YAKUBBOEV: (4.5, 19.5, 2), VOKHIDOV: (4.0, 16.5, 2), NEPO: (3.5, 16.0, 0),
    ARAVINDH: (2.5, 11.25, 0),
}
# By rating at the start (the seed order: 2782, 2767, 2767, 2757, 2749, 2714, 2710, …).
UZCHESS_CUP_2025_SEEDS = [
    ERIGAISI, PRAGG, ABDU, NEPO, ARAVINDH, RAPPORT, SINDAROV, MAGHSOODLOO, YAKUBBOEV, VOKHIDOV,
]


def uzchess_cup_results() -> list[GameResult[str]]:
    return [GameResult(white, black, score) for white, black, score in UZCHESS_CUP_2025]


def test_standings_match_the_published_crosstable_of_the_uzchess_cup_2025():
    table = standings(UZCHESS_CUP_2025_SEEDS, uzchess_cup_results())
    assert {s.player: (s.points, s.sonneborn_berger, s.wins) for s in table} == (
        UZCHESS_CUP_2025_PUBLISHED
    )
    # Points, then Sonneborn–Berger: the three on 5½ and the three on 4½ are told apart.
    assert [s.player for s in table] == [
        PRAGG, ABDU, SINDAROV, ERIGAISI, MAGHSOODLOO, YAKUBBOEV, RAPPORT, VOKHIDOV, NEPO,
        ARAVINDH,
    ]
    assert [s.place for s in table] == list(range(1, 11))
    assert {s.played for s in table} == {9} and {s.left for s in table} == {0}


def test_games_in_progress_count_as_games_left_and_give_no_points():
    games = [GameResult("a", "b", 1.0), GameResult("a", "c", None), GameResult("b", "c", None)]
    table = {s.player: s for s in standings(["a", "b", "c"], games)}
    assert (table["a"].points, table["a"].played, table["a"].left) == (1.0, 1, 1)
    assert (table["c"].points, table["c"].played, table["c"].left) == (0.0, 0, 2)


def _round_robin_of_five(results: list[float]) -> list[GameResult[str]]:
    """The ten games of a, b, c, d, e (a–b, a–c, … d–e, the first named white) with
    white's ``results`` in that order."""
    pairs = list(combinations("abcde", 2))
    return [GameResult(w, b, r) for (w, b), r in zip(pairs, results, strict=True)]


def test_wins_break_a_tie_on_points_and_sonneborn_berger():
    # a–b 1, a–c 1, a–d 0, a–e 0, b–c 1, b–d ½, b–e ½, c–d 1, c–e 1, d–e 1
    games = _round_robin_of_five([1, 1, 0, 0, 1, HALF, HALF, 1, 1, 1])
    table = standings(list("abcde"), games)
    by_player = {s.player: s for s in table}
    a, b = by_player["a"], by_player["b"]
    assert (a.points, a.sonneborn_berger, a.wins) == (2.0, 4.0, 2)
    assert (b.points, b.sonneborn_berger, b.wins) == (2.0, 4.0, 1)
    # d has 2½; a and c are level on points, SB (4) and wins, and a beat c.
    assert [s.player for s in table] == ["d", "a", "c", "b", "e"]
    assert [s.place for s in table] == [1, 2, 3, 4, 5]


def test_the_direct_encounter_breaks_what_the_other_tiebreaks_leave_level():
    # a–b 1, a–c 1, a–d ½, a–e 0, b–c 1, b–d 1, b–e ½, c–d 0, c–e 0, d–e ½
    games = _round_robin_of_five([1, 1, HALF, 0, 1, 1, HALF, 0, 0, HALF])
    table = {s.player: s for s in standings(list("bacde"), games)}
    a, b = table["a"], table["b"]
    assert (a.points, a.sonneborn_berger, a.wins) == (b.points, b.sonneborn_berger, b.wins)
    # b is seeded first, but a beat b.
    assert a.place is not None and b.place is not None
    assert a.place < b.place


def test_players_level_on_everything_share_their_place_listed_by_seed():
    games = [GameResult("a", "b", HALF)]
    table = standings(["b", "a"], games)
    assert [(s.player, s.place) for s in table] == [("b", 1), ("a", 1)]


def test_annulled_results_count_for_nobody_and_their_player_comes_last():
    games = [
        GameResult("x", "a", 1.0), GameResult("x", "b", 0.0), GameResult("a", "b", HALF),
        GameResult("x", "c", None),
    ]
    table = standings(["x", "a", "b", "c"], games, annulled={"x"})
    assert [s.player for s in table][-1] == "x"
    by_player = {s.player: s for s in table}
    assert by_player["x"].annulled and by_player["x"].place is None
    assert (by_player["a"].points, by_player["a"].played) == (0.5, 1)
    assert (by_player["b"].points, by_player["b"].played) == (0.5, 1)
    # The unfinished game with the annulled player is not "left" for c either.
    assert by_player["c"].left == 0


def test_a_game_with_a_stranger_is_refused():
    with pytest.raises(ValueError):
        standings(["a", "b"], [GameResult("a", "z", 1.0)])


@pytest.mark.parametrize(
    ("finished", "total", "annulled"),
    [(0, 6, True), (2, 6, True), (3, 6, False), (5, 6, False), (2, 5, True), (3, 5, False)],
)
def test_iccfs_rule_annuls_the_results_of_a_player_who_withdraws_under_half_done(
    finished, total, annulled
):
    assert annuls_on_withdrawal(finished, total) is annulled
