"""A player's time zone, as people meet it in Chromium: the browser's zone taken at
sign-up, the game page's deadline in it with the zone named, and a change of zone on the
preferences page, in English and in Spanish."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from accounts.models import SubscriptionRequest
from accounts.selectors import preferences_of
from games import services
from tests.e2e.conftest import enter_playwrights_loop, leave_playwrights_loop
from tests.e2e.test_game_browser import approve_all_in_the_admin, log_in, subscribe

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_zone_of_the_browser_at_sign_up_names_the_deadline_on_the_game_page(
    new_page, browser, make_player, bob
):
    admin = make_player("admin", is_staff=True, is_superuser=True)
    # A phone in New York.
    page = new_page(timezone_id="America/New_York", width=390, height=844)
    subscribe(page, "nina")
    assert SubscriptionRequest.objects.get(username="nina").time_zone == "America/New_York"
    approve_all_in_the_admin(new_page(admin))
    log_in(page, "nina")
    nina = preferences_of(SubscriptionRequest.objects.get(username="nina").user)
    assert nina.time_zone == "America/New_York"

    # The game begins through the services, outside the browser's loop (conftest).
    leave_playwrights_loop()
    challenge = services.challenge(challenger=bob, challenged=nina.player, days_per_move=3)
    game = services.accept_challenge(challenge_id=challenge.pk, player=nina.player, colour="white")
    enter_playwrights_loop(browser())
    page.goto(f"/games/{game.pk}/")
    # New York is at UTC-5 in winter and UTC-4 in summer: EST or EDT.
    expect(page.locator("#game-clock-until")).to_have_text(re.compile(r"\(until .+ E[SD]T\)"))

    page.goto("/accounts/preferences/")
    expect(page.locator("select[name=time_zone]")).to_have_value("America/New_York")


def test_a_zone_chosen_in_the_preferences_in_spanish_moves_every_time_shown(
    new_page, alice, bob
):
    challenge = services.challenge(challenger=bob, challenged=alice, days_per_move=3)
    game = services.accept_challenge(challenge_id=challenge.pk, player=alice, colour="white")
    page = new_page(alice, locale="es-ES", timezone_id="Europe/Madrid")
    page.goto("/accounts/preferences/")
    page.locator("select[name=time_zone]").select_option("Asia/Tokyo")
    page.locator("main form button[type=submit]").first.click()
    expect(page.locator(".alert-success")).to_be_visible()
    assert preferences_of(alice).time_zone == "Asia/Tokyo"

    page.goto(f"/games/{game.pk}/")
    until = page.locator("#game-clock-until")
    expect(until).to_have_text(re.compile(r"\(hasta .+ JST\)"))
    expect(page.locator("html")).to_have_attribute("data-time-zone", "Asia/Tokyo")
    # A move sets a new deadline: the script writes it in Tokyo's time too (the browser's
    # own name for the zone), not in the browser's Madrid.
    page.locator("#move-input").fill("e4")
    page.locator("#move-input").press("Enter")
    expect(page.locator("#move-list")).to_contain_text("e4")
    expect(until).to_have_text(re.compile(r"\(hasta .+ GMT\+9\)"))
