"""Vacation (chess.com's model): up to VACATION_DAYS_PER_YEAR days a year, clocks where
the player is to move stand still, and run again with the time that was left."""

from __future__ import annotations

import datetime as dt

import pytest
import time_machine
from django.urls import reverse

from games import errors, rules, selectors, services
from games.models import Game, Vacation
from tests.web.test_lobby import messages_of, text

pytestmark = pytest.mark.django_db

START = dt.datetime(2026, 4, 1, 10, 0, tzinfo=dt.UTC)
DAY = dt.timedelta(days=1)


@pytest.fixture
def traveller():
    with time_machine.travel(START, tick=False) as frozen:
        yield frozen


@pytest.fixture
def timed(alice, bob, play, traveller):
    """alice (white) to move against bob, 3 days per move, both having moved once."""
    made = services.challenge(challenger=bob, challenged=alice, days_per_move=3)
    game = services.accept_challenge(challenge_id=made.pk, player=alice, colour="white")
    return play(game, "e4", "e5")  # at START: alice's deadline START + 3 days


def test_vacation_stops_the_clocks_where_the_player_is_to_move(timed, alice, bob, traveller):
    traveller.move_to(START + DAY)
    services.start_vacation(player=alice)
    timed.refresh_from_db()
    assert timed.paused_at == START + DAY
    # A paused clock never runs out, whatever the sweep or a read finds.
    traveller.move_to(START + 10 * DAY)
    assert services.expire_due_games() == 0
    assert selectors.game(timed.pk).is_active


def test_coming_back_restarts_the_clocks_with_the_time_left(timed, alice, traveller):
    traveller.move_to(START + DAY)  # two days left
    services.start_vacation(player=alice)
    traveller.move_to(START + 8 * DAY)
    services.end_vacation(player=alice)
    timed.refresh_from_db()
    assert timed.paused_at is None
    assert timed.deadline == START + 10 * DAY  # back at day 8, with the two days she had


def test_the_opponent_s_clock_keeps_running(timed, bob, traveller):
    services.start_vacation(player=bob)  # alice is to move: her clock runs
    timed.refresh_from_db()
    assert timed.paused_at is None
    traveller.move_to(timed.deadline + dt.timedelta(seconds=1))
    assert services.expire_due_games() == 1


def test_a_clock_passing_to_a_player_on_vacation_stops_at_once(timed, alice, bob, traveller):
    services.start_vacation(player=bob)
    traveller.move_to(START + DAY)
    game = services.make_move(game_id=timed.pk, player=alice, move_number=3, move="Nf3")
    assert game.paused_at == START + DAY
    traveller.move_to(START + 6 * DAY)
    services.end_vacation(player=bob)
    game.refresh_from_db()
    assert game.deadline == START + 9 * DAY  # bob's full three days, from his return


def test_moving_while_on_vacation_starts_the_opponent_s_clock(timed, alice, traveller):
    services.start_vacation(player=alice)
    traveller.move_to(START + DAY)
    game = services.make_move(game_id=timed.pk, player=alice, move_number=3, move="Nf3")
    assert game.paused_at is None
    assert game.deadline == START + 4 * DAY


def test_a_vacation_started_after_the_deadline_does_not_save_a_lost_game(
    timed, alice, bob, traveller
):
    # alice's clock ran out 5 s ago and no sweep has come by: her vacation comes too late.
    traveller.move_to(timed.deadline + dt.timedelta(seconds=5))
    services.start_vacation(player=alice)
    timed.refresh_from_db()
    assert timed.status == Game.Status.FINISHED
    assert (timed.result, timed.termination) == ("0-1", rules.Termination.TIMEOUT)
    assert timed.paused_at is None
    with pytest.raises(errors.GameFinished):
        services.make_move(game_id=timed.pk, player=alice, move_number=3, move="Nf3")


def test_a_game_started_against_a_player_on_vacation_waits(alice, bob, traveller):
    services.start_vacation(player=alice)
    made = services.challenge(challenger=bob, challenged=alice, days_per_move=1)
    game = services.accept_challenge(challenge_id=made.pk, player=alice, colour="white")
    game.refresh_from_db()
    assert game.paused_at == START


def test_one_vacation_at_a_time_and_only_when_on_one(alice, traveller):
    with pytest.raises(errors.NotOnVacation):
        services.end_vacation(player=alice)
    services.start_vacation(player=alice)
    with pytest.raises(errors.AlreadyOnVacation):
        services.start_vacation(player=alice)
    assert Vacation.objects.count() == 1


def test_the_allowance_runs_out_and_the_sweep_brings_the_player_back(
    timed, alice, traveller, settings
):
    settings.VACATION_DAYS_PER_YEAR = 30
    traveller.move_to(START + DAY)
    services.start_vacation(player=alice)
    traveller.move_to(START + 40 * DAY)  # nobody ran the sweep for ten days
    services.expire_due_games()
    spell = Vacation.objects.get()
    assert spell.ended_at == START + 31 * DAY
    timed.refresh_from_db()
    # Her clock ran again from the end of her allowance: her two days went by then.
    assert timed.termination == "timeout"
    with pytest.raises(errors.NoVacationLeft):
        services.start_vacation(player=alice)


