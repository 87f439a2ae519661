""""Next game where it is my move": the game that waits for the player with the least
time left, other than the one they are on."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from games import services

pytestmark = pytest.mark.django_db


def clocked_game(white, black, days: int | None):
    challenge = services.challenge(challenger=black, challenged=white, days_per_move=days)
    return services.accept_challenge(challenge_id=challenge.pk, player=white, colour="white")


def logged_in(player) -> Client:
    client = Client()
    client.force_login(player)
    return client


def next_of(client: Client, **query: str):
    return client.get(reverse("next_game"), query, headers={"Accept": "application/json"})


def test_the_next_game_is_the_one_with_the_least_time_left(alice, bob, carol):
    unhurried = clocked_game(alice, bob, None)
    urgent = clocked_game(alice, carol, 1)
    client = logged_in(alice)

    assert next_of(client).json() == {"url": reverse("game_detail", args=[urgent.pk])}
    assert next_of(client, **{"from": str(urgent.pk)}).json() == {
        "url": reverse("game_detail", args=[unhurried.pk])
    }
    page = client.get(reverse("next_game"), {"from": str(unhurried.pk)})
    assert page["Location"] == reverse("game_detail", args=[urgent.pk])


def test_games_waiting_for_the_opponent_are_not_next(alice, bob, carol, play):
    mine = clocked_game(alice, bob, 3)
    play(clocked_game(alice, carol, 3), "e4")  # now carol's move
    client = logged_in(alice)

    assert next_of(client, **{"from": str(mine.pk)}).json() == {"url": None}


def test_a_draw_offer_to_answer_makes_a_game_next(alice, bob, carol, play):
    current = clocked_game(alice, bob, 3)
    offered = play(clocked_game(alice, carol, 3), "e4")
    services.offer_draw(game_id=offered.pk, player=carol)
    client = logged_in(alice)

    assert next_of(client, **{"from": str(current.pk)}).json() == {
        "url": reverse("game_detail", args=[offered.pk])
    }


def test_with_no_other_game_the_page_goes_to_the_dashboard_and_says_so(alice, bob):
    only = clocked_game(alice, bob, 3)
    client = logged_in(alice)

    response = client.get(reverse("next_game"), {"from": str(only.pk)}, follow=True)

    assert response.redirect_chain[-1][0] == reverse("dashboard")
    assert "No other game waits for your move." in response.content.decode()


@pytest.mark.parametrize("sent", ["", "abc", "-1", "1.5", "٣", "9" * 40, "1 OR 1=1"])
def test_a_from_that_is_no_game_number_is_refused(alice, sent):
    response = next_of(logged_in(alice), **{"from": sent})
    assert response.status_code == 400
    assert "error" in response.json()


def test_the_next_game_needs_a_login(client):
    assert client.get(reverse("next_game"))["Location"].startswith(reverse("login"))


def test_the_game_page_shows_the_link_only_while_another_game_waits(alice, bob, carol, play):
    first = clocked_game(alice, bob, 3)
    second = clocked_game(alice, carol, 3)
    client = logged_in(alice)

    html = client.get(reverse("game_detail", args=[first.pk])).content.decode()
    assert '<p class="mb-2" id="next-game-bar">' in html
    play(second, "e4")
    html = client.get(reverse("game_detail", args=[first.pk])).content.decode()
    assert '<p class="mb-2" id="next-game-bar" hidden>' in html
    # A spectator has no "next game" of theirs here.
    assert "next-game-bar" not in logged_in(carol).get(
        reverse("game_detail", args=[first.pk])
    ).content.decode()


def test_another_players_games_are_never_next(alice, bob, carol):
    waiting_for_alice = clocked_game(alice, bob, 3)
    assert next_of(logged_in(carol)).json() == {"url": None}
    assert next_of(logged_in(carol), **{"from": str(waiting_for_alice.pk)}).json() == {
        "url": None
    }
