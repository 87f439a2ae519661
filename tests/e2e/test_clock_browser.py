"""The correspondence clock in a real browser: the countdown runs without a reload,
follows the game's events, and says when time is up. The page's clock is Playwright's
fake one: minutes and days pass at once, nothing waits for them."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from playwright.sync_api import Page, expect

from games import services
from tests.e2e.board import drag, open_game

pytestmark = pytest.mark.e2e


@pytest.fixture
def timed_game(alice, bob):
    made = services.challenge(challenger=bob, challenged=alice, days_per_move=1)
    return services.accept_challenge(challenge_id=made.pk, player=alice, colour="white")


def _with_fake_clock(page: Page) -> Page:
    # Hours pass with clock.fast_forward, which fires each due timer once: run_for fired
    # every tick of every interval on the way (82,800 countdown ticks, and a poll every
    # 5 s whenever the socket was down), which kept the page and the test server busy
    # long after the test.
    page.clock.install(time=dt.datetime.now(dt.UTC))
    return page


def test_the_game_page_counts_down_without_a_reload(new_page, alice, timed_game, screenshot):
    page = open_game(_with_fake_clock(new_page(alice)), timed_game)
    clock = page.locator("#game-clock")
    countdown = page.locator("#game-clock-countdown")
    expect(clock).to_be_visible()
    expect(clock).to_contain_text("Your time to move")
    first = countdown.inner_text()
    page.clock.fast_forward("01:00:00")
    expect(countdown).not_to_have_text(first)
    # About 23 hours left of the day (the server set the deadline a moment before).
    expect(countdown).to_have_text(re.compile(r"^2[23]h \d+m$"))
    # Little time left on my own clock: marked.
    expect(countdown).to_have_class("countdown countdown-low")
    screenshot(page, "game-clock")
    page.clock.fast_forward("23:00:05")
    expect(countdown).to_have_text("time is up")


def test_the_countdown_moves_to_the_opponent_when_i_move(new_page, alice, timed_game):
    page = open_game(_with_fake_clock(new_page(alice)), timed_game)
    drag(page, "e2", "e4")
    clock = page.locator("#game-clock")
    expect(clock).to_contain_text("Time left for bob")
    expect(page.locator("#game-clock-countdown")).to_have_attribute("data-mine", "0")


def test_the_dashboard_counts_down_and_lists_the_tightest_game_first(
    new_page, alice, carol, timed_game
):
    made = services.challenge(challenger=carol, challenged=alice, days_per_move=14)
    services.accept_challenge(challenge_id=made.pk, player=alice, colour="white")
    page = _with_fake_clock(new_page(alice))
    page.goto("/")
    rows = page.locator("#my-turn-games .game-row")
    expect(rows).to_have_count(2)
    expect(rows.first).to_have_attribute("data-game-id", str(timed_game.pk))
    countdown = rows.first.locator("time[data-deadline]")
    first = countdown.inner_text()
    page.clock.fast_forward("00:10:00")
    expect(countdown).not_to_have_text(first)


def test_the_game_page_shows_the_end_on_time_after_a_reload(new_page, alice, bob, timed_game):
    from django.utils import timezone

    from games.models import Game

    services.make_move(game_id=timed_game.pk, player=alice, move_number=1, move="e4")
    services.make_move(game_id=timed_game.pk, player=bob, move_number=2, move="e5")
    # Set-up only: alice's day has passed while nothing ran.
    Game.objects.filter(pk=timed_game.pk).update(
        deadline=timezone.now() - dt.timedelta(minutes=1)
    )
    page = new_page(alice)
    page.goto(f"/games/{timed_game.pk}/")
    expect(page.locator("#result-banner")).to_contain_text(
        re.compile("time ran out", re.IGNORECASE)
    )
    expect(page.locator("#game-clock")).to_be_hidden()


def test_the_spanish_page_counts_down_in_spanish(new_page, alice, timed_game):
    page = open_game(_with_fake_clock(new_page(alice, locale="es-ES")), timed_game)
    expect(page.locator("#game-clock")).to_contain_text("Tu tiempo para jugar")
    expect(page.locator("#time-control")).to_have_text("1 día por jugada")
