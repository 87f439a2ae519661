""""Next game where it is my move" in Chromium: the link on a game page follows the
player's other games live, and with the preference on, a move takes the player to the
next game that waits for them (on a phone, in Spanish)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from accounts import services as account_services
from games import services
from tests.e2e.board import drag, expect_moves, open_game

pytestmark = pytest.mark.e2e


def clocked_game(white, black, days: int):
    challenge = services.challenge(challenger=black, challenged=white, days_per_move=days)
    return services.accept_challenge(challenge_id=challenge.pk, player=white, colour="white")


def test_a_move_takes_the_player_to_the_next_game_that_waits(new_page, alice, bob, carol):
    account_services.save_preferences(
        player=alice, values={"next_game_after_move": True, "confirm_moves": False}
    )
    here = clocked_game(alice, bob, 3)
    urgent = clocked_game(alice, carol, 1)
    page = open_game(new_page(alice, width=390, height=844, locale="es-ES"), here)
    expect(page.locator("#next-game")).to_be_visible()
    expect(page.locator("#next-game")).to_contain_text("Siguiente partida")

    drag(page, "e2", "e4")

    page.wait_for_url(re.compile(rf"/games/{urgent.pk}/$"))
    # There, no other game waits: the link is gone.
    expect(page.locator("#next-game-bar")).to_be_hidden()


def test_without_the_preference_the_link_follows_the_other_games_live(
    new_page, alice, bob, carol
):
    here = clocked_game(alice, bob, 3)
    other = clocked_game(alice, carol, 3)
    alices = open_game(new_page(alice), here)
    carols = open_game(new_page(carol), other)
    expect(alices.locator("#next-game-bar")).to_be_visible()

    # alice plays her other game elsewhere: nothing else waits, the link goes.
    second = open_game(new_page(alice), other)
    drag(second, "e2", "e4")
    expect_moves(carols, 1)
    expect(alices.locator("#next-game-bar")).to_be_hidden()
    # carol answers: alice's other game waits again, and the link comes back.
    drag(carols, "e7", "e5")
    expect(alices.locator("#next-game-bar")).to_be_visible()
    # alice stays where she was after her own move here.
    drag(alices, "e2", "e4")
    expect_moves(alices, 1)
    expect(alices).to_have_url(re.compile(rf"/games/{here.pk}/$"))
    alices.locator("#next-game").click()
    alices.wait_for_url(re.compile(rf"/games/{other.pk}/$"))
