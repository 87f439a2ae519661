"""Open challenges in Chromium: one player offers a game, another sees it appear in the
lobby without a reload and accepts it; both land in the game. On a phone, in Spanish."""

from __future__ import annotations

from playwright.sync_api import expect

from games.models import Game, Seek


def test_a_seek_appears_live_and_one_click_starts_the_game(new_page, alice, bob, screenshot):
    taker = new_page(bob)
    taker.goto("/")
    taker.get_by_role("link", name="Open challenges").click()
    expect(taker.locator("#live-connection")).to_have_attribute("data-state", "connected")
    expect(taker.locator("#other-seeks")).to_contain_text("No open challenge right now")

    maker = new_page(alice)
    maker.goto("/seeks/")
    expect(maker.locator("#live-connection")).to_have_attribute("data-state", "connected")
    maker.select_option("#seek-days", "5")
    maker.select_option("#seek-colour", "white")
    maker.get_by_role("button", name="Offer the game").click()
    expect(maker.locator("#my-seeks")).to_contain_text("you play white")
    seek = Seek.objects.get()

    # It appears on the other page by itself.
    row = taker.locator(f'.seek[data-seek-id="{seek.short_id}"]')
    expect(row).to_contain_text("alice")
    expect(row).to_contain_text("they play white")
    screenshot(taker, "open-challenges")
    row.get_by_role("button", name="Accept").click()
    game = Game.objects.get(short_id=seek.short_id)
    expect(taker).to_have_url(f"{taker.url.split('/games/')[0]}/games/{game.pk}/")

    # The maker sees it taken, live, and reaches the game from the page.
    expect(maker.locator("#my-seeks")).to_contain_text("None.")
    maker.locator("#taken-seeks").get_by_role("link", name="Open the game").click()
    expect(maker).to_have_url(f"{maker.url.split('/games/')[0]}/games/{game.pk}/")
    assert (game.white, game.black) == (alice, bob)


def test_a_cancelled_seek_disappears_from_the_other_page(new_page, alice, bob):
    taker = new_page(bob)
    taker.goto("/seeks/")
    expect(taker.locator("#live-connection")).to_have_attribute("data-state", "connected")
    maker = new_page(alice)
    maker.goto("/seeks/")
    maker.get_by_role("button", name="Offer the game").click()
    seek = Seek.objects.get()
    row = taker.locator(f'.seek[data-seek-id="{seek.short_id}"]')
    expect(row).to_be_visible()
    maker.locator("#my-seeks").get_by_role("button", name="Cancel").click()
    expect(row).to_have_count(0)


def test_open_challenges_on_a_phone_in_spanish(new_page, alice, bob, screenshot):
    maker = new_page(alice, width=390, height=800, locale="es-ES")
    maker.goto("/seeks/")
    expect(maker.locator("h1")).to_have_text("Desafíos abiertos")
    maker.fill("#seek-rating-min", "4001")
    maker.evaluate("document.querySelector('#seek-rating-min').removeAttribute('max')")
    maker.get_by_role("button", name="Ofrecer la partida").click()
    expect(maker.locator(".alert-danger, .alert-error, [role=alert]").first).to_contain_text(
        "límites de puntuación"
    )
    assert not Seek.objects.exists()
    maker.fill("#seek-rating-min", "")
    maker.get_by_role("button", name="Ofrecer la partida").click()
    expect(maker.locator("#my-seeks")).to_contain_text("colores al azar")
    taker = new_page(bob, width=390, height=800, locale="es-ES")
    taker.goto("/seeks/")
    expect(taker.locator("#other-seeks")).to_contain_text("alice")
    assert taker.evaluate("document.documentElement.scrollWidth") <= 390
    screenshot(taker, "open-challenges-phone-es")
    taker.locator("#other-seeks").get_by_role("button", name="Aceptar").click()
    expect(taker.locator("#game")).to_be_visible()


def test_the_dashboard_shows_open_challenges_as_they_come_and_takes_one(new_page, alice, bob):
    taker = new_page(bob)
    taker.goto("/")
    expect(taker.locator("#live-connection")).to_have_attribute("data-state", "connected")
    card = taker.locator("#dashboard-seeks")
    expect(card).to_contain_text("No open challenge right now")

    maker = new_page(alice)
    maker.goto("/seeks/")
    maker.select_option("#seek-colour", "black")
    maker.get_by_role("button", name="Offer the game").click()
    seek = Seek.objects.get()

    # On the taker's dashboard, without a reload; the maker's own dashboard does not
    # offer her own challenge back to her.
    row = card.locator(f'.seek[data-seek-id="{seek.short_id}"]')
    expect(row).to_contain_text("they play black")
    maker.goto("/")
    expect(maker.locator("#dashboard-seeks .seek")).to_have_count(0)
    row.get_by_role("button", name="Accept").click()
    game = Game.objects.get(short_id=seek.short_id)
    expect(taker).to_have_url(f"{taker.url.split('/games/')[0]}/games/{game.pk}/")
    assert (game.white, game.black) == (bob, alice)
