"""Fischer clocks: a bank per side, the increment after each move up to the cap, the
bank standing still on vacation, and the sweep ending a game whose bank ran out."""

from __future__ import annotations

import datetime as dt

import pytest
import time_machine

from games import clock, errors, services, state
from games.models import Challenge, Game
from games.state import lichess
from games.state.pgn import game_pgn

pytestmark = pytest.mark.django_db

START = dt.datetime(2026, 3, 2, 12, 0, tzinfo=dt.UTC)
DAY = dt.timedelta(days=1)
HOUR = dt.timedelta(hours=1)
ICCF = clock.Fischer(30, 1, 40)


@pytest.fixture
def traveller():
    with time_machine.travel(START, tick=False) as frozen:
        yield frozen


@pytest.fixture
def fischer_game(alice, bob, traveller):
    """alice (white) against bob on a Fischer clock, started at START."""

    def start(fischer: clock.Fischer = ICCF) -> Game:
        made = services.challenge(challenger=bob, challenged=alice, fischer=fischer)
        return services.accept_challenge(challenge_id=made.pk, player=alice, colour="white")

    return start


def banks(game: Game) -> tuple[dt.timedelta | None, dt.timedelta | None]:
    game.refresh_from_db()
    now = dt.datetime.now(dt.UTC)
    return clock.bank_of(game, "white", now), clock.bank_of(game, "black", now)


# --------------------------------------------------------------------------- arithmetic


def test_the_increment_is_added_after_a_move():
    assert ICCF.bank_after_move(20 * DAY) == 21 * DAY


def test_the_increment_stops_at_the_cap():
    assert ICCF.bank_after_move(39 * DAY + HOUR) == 40 * DAY


def test_a_bank_spent_to_nothing_gets_only_the_increment():
    assert ICCF.bank_after_move(-HOUR) == DAY


@pytest.mark.parametrize(
    ("base", "increment", "cap", "word"),
    [
        (0, 1, 40, "base"),
        (-3, 1, 40, "base"),
        (366, 1, 400, "base"),
        (30, -1, 40, "increment"),
        (30, 31, 40, "increment"),
        (30, 1, 29, "cap"),
        (30, 1, 366, "cap"),
        (10**9, 1, 40, "base"),
        ("30", 1, 40, "whole days"),
        (30.0, 1, 40, "whole days"),
        (True, 1, 40, "whole days"),
        (None, 1, 40, "whole days"),
        ("三十", 1, 40, "whole days"),
    ],
)
def test_numbers_that_make_no_fischer_clock_are_refused_with_the_reason(base, increment, cap, word):
    problem = clock.fischer_problem(base, increment, cap)
    assert problem is not None and word in problem


def test_a_cap_equal_to_the_base_and_no_increment_make_a_clock():
    assert clock.fischer_problem(30, 0, 30) is None


# --------------------------------------------------------------------------- a game


def test_a_game_starts_with_the_base_in_both_banks_and_the_deadline_of_white(fischer_game):
    game = fischer_game()
    assert banks(game) == (30 * DAY, 30 * DAY)
    assert game.deadline == START + 30 * DAY
    assert game.days_per_move is None and game.fischer == ICCF


def test_the_side_to_move_spends_its_bank_and_the_mover_gets_the_increment(
    fischer_game, play, traveller
):
    game = fischer_game()
    traveller.move_to(START + 5 * DAY)
    assert banks(game) == (25 * DAY, 30 * DAY)  # only white's runs
    game = play(game, "e4")
    assert banks(game) == (26 * DAY, 30 * DAY)
    assert game.deadline == START + 5 * DAY + 30 * DAY  # now + black's bank
    traveller.move_to(START + 7 * DAY)
    game = play(game, "e5")
    assert banks(game) == (26 * DAY, 29 * DAY)
    assert game.deadline == START + 7 * DAY + 26 * DAY


def test_quick_moves_fill_the_bank_up_to_the_cap_and_no_further(fischer_game, play, traveller):
    game = play(fischer_game(), "e4", "e5", "Nf3", "Nc6", "Bc4", "Bc5")
    assert banks(game) == (33 * DAY, 33 * DAY)
    game = play(game, *["Nf3g1", "Nc6b8", "Ng1f3", "Nb8c6"] * 4)
    assert banks(game) == (40 * DAY, 40 * DAY)


def test_a_vacation_stops_the_bank_of_the_side_to_move(fischer_game, play, traveller, alice):
    game = fischer_game()
    traveller.move_to(START + 2 * DAY)
    services.start_vacation(player=alice)
    traveller.move_to(START + 9 * DAY)
    assert banks(game) == (28 * DAY, 30 * DAY)
    services.end_vacation(player=alice)
    game.refresh_from_db()
    assert game.deadline == START + 9 * DAY + 28 * DAY
    traveller.move_to(START + 10 * DAY)
    game = play(game, "d4")
    assert banks(game) == (28 * DAY, 30 * DAY)  # 27 days left, and the day of increment


