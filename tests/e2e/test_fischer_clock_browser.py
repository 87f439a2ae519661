"""A Fischer clock on the game page in a real browser: both players' banks shown, the
one on the clock counting down, the other standing still, and the two changing places
with the increment when a move is made."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from playwright.sync_api import expect

from games import clock, services
from games.models import Challenge
from tests.e2e.board import drag, open_game

pytestmark = pytest.mark.e2e


def test_the_game_page_shows_both_banks_and_counts_down_the_one_on_the_clock(new_page, alice, bob):
    made = services.challenge(challenger=bob, challenged=alice, fischer=clock.Fischer(30, 1, 40))
    game = services.accept_challenge(challenge_id=made.pk, player=alice, colour="white")
    page = new_page(alice)
    page.clock.install(time=dt.datetime.now(dt.UTC))
    page = open_game(page, game)
    white, black = page.locator("#bank-white"), page.locator("#bank-black")
    expect(page.locator("#fischer-banks")).to_contain_text("alice")
    expect(page.locator("#fischer-banks")).to_contain_text("bob")
    expect(page.locator("#time-control")).to_have_text("30 days + 1 per move (max 40)")
    page.clock.fast_forward("26:00:00")
    # White's bank runs (a day and two hours spent); black's stands at 30 days.
    expect(white).to_have_text(re.compile(r"^28d 2[12]h$"))
    expect(black).to_have_text(re.compile(r"^30d 0h"))
    drag(page, "e2", "e4")
    # The move is made on the server's clock, not the page's: white gets the day of
    # increment on what the server counted, and black's bank now runs.
    expect(white).to_have_text(re.compile(r"^3[01]d \d+h"))
    expect(black).to_have_attribute("data-deadline", re.compile(r"^\d{4}-"))
    expect(white).not_to_have_attribute("data-deadline", re.compile("."))


def test_a_players_page_challenges_with_a_fischer_clock_whose_days_show_once_chosen(
    new_page, alice, bob
):
    page = new_page(alice)
    page.goto(f"/players/{bob.username}/")
    days, base = page.locator(f"#challenge-days-{bob.pk}"), page.locator(f"#fischer-base-{bob.pk}")
    expect(base).to_be_hidden()
    days.select_option("fischer")
    expect(base).to_be_visible()
    base.fill("20")
    page.locator(f"#fischer-increment-{bob.pk}").fill("2")
    page.locator(f"#fischer-cap-{bob.pk}").fill("25")
    page.get_by_role("button", name="Challenge", exact=True).click()
    expect(page.locator(".alert-success")).to_contain_text("Challenge sent to bob")
    made = Challenge.objects.get()
    assert made.fischer == clock.Fischer(20, 2, 25) and made.days_per_move is None
