"""The game page follows the game live, whole: what it shows after an event is what a
reload would show (the ending, an opponent's vacation), with no reload."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from games import chat
from tests.e2e.board import drag, open_game

pytestmark = pytest.mark.e2e

LANGUAGES = [
    pytest.param("en-US", {"away": "on vacation", "spectators": "Spectators' chat"}, id="en"),
    pytest.param("es-ES", {"away": "de vacaciones", "spectators": "Chat de los espectadores"},
                 id="es"),
]


@pytest.mark.parametrize(("locale", "words"), LANGUAGES)
def test_the_end_of_the_game_clears_what_only_a_game_in_progress_shows(
    new_page, game, alice, bob, carol, play, locale, words
):
    play(game, "f3", "e5", "g4")
    chat.post_message(game_id=game.pk, author=carol, text="Qh4 mates")
    # White on a phone, on black's turn: the conditional moves are open to her.
    white = open_game(new_page(alice, width=390, height=844, locale=locale), game)
    black = open_game(new_page(bob), game)
    expect(white.locator("#conditional")).to_be_visible()
    expect(white.locator("#chat-spectators-hidden")).to_be_visible()
    expect(white.locator('.chat-lines[data-room="spectators"]')).to_have_count(0)

    drag(black, "d8", "h4")
    expect(white.locator("#result-banner")).to_be_visible()
    expect(white.locator("#conditional")).to_be_hidden()
    expect(white.locator("#chat-spectators-hidden")).to_be_hidden()
    # The spectators' room opens to the players, as a reload would show it.
    spectators = white.locator('.chat-lines[data-room="spectators"]')
    expect(spectators).to_contain_text("Qh4 mates")
    expect(white.locator("#chat h3")).to_have_text(words["spectators"])
    assert white.evaluate("document.documentElement.scrollWidth") <= 390


def go_on_vacation(page: Page) -> None:
    page.goto("/vacation/")
    page.locator("button[name=action][value=start]").click()
    expect(page.locator("#vacation-status")).to_be_visible()


def come_back(page: Page) -> None:
    page.locator("button[name=action][value=end]").click()
    expect(page.locator("button[name=action][value=start]")).to_be_visible()


@pytest.mark.parametrize(("locale", "words"), LANGUAGES)
def test_the_opponents_vacation_shows_and_goes_without_a_reload(
    new_page, game, alice, bob, play, locale, words
):
    # Black's turn: white's vacation stops no clock here, and her badge still shows.
    play(game, "e4")
    black = open_game(new_page(bob, locale=locale), game)
    badge = black.locator("#away-white")
    expect(badge).to_be_hidden()
    version = int(black.locator("#game").get_attribute("data-version") or 0)

    away = new_page(alice)
    go_on_vacation(away)
    expect(badge).to_be_visible()
    expect(badge).to_have_text(words["away"])
    expect(black.locator("#away-black")).to_be_hidden()
    # A new version of the game, applied as an event: the page did not reload.
    expect(black.locator("#game")).to_have_attribute("data-version", str(version + 1))

    come_back(away)
    expect(badge).to_be_hidden()
    expect(black.locator("#game")).to_have_attribute("data-version", str(version + 2))


def test_the_vacation_of_the_player_to_move_shows_with_their_stopped_clock(
    new_page, alice, bob, start_game
):
    from games import services

    made = services.challenge(challenger=bob, challenged=alice, days_per_move=3)
    game = services.accept_challenge(challenge_id=made.pk, player=alice, colour="white")
    black = open_game(new_page(bob), game)
    away = new_page(alice)
    go_on_vacation(away)
    expect(black.locator("#away-white")).to_be_visible()
    expect(black.locator("#game-clock-countdown")).to_have_text(
        re.compile("on vacation: the clock stands still")
    )
    come_back(away)
    expect(black.locator("#away-white")).to_be_hidden()
    expect(black.locator("#game-clock-countdown")).not_to_have_text(
        re.compile("on vacation")
    )