def test_the_sweep_ends_a_game_whose_bank_ran_out_and_the_bank_reads_empty(
    fischer_game, play, traveller
):
    game = play(fischer_game(clock.Fischer(3, 1, 5)), "e4", "e5")
    # White's bank: 4 days after the increment; the sweep ends the game when it is spent.
    traveller.move_to(START + 4 * DAY - HOUR)
    assert services.expire_due_games() == 0
    traveller.move_to(START + 4 * DAY + HOUR)
    assert services.expire_due_games() == 1
    game.refresh_from_db()
    assert (game.status, game.result, game.termination) == ("finished", "0-1", "timeout")
    assert game.finished_at == START + 4 * DAY
    assert banks(game) == (dt.timedelta(0), 4 * DAY)


def test_a_bank_running_out_against_a_lone_king_is_a_draw(alice, bob, traveller):
    game = services.start_gateway_game(
        white=alice, black=bob, initial_fen="4k3/8/8/8/8/8/8/4K2R w - - 0 1"
    )
    Game.objects.filter(pk=game.pk).update(
        fischer_base_days=1, fischer_increment_days=0, fischer_cap_days=1,
        white_bank=DAY, black_bank=DAY, deadline=START + DAY, next_move_number=3,
    )
    # White's bank runs out, and black, with a lone king, could never mate: a draw.
    traveller.move_to(START + DAY + HOUR)
    assert services.expire_due_games() == 1
    game.refresh_from_db()
    assert (game.result, game.termination) == ("1/2-1/2", "timeout")


def test_a_draw_offer_passes_the_clock_to_the_answerer_s_bank_and_back(
    fischer_game, play, traveller, alice, bob
):
    game = play(fischer_game(), "e4", "e5")
    traveller.move_to(START + 2 * DAY)
    services.offer_draw(game_id=game.pk, player=alice)
    game.refresh_from_db()
    assert game.deadline == START + 2 * DAY + 31 * DAY  # black's bank answers
    traveller.move_to(START + 3 * DAY)
    services.answer_draw(game_id=game.pk, player=bob, accept=False)
    assert banks(game) == (29 * DAY, 30 * DAY)
    game.refresh_from_db()
    assert game.deadline == START + 3 * DAY + 29 * DAY


# --------------------------------------------------------------------------- what is shown


def test_the_snapshot_shows_both_banks_and_the_deadline_of_the_side_on_the_clock(
    fischer_game, play, traveller
):
    game = play(fischer_game(), "e4")
    traveller.move_to(START + DAY)
    shown = state.clock_state(game)
    assert shown["fischer"] == {"base_days": 30, "increment_days": 1, "cap_days": 40}
    assert shown["banks"] == {"white": 31 * 86_400, "black": 29 * 86_400}
    assert shown["deadline"] == (START + 30 * DAY).isoformat()
    assert shown["label"] == "30 days + 1 per move (max 40)"


def test_the_lichess_game_state_gives_each_bank_in_milliseconds(fischer_game, play, traveller):
    game = play(fischer_game(), "e4")
    traveller.move_to(START + HOUR)
    line = lichess.game_state(game, ["e2e4"])
    assert (line["wtime"], line["btime"]) == (31 * 86_400_000, (30 * 24 - 1) * 3_600_000)
    assert line["winc"] == line["binc"] == 86_400_000


def test_the_pgn_time_control_is_base_plus_increment_in_seconds(fischer_game):
    assert '[TimeControl "2592000+86400"]' in game_pgn(fischer_game())


# --------------------------------------------------------------------------- refused


@pytest.mark.parametrize(
    "fischer",
    [clock.Fischer(0, 1, 40), clock.Fischer(30, 1, 20), clock.Fischer(30, 99, 40),
     clock.Fischer(30_000, 1, 40_000)],
)
def test_a_challenge_with_a_fischer_clock_out_of_bounds_is_refused(alice, bob, fischer):
    with pytest.raises(errors.InvalidTimeControl):
        services.challenge(challenger=alice, challenged=bob, fischer=fischer)
    assert not Challenge.objects.exists()


def test_a_challenge_with_both_kinds_of_clock_is_refused(alice, bob):
    with pytest.raises(errors.InvalidTimeControl, match="not both"):
        services.challenge(challenger=alice, challenged=bob, days_per_move=3, fischer=ICCF)
    assert not Challenge.objects.exists()


@pytest.mark.parametrize(
    ("language", "base", "label"),
    [
        ("en", 1, "1 day + 0 per move (max 2)"),
        ("en", 30, "30 days + 0 per move (max 2)"),
        ("es", 1, "1 día + 0 por jugada (máx. 2)"),
        ("es", 30, "30 días + 0 por jugada (máx. 2)"),
    ],
)
def test_the_fischer_label_says_day_or_days_as_the_base_asks(language, base, label):
    from django.utils import translation

    with translation.override(language):
        assert clock.fischer_label(clock.Fischer(base, 0, 2)) == label
