"""``manage.py expire_games`` (cron) and ``manage.py travel_clock`` (demo time travel)."""

from __future__ import annotations

import datetime as dt
import io

import pytest
import time_machine
from django.core.management import CommandError, call_command

from games import selectors, services
from games.models import Game, Vacation

pytestmark = pytest.mark.django_db

START = dt.datetime(2026, 11, 2, 9, 30, tzinfo=dt.UTC)


@pytest.fixture
def timed(alice, bob, play):
    with time_machine.travel(START, tick=False):
        made = services.challenge(challenger=bob, challenged=alice, days_per_move=3)
        game = services.accept_challenge(challenge_id=made.pk, player=alice, colour="white")
        return play(game, "e4", "e5")


def _run(*args: str) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def test_expire_games_ends_the_games_whose_time_ran_out(timed):
    with time_machine.travel(START + dt.timedelta(days=3, seconds=1), tick=False):
        assert _run("expire_games") == "Ended 1 game(s) whose time had run out.\n"
        assert _run("expire_games") == "Ended 0 game(s) whose time had run out.\n"
    timed.refresh_from_db()
    assert timed.termination == "timeout"


def test_travel_clock_is_refused_unless_the_demo_setting_is_on(timed, settings):
    settings.DEMO_TIME_TRAVEL = False
    with pytest.raises(CommandError, match="DEMO_TIME_TRAVEL"):
        _run("travel_clock", "--days", "3")
    timed.refresh_from_db()
    assert timed.deadline == START + dt.timedelta(days=3)


def test_travel_clock_leaves_the_end_to_the_services_sweep(timed, settings):
    # The sweep runs in the web process, whose events reach the open pages on the
    # embedded in-memory layer; one sent from this process would not.
    settings.DEMO_TIME_TRAVEL = True
    with time_machine.travel(START, tick=False):
        out = _run("travel_clock", timed.public_id, "--days", "3")
        assert "1 game(s) have run out of time: the service's clock sweep ends them" in out
        timed.refresh_from_db()
        assert timed.is_active and timed.deadline == START
        assert services.expire_due_games() == 1
    timed.refresh_from_db()
    assert (timed.result, timed.termination) == ("0-1", "timeout")


def test_travel_clock_ends_a_game_on_time_at_once_when_asked(timed, settings):
    settings.DEMO_TIME_TRAVEL = True
    with time_machine.travel(START, tick=False):
        out = _run("travel_clock", timed.public_id, "--days", "3", "--end-now")
    assert "1 game(s) ran out of time" in out
    timed.refresh_from_db()
    assert (timed.result, timed.termination) == ("0-1", "timeout")


def test_travel_clock_short_of_the_deadline_only_moves_it(timed, settings):
    settings.DEMO_TIME_TRAVEL = True
    with time_machine.travel(START, tick=False):
        _run("travel_clock", "--hours", "70")
    timed.refresh_from_db()
    assert timed.is_active
    assert timed.deadline == START + dt.timedelta(hours=2)


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (["--days", "0"], "forward"),
        (["--days", "-2"], "forward"),
        (["--hours", "nan"], "forward"),
        (["--days", "1e12"], "too far"),
        (["--days", "999999"], "too far"),
        (["G42", "--days", "1"], "Not a game number"),
        (["P", "--days", "1"], "Not a game number"),
    ],
)
def test_travel_clock_refuses_what_is_no_journey(timed, settings, args, error):
    settings.DEMO_TIME_TRAVEL = True
    with pytest.raises(CommandError, match=error):
        _run("travel_clock", *args)
    assert Game.objects.get(pk=timed.pk).deadline == START + dt.timedelta(days=3)


# --------------------------------------------------------------------------- and vacations

DAY = dt.timedelta(days=1)


def test_a_jump_during_a_vacation_leaves_the_time_kept_and_ends_no_game(timed, alice, settings):
    # alice (to move, 3 days) goes away a day in, with two days left; the demo jumps five
    # days; she comes back: her clock runs again with the two days, the game goes on.
    settings.DEMO_TIME_TRAVEL = True
    with time_machine.travel(START + DAY, tick=False):
        services.start_vacation(player=alice)
        _run("travel_clock", "--days", "5")
        assert services.expire_due_games() == 0
        services.end_vacation(player=alice)
        timed.refresh_from_db()
        assert timed.is_active and timed.paused_at is None
        assert timed.deadline == START + 3 * DAY
        assert services.expire_due_games() == 0
    timed.refresh_from_db()
    assert timed.is_active


def test_the_days_jumped_during_a_vacation_count_as_vacation_taken(timed, alice, settings):
    settings.DEMO_TIME_TRAVEL = True
    settings.VACATION_DAYS_PER_YEAR = 30
    with time_machine.travel(START + DAY, tick=False):
        services.start_vacation(player=alice)
        _run("travel_clock", timed.public_id, "--days", "5")
        assert selectors.vacation_used(alice, year=START.year) == 5 * DAY
        assert selectors.vacation_left(alice) == 25 * DAY


def test_a_jump_past_the_allowance_brings_the_player_back_when_it_ran_out(
    timed, alice, settings
):
    # Four days of vacation a year, taken a day in; a jump of six days spends them: the
    # sweep ends the vacation at the jump's fourth day, and her clock has run since with
    # the two days she had, so two days after that her time is up.
    settings.DEMO_TIME_TRAVEL = True
    settings.VACATION_DAYS_PER_YEAR = 4
    with time_machine.travel(START + DAY, tick=False):
        services.start_vacation(player=alice)
        _run("travel_clock", "--days", "6")
        assert services.end_spent_vacations() == 1
        timed.refresh_from_db()
        assert timed.paused_at is None
        # Back (as the demo tells it) two days ago, with two days: the time is just up.
        assert timed.deadline == START + DAY
        assert services.expire_due_games() == 1
    timed.refresh_from_db()
    assert timed.termination == "timeout"


def test_a_jump_moves_the_other_players_clock_and_not_the_vacation_of_a_game_left_out(
    timed, alice, bob, carol, start_game, play, settings
):
    settings.DEMO_TIME_TRAVEL = True
    with time_machine.travel(START + DAY, tick=False):
        other = play(start_game(carol, bob), "d4")  # bob to move, no clock
        services.start_vacation(player=carol)
        _run("travel_clock", timed.public_id, "--days", "1")
        # Only the players of the game travelled: carol's vacation is as it was.
        assert Vacation.objects.get(player=carol).started_at == START + DAY
    assert other.is_active
