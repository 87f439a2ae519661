"""Several games with one opponent, when the administrator allows them: the players'
page lists each by its number and offers another, up to the limit, in a real browser."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from games import services
from games.models import Game

pytestmark = pytest.mark.e2e


def test_a_second_game_with_the_same_opponent_from_the_players_page(
    new_page, alice, bob, start_game
):
    services.set_site_rules(games_per_pair=2)
    first = start_game(alice, bob)
    page = new_page(alice)
    page.goto("/players/")
    row = page.locator('tr[data-username="bob"]')
    expect(row.get_by_role("link", name="Game in progress")).to_have_attribute(
        "href", f"/games/{first.pk}/"
    )
    row.get_by_role("button", name="Challenge to another game").click()
    expect(page.locator(".alert")).to_contain_text("Challenge sent to bob")

    opponent = new_page(bob)
    opponent.goto("/")
    opponent.locator("#incoming-challenges").get_by_role("button", name="White").click()
    expect(opponent).to_have_url(re.compile(r"/games/\d+/$"))
    second = Game.objects.exclude(pk=first.pk).get()
    assert (second.white, second.black, second.status) == (bob, alice, "active")

    # Both games, each by its number; at the limit, no challenge is offered.
    page.goto("/players/")
    for game in (first, second):
        expect(row.get_by_role("link", name=game.public_id)).to_have_attribute(
            "href", f"/games/{game.pk}/"
        )
    expect(row.get_by_role("button", name=re.compile("Challenge"))).to_have_count(0)
