"""Ratings in the browser: the change shown live when a game ends, the profile's chart."""

from __future__ import annotations

import datetime as dt
import re

import pytest
import time_machine
from playwright.sync_api import expect

from games import services
from tests.e2e.board import drag, expect_moves, open_game
from tests.e2e.test_accessibility_browser import violations

pytestmark = pytest.mark.e2e


def test_the_ending_shows_both_rating_changes_at_once(
    new_page, game, alice, bob, play, screenshot
):
    play(game, "f3", "e5")
    white, black = open_game(new_page(alice), game), open_game(new_page(bob), game)
    expect(white.locator("#rating-black")).to_have_text("1500?")
    drag(white, "g2", "g4")
    expect_moves(black, 3)
    drag(black, "d8", "h4")
    for page in (white, black):
        banner = page.locator("#result-banner")
        expect(banner).to_contain_text("alice 1338? (−162), bob 1662? (+162)")
        expect(page.locator("#rating-black")).to_have_text("1662? +162")
        expect(page.locator("#rating-white")).to_have_text("1338? −162")
    screenshot(black, "game-rated-ending")


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_profile_draws_the_rating_history(
    new_page, alice, bob, make_player, start_game, play, screenshot, scheme
):
    for n, result in enumerate(["win", "win", "loss", "win", "draw", "win"]):
        opponent = make_player(f"rival{n}{scheme[0]}")
        game = start_game(bob, opponent)
        play(game, "e4", "e5")
        if result == "win":
            services.resign(game_id=game.pk, player=opponent)
        elif result == "loss":
            services.resign(game_id=game.pk, player=bob)
        else:
            services.offer_draw(game_id=game.pk, player=bob)
            services.answer_draw(game_id=game.pk, player=opponent, accept=True)
    page = new_page(alice, color_scheme=scheme)
    page.goto("/players/bob/")
    chart = page.locator("#rating-chart")
    expect(chart).to_have_attribute("data-ready", "true")
    expect(chart.locator("canvas")).to_have_count(1)
    box = chart.locator("canvas").bounding_box()
    assert box is not None and box["width"] > 300 and box["height"] >= 150
    expect(page.locator("#rating-chart-summary")).to_contain_text("6 rated games: from 1500 to")
    screenshot(page, f"profile-rating-chart-{scheme}")
    assert violations(page) == []


@pytest.mark.parametrize(
    ("locale", "months"), [("en-US", ("Jan", "Feb", "Mar")), ("es-ES", ("ene", "feb", "mar"))]
)
def test_the_rating_chart_runs_by_date(
    new_page, alice, bob, make_player, start_game, play, locale, months
):
    # Three games won in January, February and March: the axis names months, not counts.
    for n, day in enumerate([dt.date(2026, 1, 10), dt.date(2026, 2, 14), dt.date(2026, 3, 20)]):
        with time_machine.travel(dt.datetime.combine(day, dt.time(12), tzinfo=dt.UTC)):
            opponent = make_player(f"rival{n}")
            game = play(start_game(bob, opponent), "e4", "e5")
            services.resign(game_id=game.pk, player=opponent)
    page = new_page(alice, locale=locale, width=390, height=844)
    page.goto("/players/bob/")
    chart = page.locator("#rating-chart")
    expect(chart).to_have_attribute("data-ready", "true")
    ticks = (chart.get_attribute("data-x-ticks") or "").split("|")
    assert len(ticks) >= 2
    assert not any(re.fullmatch(r"\d+", tick) for tick in ticks), ticks
    assert any(month in tick for tick in ticks for month in months[1:]), ticks
