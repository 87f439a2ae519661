"""lichess's rules for marks and accuracy (games.judgement), held to lichess's own cases:
the game-accuracy cases are those of lila's ``AccuracyPercentTest.scala``, with its
tolerances; the marks follow ``Advice.scala``'s thresholds."""

from __future__ import annotations

import pytest

from games.judgement import (
    CP_INITIAL,
    Eval,
    Judgement,
    game_accuracy,
    judge,
    move_accuracy,
    win_percent,
    winning_chances,
)


def white_first(cps: list[int]):
    return game_accuracy([CP_INITIAL, *cps], white_moves_first=True)


def black_first(cps: list[int]):
    return game_accuracy([CP_INITIAL, *cps], white_moves_first=False)


@pytest.mark.parametrize("cps", [[], [15]])
def test_a_game_of_fewer_than_two_moves_has_no_accuracy(cps):
    assert white_first(cps) is None
    assert black_first(cps) is None


# (evaluations after each move, White's accuracy ± tolerance, Black's ± tolerance)
WHITE_FIRST_CASES = {
    "two good moves": ([15, 15], (100, 1), (100, 1)),
    "white blunders on first move": ([-900, -900], (10, 5), (100, 1)),
    "black blunders on first move": ([15, 900], (100, 1), (10, 5)),
    "both blunder on first move": ([-900, 0], (10, 5), (10, 5)),
    "20 perfect moves": ([15] * 20, (100, 1), (100, 1)),
    "20 perfect moves and a white blunder": ([15] * 20 + [-900], (50, 5), (100, 1)),
    "21 perfect moves and a black blunder": ([15] * 21 + [900], (100, 1), (50, 5)),
    "5 average moves (65 cpl) on each side": ([-50, 15] * 5, (76, 8), (76, 8)),
    "50 average moves (65 cpl) on each side": ([-50, 15] * 50, (76, 8), (76, 8)),
    "50 mediocre moves (150 cpl) on each side": ([-135, 15] * 50, (54, 8), (54, 8)),
    "50 terrible moves (500 cpl) on each side": ([-435, 15] * 50, (20, 8), (20, 8)),
}


@pytest.mark.parametrize(
    ("cps", "white", "black"), WHITE_FIRST_CASES.values(), ids=WHITE_FIRST_CASES.keys()
)
def test_game_accuracy_matches_lichess_cases(cps, white, black):
    accuracy = white_first(cps)
    assert accuracy is not None
    assert accuracy[0] == pytest.approx(white[0], abs=white[1])
    assert accuracy[1] == pytest.approx(black[0], abs=black[1])


BLACK_FIRST_CASES = {
    "two good moves": ([15, 15], (100, 1), (100, 1)),
    "black blunders on first move": ([900, 900], (100, 1), (10, 5)),
    "white blunders on first move": ([15, -900], (10, 5), (100, 1)),
    "both blunder on first move": ([900, 0], (10, 5), (10, 5)),
}


@pytest.mark.parametrize(
    ("cps", "white", "black"), BLACK_FIRST_CASES.values(), ids=BLACK_FIRST_CASES.keys()
)
def test_game_accuracy_when_black_moves_first_matches_lichess_cases(cps, white, black):
    accuracy = black_first(cps)
    assert accuracy is not None
    assert accuracy[0] == pytest.approx(white[0], abs=white[1])
    assert accuracy[1] == pytest.approx(black[0], abs=black[1])


def test_win_percent_is_even_at_zero_and_ceiled_at_a_thousand_centipawns():
    assert win_percent(Eval(cp=0), white_to_move=True) == pytest.approx(50)
    assert win_percent(Eval(cp=5000), white_to_move=True) == pytest.approx(
        win_percent(Eval(cp=1000), white_to_move=True)
    )
    # A mate counts as the ceiling of the side that mates.
    assert win_percent(Eval(mate=3), white_to_move=True) == win_percent(
        Eval(cp=1000), white_to_move=True
    )
    assert win_percent(Eval(mate=-2), white_to_move=True) == win_percent(
        Eval(cp=-1000), white_to_move=True
    )


