"""The archive in the browser: from the profile, filters, pages, the PGN download."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from games import services
from tests.e2e.test_accessibility_browser import violations

pytestmark = pytest.mark.e2e


@pytest.fixture
def finished(alice, bob, carol, start_game, play):
    won = start_game(alice, bob)
    play(won, "e4", "e6", "d4", "d5")
    services.resign(game_id=won.pk, player=bob)
    lost = start_game(carol, alice)
    play(lost, "e4", "c5")
    services.resign(game_id=lost.pk, player=alice)
    return won, lost


def test_a_player_filters_anothers_archive_and_downloads_what_it_shows(
    new_page, finished, bob, screenshot, tmp_path
):
    _won, lost = finished
    page = new_page(bob)
    page.goto("/players/alice/")
    page.locator("#archive-link").click()
    games = page.locator("#archive-games .game-row")
    expect(games).to_have_count(2)
    page.select_option("#id_result", "lost")
    page.locator("#archive-filters button[type=submit]").click()
    expect(games).to_have_count(1)
    expect(games.first).to_have_attribute("data-game-id", str(lost.pk))
    expect(games.first).to_contain_text("B20 Sicilian Defense")
    with page.expect_download() as download:
        page.locator("#archive-pgn").click()
    path = tmp_path / "games.pgn"
    download.value.save_as(path)
    text = path.read_text()
    assert text.count("[Event ") == 1 and '[ECO "B20"]' in text
    assert violations(page) == []
    screenshot(page, "archive-filtered")


def test_the_archive_on_a_phone_in_spanish(new_page, finished, bob, screenshot):
    page = new_page(bob, width=390, height=844, locale="es-ES", color_scheme="dark")
    page.goto("/players/alice/games/?opening=C")
    expect(page.locator("h1")).to_have_text("Partidas de alice")
    expect(page.locator("#archive-games .game-row")).to_have_count(1)
    expect(page.locator("#archive-count")).to_have_text("1 partida terminada")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390  # nothing sticks out sideways
    assert violations(page) == []
    screenshot(page, "archive-phone-es")
