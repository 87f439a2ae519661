"""Small things players saw in Chromium: every switch beside its label, the time-left
clock drawn without an emoji font, colour dots round on a phone, and a refused
challenge that keeps the time control chosen."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from games import services

pytestmark = pytest.mark.e2e

PHONE = {"width": 360, "height": 780}
LANGUAGES = [
    pytest.param("en-US", {"time_left": "Time left", "no_player": "There is no active player"},
                 id="en"),
    pytest.param("es-ES", {"time_left": "Tiempo restante", "no_player": "No hay ningún jugador"},
                 id="es"),
]


@pytest.mark.parametrize(("locale", "words"), LANGUAGES)
def test_every_switch_of_the_preferences_sits_with_its_label(new_page, alice, locale, words):
    page = new_page(alice, locale=locale, **PHONE)
    page.goto("/accounts/preferences/")
    boxes = page.locator("#preferences-form .form-check input[type=checkbox]")
    expect(boxes.first).to_be_visible()
    assert boxes.count() >= 10  # the page's own switches and one per kind of e-mail
    for index in range(boxes.count()):
        box = boxes.nth(index)
        label = page.locator(f'label[for="{box.get_attribute("id")}"]')
        at, text = box.bounding_box(), label.bounding_box()
        assert at is not None and text is not None
        # On the label's first line, just before it: not floated off beside a heading.
        assert 0 <= text["x"] - (at["x"] + at["width"]) < 16, box.get_attribute("id")
        assert text["y"] <= at["y"] + at["height"] / 2 <= text["y"] + 24, box.get_attribute("id")


@pytest.fixture
def timed_game(alice, make_player):
    # A long name squeezes the row on a phone, as players' names do.
    rival = make_player("a_very_long_rival_name_x")
    made = services.challenge(challenger=rival, challenged=alice, days_per_move=3)
    return services.accept_challenge(challenge_id=made.pk, player=alice, colour="white")


@pytest.mark.parametrize(("locale", "words"), LANGUAGES)
def test_the_time_left_is_drawn_without_an_emoji_and_the_colour_dot_stays_round(
    new_page, alice, timed_game, locale, words
):
    page = new_page(alice, locale=locale, **PHONE)
    page.goto("/")
    row = page.locator(f'.game-row[data-game-id="{timed_game.pk}"]')
    left = row.locator(".time-left")
    expect(left).to_have_attribute("title", words["time_left"])
    expect(left.locator("svg.clock-icon")).to_be_visible()
    # No emoji nor other symbol a font may lack: digits, letters and spaces only.
    assert re.fullmatch(r"[\w\s]+", left.inner_text().strip()), left.inner_text()
    dot = row.locator(".colour-dot").bounding_box()
    assert dot is not None and dot["width"] > 5
    assert abs(dot["width"] - dot["height"]) < 0.5, dot


def test_the_colour_swatches_of_the_live_games_are_square_on_a_phone(
    new_page, alice, bob, carol, make_player, start_game, play
):
    rival = make_player("another_long_rival_name_y")
    play(start_game(rival, bob), "e4")
    page = new_page(carol, **PHONE)
    page.goto("/live/")
    swatches = page.locator(".live-game .player-swatch")
    expect(swatches.first).to_be_visible()
    for index in range(swatches.count()):
        box = swatches.nth(index).bounding_box()
        assert box is not None and box["width"] > 5
        assert abs(box["width"] - box["height"]) < 0.5, box


def challenge_from_the_dashboard(page: Page, username: str, days: str) -> None:
    page.locator("#challenge-days").select_option(days)
    page.locator("#challenge-username").fill(username)
    page.locator(".challenge-form button[type=submit]").click()


@pytest.mark.parametrize(("locale", "words"), LANGUAGES)
def test_a_refused_challenge_keeps_the_time_control_chosen(new_page, alice, locale, words):
    page = new_page(alice, locale=locale, **PHONE)
    page.goto("/")
    challenge_from_the_dashboard(page, "nobody", "7")
    expect(page.locator(".alert").filter(has_text=words["no_player"])).to_be_visible()
    expect(page.locator("#challenge-days")).to_have_value("7")
    expect(page.locator("#challenge-username")).to_have_value("nobody")
    # Corrected and sent again, the choice still stands.
    challenge_from_the_dashboard(page, "nobody", "none")
    expect(page.locator("#challenge-days")).to_have_value("none")
