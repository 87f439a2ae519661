"""The game chat in Chromium, as its users meet it: players talk live, spectators talk
apart, on a phone, in Spanish."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.e2e.board import open_game


def send(page, text: str) -> None:
    page.locator("#chat-text").fill(text)
    page.locator(".chat-form button[type=submit]").click()


def test_players_and_spectators_chat_apart_live(new_page, game, alice, bob, carol, screenshot):
    white = open_game(new_page(alice), game)
    black = open_game(new_page(bob, width=390, height=844, locale="es-ES"), game)
    watcher = open_game(new_page(carol), game)
    send(white, "<b>good luck</b>")
    line = black.locator('.chat-lines[data-room="players"] li').last
    expect(line).to_contain_text("<b>good luck</b>")  # shown as text, not markup
    expect(black.locator(".chat-lines b")).to_have_count(0)
    expect(black.locator("#chat-heading")).to_have_text("Chat con tu rival")
    send(watcher, "Bb5!")
    expect(watcher.locator('.chat-lines[data-room="spectators"]')).to_contain_text("Bb5!")
    white.wait_for_timeout(500)
    expect(white.locator("#chat")).not_to_contain_text("Bb5!")
    expect(watcher.locator("#chat")).not_to_contain_text("good luck")
    black.locator("#chat").scroll_into_view_if_needed()
    assert black.evaluate("document.documentElement.scrollWidth") <= 390
    screenshot(black, "chat-phone-es")


def test_a_refused_message_says_why(new_page, game, alice, settings):
    white = open_game(new_page(alice), game)
    white.locator("#chat-text").evaluate("el => el.removeAttribute('maxlength')")
    send(white, "x" * 301)
    expect(white.locator(".chat-error")).to_have_text("A message has 1 to 300 characters.")
