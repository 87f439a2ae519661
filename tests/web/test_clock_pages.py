"""Time controls at the web's doors: the challenge forms, the dashboard, the game page,
its JSON and events, the PGN and the admin."""

from __future__ import annotations

import datetime as dt
import io

import chess.pgn
import pytest
import time_machine
from django.urls import reverse

from games import services, state
from games.models import Challenge, Game
from tests.web.test_lobby import messages_of, section, text

START = dt.datetime(2026, 6, 1, 8, 0, tzinfo=dt.UTC)


@pytest.fixture
def frozen():
    with time_machine.travel(START, tick=False) as traveller:
        yield traveller


def _timed(white, black, days=3) -> Game:
    made = services.challenge(challenger=black, challenged=white, days_per_move=days)
    return services.accept_challenge(challenge_id=made.pk, player=white, colour="white")


# --------------------------------------------------------------------------- challenges


@pytest.mark.parametrize(("posted", "stored"), [("3", 3), ("14", 14), ("none", None), ("", None)])
def test_a_challenge_from_the_dashboard_carries_the_chosen_days(as_alice, bob, posted, stored):
    as_alice.post(reverse("challenge_create"), {"username": "bob", "days_per_move": posted})
    assert Challenge.objects.get().days_per_move == stored


def test_a_challenge_without_the_field_has_no_clock(as_alice, bob):
    as_alice.post(reverse("challenge_create"), {"username": "bob"})
    assert Challenge.objects.get().days_per_move is None


@pytest.mark.parametrize("posted", ["4", "0", "-3", "3.5", "abc", "٣", "99999999999", "3 days"])
def test_a_time_control_not_offered_is_refused_with_a_reason_and_nothing_made(
    as_alice, bob, posted
):
    response = as_alice.post(
        reverse("challenge_create"), {"username": "bob", "days_per_move": posted}, follow=True
    )
    assert not Challenge.objects.exists()
    assert any("time control" in m for m in messages_of(response))


def test_the_dashboard_offers_the_time_controls_three_days_first(as_alice):
    html = text(as_alice.get(reverse("dashboard")))
    assert '<option value="3" selected>3 days per move</option>' in html
    assert '<option value="none">no time limit</option>' in html
    assert '<option value="1">1 day per move</option>' in html


def test_the_players_page_challenge_button_offers_them_too(as_alice, bob):
    html = text(as_alice.get(reverse("players")))
    assert 'name="days_per_move"' in html


def test_challenges_show_their_time_control_to_both_players(as_alice, as_bob, alice, bob):
    services.challenge(challenger=alice, challenged=bob, days_per_move=5)
    incoming = section(text(as_bob.get(reverse("dashboard"))), "incoming-challenges")
    assert "5 days per move" in incoming
    assert "5 days per move" in section(
        text(as_alice.get(reverse("dashboard"))), "outgoing-challenges"
    )


# --------------------------------------------------------------------------- games


def test_the_game_page_shows_the_time_control_and_a_countdown(frozen, as_alice, alice, bob):
    game = _timed(alice, bob, days=3)
    html = text(as_alice.get(reverse("game_detail", args=[game.pk])))
    assert "3 days per move" in html
    assert f'data-deadline="{(START + dt.timedelta(days=3)).isoformat()}"' in html
    assert "Your time to move" in html
    assert "3d 0h left" in html


def test_a_game_without_a_clock_shows_no_countdown(as_alice, alice, bob):
    game = _timed(alice, bob, days=None)
    html = text(as_alice.get(reverse("game_detail", args=[game.pk])))
    assert "no time limit" in html
    assert 'id="game-clock" class="game-clock small mb-2" hidden' in html


def test_the_state_json_and_events_carry_the_clock(frozen, as_bob, alice, bob):
    game = _timed(alice, bob, days=2)
    snapshot = as_bob.get(reverse("game_state", args=[game.pk])).json()
    assert snapshot["game"]["clock"] == {
        "days_per_move": 2,
        "fischer": None,
        "banks": None,
        "label": "2 days per move",
        "deadline": (START + dt.timedelta(days=2)).isoformat(),
        "colour": "white",
        "paused": False,
        "paused_left_seconds": None,
    }
    frozen.move_to(START + dt.timedelta(hours=5))
    moved = services.make_move(game_id=game.pk, player=alice, move_number=1, move="e4")
    event = state.event_message(moved, "move")
    assert event["game"]["clock"]["deadline"] == (
        START + dt.timedelta(hours=5, days=2)
    ).isoformat()
    assert event["game"]["clock"]["colour"] == "black"
    assert '"deadline"' in event["frames"][state.DASHBOARD]


def test_a_game_that_ran_out_shows_its_ending_on_the_next_visit(frozen, as_alice, alice, bob, play):
    game = play(_timed(alice, bob, days=1), "e4", "e5")
    frozen.move_to(START + dt.timedelta(days=2))
    html = text(as_alice.get(reverse("game_detail", args=[game.pk])))
    assert "Time ran out" in html
    assert 'id="game-clock" class="game-clock small mb-2" hidden' in html


def test_your_move_lists_the_game_with_least_time_left_first(frozen, as_alice, alice, bob, carol):
    roomy = _timed(alice, bob, days=14)
    frozen.move_to(START + dt.timedelta(hours=1))
    tight = _timed(alice, carol, days=1)
    # The roomy game changed last: without clocks it would come second, not first.
    html = section(text(as_alice.get(reverse("dashboard"))), "my-turn-games")
    assert html.index(f'data-game-id="{tight.pk}"') < html.index(f'data-game-id="{roomy.pk}"')
    assert html.count('data-deadline="') == 2


def test_the_pgn_says_the_time_control(alice, bob, as_alice):
    timed = _timed(alice, bob, days=3)
    pgn = text(as_alice.get(reverse("game_pgn", args=[timed.pk])))
    headers = chess.pgn.read_headers(io.StringIO(pgn))
    assert headers["TimeControl"] == "1/259200"
    services.resign(game_id=timed.pk, player=bob)
    untimed = _timed(alice, bob, days=None)
    pgn = text(as_alice.get(reverse("game_pgn", args=[untimed.pk])))
    assert chess.pgn.read_headers(io.StringIO(pgn))["TimeControl"] == "-"


def test_the_pgn_of_a_game_lost_on_time_says_time_forfeit(frozen, alice, bob, as_alice, play):
    game = play(_timed(alice, bob, days=1), "e4", "e5")
    frozen.move_to(START + dt.timedelta(days=3))
    services.expire_due_games()
    headers = chess.pgn.read_headers(
        io.StringIO(text(as_alice.get(reverse("game_pgn", args=[game.pk]))))
    )
    assert (headers["Result"], headers["Termination"]) == ("0-1", "time forfeit")


def test_the_admin_lists_days_per_move_and_the_deadline(admin_client, alice, bob):
    _timed(alice, bob, days=7)
    html = text(admin_client.get(reverse("admin:games_game_changelist")))
    assert "Days per move" in html and "Deadline" in html
    html = text(admin_client.get(reverse("admin:games_challenge_changelist")))
    assert "Days per move" in html
