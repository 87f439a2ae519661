"""A player with many games in a real browser: the dashboard shows the first of each
list and a link to the rest, whose pages are read one after another, on a phone too."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from games.lobby import DASHBOARD_GAMES_PER_LIST, GAMES_PER_PAGE

pytestmark = pytest.mark.e2e

User = get_user_model()


@pytest.fixture
def busy_alice(alice, start_game):
    """alice to move in more games than the dashboard and one list page show."""
    for n in range(GAMES_PER_PAGE + 3):
        start_game(alice, User.objects.create_user(username=f"rival{n:02d}"))
    return alice


@pytest.mark.parametrize(("width", "locale", "more", "next_label"), [
    (1280, "en-US", "8 more games waiting for your move", "Next"),
    (375, "es-ES", "8 partidas más esperan tu jugada", "Siguiente"),
])
def test_more_games_lead_from_the_dashboard_through_the_lists_pages(
    new_page, busy_alice, screenshot, width, locale, more, next_label
):
    page = new_page(busy_alice, width=width, height=800, locale=locale)
    page.goto("/")
    your_move = page.locator("#my-turn-games")
    expect(your_move.locator(".game-row")).to_have_count(DASHBOARD_GAMES_PER_LIST)
    screenshot(page, f"dashboard-many-games-{width}")

    your_move.get_by_role("link", name=more).click()
    expect(page.locator("#game-list .game-row")).to_have_count(GAMES_PER_PAGE)
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    screenshot(page, f"game-list-{width}")

    page.get_by_role("link", name=next_label).click()
    expect(page.locator("#game-list .game-row")).to_have_count(3)
    page.locator("#game-list .game-row").first.click()
    expect(page).to_have_url(re.compile(r"/games/\d+/$"))
