"""A tournament in Chromium: a player finds an open event, joins it (the last place, so
it starts), opens one of its games from the crosstable and plays it, while another
player's page of the event follows the crosstable live; in Spanish too."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from games import services
from games.models import Game
from tests.e2e.board import drag, open_game
from tests.games.tournaments import make_event


def test_a_player_joins_an_event_plays_and_the_crosstable_follows(
    new_page, alice, bob, carol, screenshot
):
    event = make_event(name="Spring Cup", max_players=3)
    for player in (bob, carol):
        services.join_tournament(tournament_id=event.pk, player=player)

    page = new_page(alice)
    page.goto("/")
    page.get_by_role("link", name="Tournaments").first.click()
    page.locator(f'#open-tournaments [data-tournament-id="{event.pk}"]').click()
    expect(page.locator("h1")).to_have_text("Spring Cup")
    page.locator("#join-tournament").click()
    expect(page.locator(".alert-success")).to_contain_text("which is full: it has started")
    expect(page.locator(".crosstable .crosstable-row")).to_have_count(3)

    watcher = new_page(carol)
    watcher.goto(f"/tournaments/{event.pk}/")
    expect(watcher.locator("#live-connection")).to_have_attribute("data-state", "connected")
    alice_row = watcher.locator('.crosstable-row[data-player="alice"]')
    expect(alice_row.locator(".crosstable-game.outcome-ongoing")).to_have_count(2)
    expect(alice_row.locator(".crosstable-points")).to_have_text("0")

    # Alice opens her game with white from her own crosstable, moves, then resigns.
    game = Game.objects.get(tournament=event, white=alice)
    page.locator(f'.crosstable-row[data-player="alice"] a[href="/games/{game.pk}/"]').click()
    open_game(page, game)
    expect(page.locator("#game-tournament")).to_have_text("Spring Cup")
    drag(page, "e2", "e4")
    expect(page.locator("#game")).to_have_attribute("data-can-move", "false")
    page.locator("#resign summary").click()
    page.locator("#btn-resign-confirm").click()
    expect(page.locator("#result-banner")).to_contain_text("0-1")

    # Carol's page of the event shows the result without a reload.
    expect(alice_row.locator(".crosstable-game.outcome-lost")).to_have_count(1)
    winner = game.black.username
    winner_row = watcher.locator(f'.crosstable-row[data-player="{winner}"]')
    expect(winner_row.locator(".crosstable-points")).to_have_text("1")
    expect(watcher.locator('.crosstable-row').first).to_have_attribute("data-player", winner)
    screenshot(watcher, "tournament-crosstable")


def test_an_events_page_in_spanish_on_a_phone(new_page, alice, bob, carol, screenshot):
    event = make_event(name="Copa de Primavera", max_players=3)
    for player in (alice, bob, carol):
        services.join_tournament(tournament_id=event.pk, player=player)
    page = new_page(carol, width=390, height=800, locale="es-ES")
    page.goto(f"/tournaments/{event.pk}/")
    expect(page.locator("#tournament-status")).to_have_text("en curso")
    expect(page.locator("h2").filter(has_text="Tablas cruzadas")).to_be_visible()
    expect(page.locator(".crosstable th").filter(has_text="Puesto")).to_be_visible()
    expect(page.locator("#withdraw-tournament")).to_have_text("Retirarme del torneo")
    # The crosstable scrolls inside its box; the page itself fits the phone.
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    screenshot(page, "tournament-phone-es")


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_an_events_pages_meet_wcag_aa(new_page, alice, bob, carol, scheme):
    from tests.e2e.test_accessibility_browser import violations

    open_event = make_event(name="Open Cup", max_players=5)
    services.join_tournament(tournament_id=open_event.pk, player=bob)
    event = make_event(name="Spring Cup", max_players=3)
    for player in (alice, bob, carol):
        services.join_tournament(tournament_id=event.pk, player=player)
    game = Game.objects.filter(tournament=event).first()
    services.resign(game_id=game.pk, player=game.black)
    page = new_page(alice, color_scheme=scheme)
    for path in ("/tournaments/", f"/tournaments/{open_event.pk}/", f"/tournaments/{event.pk}/",
                 f"/tournaments/{event.pk}/games/"):
        page.goto(path)
        expect(page.locator("h1")).to_be_visible()
        assert violations(page) == [], path