def test_a_new_year_brings_a_new_allowance(alice, traveller, settings):
    settings.VACATION_DAYS_PER_YEAR = 2
    services.start_vacation(player=alice)
    traveller.move_to(START + 2 * DAY)
    services.end_vacation(player=alice)
    with pytest.raises(errors.NoVacationLeft):
        services.start_vacation(player=alice)
    traveller.move_to(dt.datetime(2027, 1, 2, tzinfo=dt.UTC))
    services.start_vacation(player=alice)
    assert selectors.current_vacation(alice) is not None


def test_the_allowance_counts_what_was_taken_this_year(alice, traveller, settings):
    settings.VACATION_DAYS_PER_YEAR = 30
    services.start_vacation(player=alice)
    traveller.move_to(START + 5 * DAY)
    services.end_vacation(player=alice)
    assert selectors.vacation_left(alice) == 25 * DAY


# --------------------------------------------------------------------------- the web


def test_the_vacation_page_starts_and_ends_a_vacation(client, alice, traveller):
    client.force_login(alice)
    page = text(client.get(reverse("vacation")))
    assert "Left this year: 30 days 0 hours." in page
    client.post(reverse("vacation"), {"action": "start"})
    assert selectors.current_vacation(alice) is not None
    assert "End my vacation" in text(client.get(reverse("vacation")))
    client.post(reverse("vacation"), {"action": "end"})
    assert selectors.current_vacation(alice) is None


@pytest.mark.parametrize("action", ["", "stop", "START", "start; end"])
def test_the_vacation_page_refuses_an_unknown_action(client, alice, action):
    client.force_login(alice)
    response = client.post(reverse("vacation"), {"action": action}, follow=True)
    assert "Choose to start or to end your vacation." in messages_of(response)
    assert not Vacation.objects.exists()


def test_ending_a_vacation_not_taken_says_so(client, alice):
    client.force_login(alice)
    response = client.post(reverse("vacation"), {"action": "end"}, follow=True)
    assert "You are not on vacation." in messages_of(response)


def test_opponents_see_the_player_on_vacation(client, timed, alice, bob, traveller):
    services.start_vacation(player=alice)
    client.force_login(bob)
    game_page = text(client.get(reverse("game_detail", args=[timed.pk])))
    # Both badges are on the page for its script to show or hide; alice's is shown.
    assert 'id="away-white">on vacation<' in game_page
    assert 'id="away-black" hidden>on vacation<' in game_page
    assert "the clock stands still" in game_page
    assert "on-vacation" in text(client.get(reverse("dashboard")))
    assert "on-vacation" in text(client.get(reverse("players")))
    snapshot = client.get(reverse("game_state", args=[timed.pk])).json()
    assert snapshot["away"] == {"white": True, "black": False}
    assert snapshot["game"]["clock"]["paused"] is True
    assert snapshot["game"]["clock"]["paused_left_seconds"] == 3 * 86_400


def test_a_challenge_to_a_player_on_vacation_says_so(client, alice, carol, traveller):
    services.start_vacation(player=carol)
    client.force_login(alice)
    response = client.post(
        reverse("challenge_create"), {"username": "carol", "days_per_move": "3"}, follow=True
    )
    assert any("carol is on vacation" in m for m in messages_of(response))


def test_the_sweep_query_skips_paused_games(timed, alice):
    services.start_vacation(player=alice)
    assert not Game.objects.filter(paused_at__isnull=True, deadline__isnull=False).exists()


def test_an_offer_made_to_a_player_on_vacation_waits_for_their_return(
    timed, alice, bob, traveller
):
    services.start_vacation(player=bob)
    traveller.move_to(START + DAY)
    game = services.offer_draw(game_id=timed.pk, player=alice)  # bob owes the answer
    assert (game.paused_at, game.time_left) == (START + DAY, 2 * DAY)
    traveller.move_to(START + 5 * DAY)
    services.end_vacation(player=bob)
    game.refresh_from_db()
    assert game.deadline == START + 8 * DAY  # his three days to answer, from his return


def test_an_offer_to_a_player_on_vacation_to_move_keeps_their_clock_still(
    timed, alice, bob, traveller
):
    services.start_vacation(player=alice)
    traveller.move_to(START + DAY)
    game = services.offer_draw(game_id=timed.pk, player=bob)
    assert game.paused_at == START
    traveller.move_to(START + 4 * DAY)
    services.end_vacation(player=alice)
    game.refresh_from_db()
    assert game.deadline == START + 7 * DAY  # the three days she had, from her return