def test_a_checkmate_on_the_board_is_lost_for_the_side_to_move():
    assert win_percent(Eval(mate=0), white_to_move=True) < 3
    assert win_percent(Eval(mate=0), white_to_move=False) > 97


def test_winning_chances_use_lichess_multiplier():
    # 2 / (1 + e^(−0.00368208 × 100)) − 1
    assert winning_chances(100) == pytest.approx(0.18206, abs=1e-4)
    assert winning_chances(-100) == pytest.approx(-0.18206, abs=1e-4)


def test_a_move_that_keeps_or_gains_win_percent_is_perfect():
    assert move_accuracy(60, 60) == 100
    assert move_accuracy(40, 70) == 100
    assert move_accuracy(80, 20) < 15


@pytest.mark.parametrize(
    ("before", "after", "expected"),
    [
        # Drops of White's winning chances: 0.1 inaccuracy, 0.2 mistake, 0.3 blunder.
        (0, -50, None),  # −0.092
        (0, -60, Judgement.INACCURACY),  # −0.110
        (0, -110, Judgement.INACCURACY),  # −0.1998: just short of a mistake
        (0, -115, Judgement.MISTAKE),  # −0.208
        (0, -170, Judgement.BLUNDER),  # −0.304
        (300, 300, None),
    ],
)
def test_white_moves_are_marked_by_the_drop_of_winning_chances(before, after, expected):
    assert judge(Eval(cp=before), Eval(cp=after), white_moved=True) is expected


def test_black_moves_are_marked_from_blacks_side():
    # White's evaluation rising is Black's loss.
    assert judge(Eval(cp=0), Eval(cp=170), white_moved=False) is Judgement.BLUNDER
    assert judge(Eval(cp=0), Eval(cp=-170), white_moved=False) is None


def test_the_engines_own_move_is_never_marked():
    assert judge(Eval(cp=0), Eval(cp=-400), white_moved=True, best_played=True) is None


def test_missing_a_mate_in_one_is_a_blunder():
    # White could mate; after the move the game is level.
    assert judge(Eval(mate=1), Eval(cp=20), white_moved=True) is Judgement.BLUNDER
    # Still winning big after missing it: lichess calls it an inaccuracy.
    assert judge(Eval(mate=1), Eval(cp=1200), white_moved=True) is Judgement.INACCURACY
    assert judge(Eval(mate=1), Eval(cp=800), white_moved=True) is Judgement.MISTAKE


def test_allowing_a_mate_is_marked_by_how_lost_the_position_was():
    assert judge(Eval(cp=50), Eval(mate=-3), white_moved=True) is Judgement.BLUNDER
    assert judge(Eval(cp=-800), Eval(mate=-3), white_moved=True) is Judgement.MISTAKE
    assert judge(Eval(cp=-1200), Eval(mate=-3), white_moved=True) is Judgement.INACCURACY
    # Black allowing White's mate.
    assert judge(Eval(cp=-50), Eval(mate=4), white_moved=False) is Judgement.BLUNDER


def test_delivering_mate_and_a_slower_mate_are_not_marked():
    assert judge(Eval(mate=1), Eval(mate=0), white_moved=True) is None
    assert judge(Eval(mate=2), Eval(mate=5), white_moved=True) is None
    assert judge(Eval(mate=-1), Eval(mate=0), white_moved=False) is None


def test_an_evaluation_has_one_of_centipawns_and_mate():
    with pytest.raises(ValueError):
        Eval()
    with pytest.raises(ValueError):
        Eval(cp=1, mate=1)


def test_marks_carry_lichess_glyphs_and_pgn_numbers():
    assert [(j.glyph, j.nag) for j in Judgement] == [("?!", 6), ("?", 2), ("??", 4)]
