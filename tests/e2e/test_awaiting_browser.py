"""The tab title counts the games awaiting the player, live; a desktop notification
comes when the opponent moves while the tab is in the background."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from games import services
from tests.e2e.board import drag, open_game

pytestmark = pytest.mark.e2e

# Test-only observation: the page is told it is in the background, and each desktop
# notification it makes is recorded (the real Notification is still called).
BACKGROUND_AND_RECORD = """
window.__notes = [];
Object.defineProperty(document, "visibilityState", { get: () => "hidden" });
const RealNotification = window.Notification;
window.Notification = class extends RealNotification {
  constructor(title, options) {
    super(title, options);
    window.__notes.push({ title, body: options && options.body });
  }
};
"""


@pytest.fixture
def alice_moved(alice, bob, start_game):
    game = start_game(alice, bob)
    services.make_move(game_id=game.pk, player=alice, move_number=1, move="e4")
    return game


def test_the_tab_title_counts_the_games_awaiting_me_live(new_page, alice, bob, alice_moved):
    page = new_page(alice)
    page.goto("/players/")
    expect(page).to_have_title(re.compile(r"^Players · Ajedrez$"))
    opponent = open_game(new_page(bob), alice_moved)
    drag(opponent, "e7", "e5")
    expect(page).to_have_title(re.compile(r"^\(1\) Players · Ajedrez$"))


def test_a_desktop_notification_when_the_opponent_moves_in_the_background(
    new_page, server_url, alice, bob, alice_moved
):
    page = new_page(alice)
    page.context.grant_permissions(["notifications"], origin=server_url)
    page.add_init_script(BACKGROUND_AND_RECORD)
    page.goto("/")
    expect(page.locator("#live-connection")).to_have_attribute("data-state", "connected")
    opponent = open_game(new_page(bob), alice_moved)
    drag(opponent, "e7", "e5")
    expect(page).to_have_title(re.compile(r"^\(1\) "))
    page.wait_for_function("window.__notes.length > 0")
    notes = page.evaluate("window.__notes")
    assert notes == [
        {"title": f"bob moved in {alice_moved.public_id}", "body": "e5 · It is your move."}
    ]


def test_no_notification_without_permission(new_page, alice, bob, alice_moved):
    page = new_page(alice)
    page.add_init_script(BACKGROUND_AND_RECORD)
    page.goto("/")
    expect(page.locator("[data-enable-notifications]")).to_be_visible()
    opponent = open_game(new_page(bob), alice_moved)
    drag(opponent, "e7", "e5")
    expect(page).to_have_title(re.compile(r"^\(1\) "))
    assert page.evaluate("window.__notes") == []


def test_no_your_move_notification_when_my_conditional_reply_answers_at_once(
    new_page, server_url, alice, bob, alice_moved
):
    # alice (white) played e4 and set "e5 Nf3": bob's e5 is answered at once, so the game
    # waits for bob, not her. Her page in the background says nothing of "your move".
    services.set_conditional_lines(
        game_id=alice_moved.pk, player=alice, move_number=2, lines=[["e5", "Nf3"]]
    )
    page = new_page(alice)
    page.context.grant_permissions(["notifications"], origin=server_url)
    page.add_init_script(BACKGROUND_AND_RECORD)
    page.goto("/")
    expect(page.locator("#live-connection")).to_have_attribute("data-state", "connected")
    opponent = open_game(new_page(bob), alice_moved)
    drag(opponent, "e7", "e5")
    # Her bell counts the news: sent after both moves' events, on the same socket.
    expect(page.locator("#notification-bell .notification-count")).to_have_text("1")
    assert page.evaluate("window.__notes") == []
    expect(page).not_to_have_title(re.compile(r"^\(\d+\) "))
    page.goto("/notifications/")
    expect(page.locator("body")).to_contain_text(
        f"bob played e5 in {alice_moved.public_id}; your conditional move Nf3 was played: "
        "bob to move."
    )
