"""The live games in Chromium: the list follows a game as it is played, leads to the
game as a spectator, whose count the players see; on a phone and in Spanish too."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.e2e.board import drag, open_game


def test_the_live_games_follow_a_move_and_lead_to_watching_it(
    new_page, game, alice, bob, carol, screenshot
):
    lobby = new_page(carol)
    lobby.goto("/")
    lobby.get_by_role("link", name="Live games").click()
    expect(lobby.locator("#live-connection")).to_have_attribute("data-state", "connected")
    row = lobby.locator(f'.live-game[data-game-id="{game.pk}"]')
    expect(row).to_contain_text("alice")
    expect(row).to_contain_text("no move yet")
    white = open_game(new_page(alice), game)
    drag(white, "e2", "e4")
    # The list updates by itself, without a reload.
    expect(row).to_contain_text("last move e4")
    expect(row).to_contain_text("black to move")
    screenshot(lobby, "live-games")
    row.click()
    expect(lobby.locator("#game")).to_have_attribute("data-connection", "connected")
    expect(lobby.locator("#status-colour")).to_have_text("spectator")
    # The players see that someone watches.
    expect(white.locator("#watchers")).to_have_text("1 spectator")
    lobby.close()
    expect(white.locator("#watchers")).to_be_hidden()


def test_the_live_games_on_a_phone_in_spanish(new_page, game, carol, screenshot):
    lobby = new_page(carol, width=390, height=800, locale="es-ES")
    lobby.goto("/live/?kind=rated")
    expect(lobby.locator("h1")).to_have_text("Partidas en directo")
    row = lobby.locator(f'.live-game[data-game-id="{game.pk}"]')
    expect(row).to_contain_text("aún sin jugadas")
    width = lobby.evaluate("document.documentElement.scrollWidth")
    assert width <= 390
    screenshot(lobby, "live-games-phone-es")
