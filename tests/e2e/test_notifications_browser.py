"""The bell: its count rises live when the opponent moves in another page, opening the
game clears it, and the list reads well on a phone, in Spanish, in the dark."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from games import services
from games.models import Notification
from tests.e2e.board import drag, open_game

pytestmark = pytest.mark.e2e


@pytest.fixture
def alice_moved(alice, bob, start_game):
    game = start_game(alice, bob)
    services.make_move(game_id=game.pk, player=alice, move_number=1, move="e4")
    # alice starts with nothing unread: the count below is the opponent's move alone.
    Notification.objects.filter(recipient=alice).update(read_at=game.created_at)
    return game


def test_the_bell_counts_live_and_opening_the_game_clears_it(new_page, alice, bob, alice_moved):
    page = new_page(alice)
    page.goto("/players/")
    bell = page.locator("#notification-bell")
    count = bell.locator(".notification-count")
    expect(count).to_be_hidden()
    expect(bell).to_have_attribute("aria-label", "Notifications: none unread")
    opponent = open_game(new_page(bob), alice_moved)
    drag(opponent, "e7", "e5")
    expect(count).to_have_text("1")
    expect(count).to_be_visible()
    expect(bell).to_have_attribute("aria-label", "Notifications: 1 unread")
    expect(page.locator("#notification-live")).to_have_text("Unread notifications: 1.")
    # Keyboard: the bell is a link in the tab order, and leads to the list.
    bell.focus()
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"/notifications/$"))
    link = page.locator(".notification-link").first
    expect(link).to_have_text(f"bob played e5 in {alice_moved.public_id}: your move.")
    link.click()
    expect(page).to_have_url(re.compile(rf"/games/{alice_moved.pk}/$"))
    expect(page.locator("#notification-bell .notification-count")).to_be_hidden()
    # And it stays cleared in the other pages of the player, live.
    other = new_page(alice)
    other.goto("/")
    expect(other.locator("#notification-bell")).to_have_attribute("data-unread", "0")


def test_opening_the_game_from_elsewhere_drops_the_count_in_an_open_page(
    new_page, alice, bob, alice_moved
):
    services.make_move(game_id=alice_moved.pk, player=bob, move_number=2, move="e5")
    watching = new_page(alice)
    watching.goto("/players/")
    expect(watching.locator("#notification-bell .notification-count")).to_have_text("1")
    new_page(alice).goto(f"/games/{alice_moved.pk}/")
    expect(watching.locator("#notification-bell .notification-count")).to_be_hidden()


def test_on_a_phone_in_spanish_and_dark(new_page, alice, bob, alice_moved, screenshot):
    services.make_move(game_id=alice_moved.pk, player=bob, move_number=2, move="e5")
    page = new_page(alice, width=375, height=740, locale="es-ES", color_scheme="dark")
    page.goto("/notifications/")
    bell = page.locator("#notification-bell")
    # Outside the collapsed menu: visible without opening it.
    expect(bell).to_be_visible()
    expect(bell).to_have_attribute("aria-label", "Notificaciones: 1 sin leer")
    expect(page.locator("h1")).to_have_text("Notificaciones")
    expect(page.locator(".notification-link").first).to_have_text(
        f"bob jugó e5 en {alice_moved.public_id}: te toca."
    )
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 375, f"the page scrolls sideways on a phone ({width}px)"
    screenshot(page, "notifications-phone-es-dark")
    page.get_by_role("button", name="Marcar todas como leídas").click()
    expect(page.locator(".notification-unread")).to_have_count(0)
    expect(bell.locator(".notification-count")).to_be_hidden()


def test_a_move_in_the_game_i_am_looking_at_leaves_nothing_unread(
    new_page, alice, bob, alice_moved
):
    mine = open_game(new_page(alice), alice_moved)
    opponent = open_game(new_page(bob), alice_moved)
    drag(opponent, "e7", "e5")
    # The count rose (the live region said so), then the page opened the notification
    # of the game it shows, and the server sent the lower count back.
    expect(mine.locator("#notification-live")).to_have_text("Unread notifications: 1.")
    expect(mine.locator("#notification-bell")).to_have_attribute("data-unread", "0")
    assert not Notification.objects.filter(recipient=alice, read_at__isnull=True).exists()


def test_counts_fetched_before_a_newer_push_do_not_bring_the_old_count_back(
    new_page, alice, bob, alice_moved
):
    page = new_page(alice)
    page.goto("/players/")
    count = page.locator("#notification-bell .notification-count")
    expect(count).to_be_hidden()
    # The page asks for its counts after each game event: hold that reply, read while the
    # notification was still unread, until a newer count has come over the socket.
    held = []
    page.route("**/awaiting/", lambda route: held.append((route, route.fetch())))
    drag(open_game(new_page(bob), alice_moved), "e7", "e5")
    expect(count).to_have_text("1")
    for _ in range(100):
        if held:
            break
        page.wait_for_timeout(100)
    assert held, "the page did not ask for its counts after the move"
    new_page(alice).goto(f"/games/{alice_moved.pk}/")  # read elsewhere: 0 is pushed
    expect(count).to_be_hidden()

    route, stale = held[0]
    route.fulfill(response=stale)
    page.evaluate("() => new Promise((done) => setTimeout(done, 300))")
    expect(count).to_be_hidden()
    assert page.locator("#notification-bell").get_attribute("data-unread") == "0"
