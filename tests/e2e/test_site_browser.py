"""The pages around the game in a real browser: dark mode following the system, phone
widths, the Spanish site, and screenshots of each page for a person to look at."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from games import services
from games.models import mail_kind_on

pytestmark = pytest.mark.e2e

PHONE_WIDTH = 375


@pytest.fixture
def club(alice, bob, carol, make_player, start_game, play):
    """A few players with a record, a game in progress, a finished one and a challenge,
    so that no page is shown empty."""
    dave = make_player("dave")
    finished = start_game(alice, bob)
    play(finished, "e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6", "Qxf7")
    in_progress = start_game(carol, alice)
    play(in_progress, "d4", "d5", "c4")
    services.challenge(challenger=dave, challenged=alice)
    return {"finished": finished, "in_progress": in_progress}


def background(page: Page) -> str:
    return page.evaluate("getComputedStyle(document.body).backgroundColor")


def fits_the_width(page: Page, width: int) -> None:
    """Nothing sticks out sideways: the page never scrolls horizontally."""
    overflow = page.evaluate("document.documentElement.scrollWidth")
    assert overflow <= width, f"{page.url} is {overflow}px wide on a {width}px screen"


# --------------------------------------------------------------------------- dark mode


def test_dark_mode_follows_the_system(new_page, alice, club, screenshot):
    light = new_page(alice)
    dark = new_page(alice, color_scheme="dark")
    for page in (light, dark):
        page.goto("/")
        expect(page.locator("#live-connection")).to_have_attribute("data-state", "connected")
    html = "html"
    expect(light.locator(html)).to_have_attribute("data-bs-theme", "light")
    expect(dark.locator(html)).to_have_attribute("data-bs-theme", "dark")
    light_bg, dark_bg = background(light), background(dark)
    assert light_bg != dark_bg
    assert light_bg == "rgb(255, 255, 255)"
    screenshot(dark, "dashboard-dark")
    # Switching the system's scheme with the page open switches the page too.
    light.emulate_media(color_scheme="dark")
    expect(light.locator(html)).to_have_attribute("data-bs-theme", "dark")
    assert background(light) == dark_bg


def test_game_page_in_dark_mode(new_page, alice, club, screenshot):
    page = new_page(alice, color_scheme="dark")
    page.goto(f"/games/{club['in_progress'].pk}/")
    expect(page.locator("#game")).to_have_attribute("data-connection", "connected")
    expect(page.locator("html")).to_have_attribute("data-bs-theme", "dark")
    card = page.locator("#move-list").evaluate("el => getComputedStyle(el).color")
    assert card != "rgb(33, 37, 41)"  # not the light theme's text colour
    screenshot(page, "game-dark")


# --------------------------------------------------------------------------- phone


# The logged-in pages besides the dashboard: (screenshot name, path, heading).
LOGGED_IN_PAGES = [
    ("players", "/players/", "Players"),
    ("profile", "/players/bob/", "bob"),
    ("ranking", "/ranking/", "Ranking"),
    ("preferences", "/accounts/preferences/", "Preferences"),
]


@pytest.mark.parametrize(
    "name, path, heading", [("dashboard", "/", "My games"), *LOGGED_IN_PAGES]
)
def test_page_fits_a_phone_screen(new_page, alice, club, screenshot, name, path, heading):
    phone = new_page(alice, width=PHONE_WIDTH, height=812)
    phone.goto(path)
    expect(phone.locator("main h1").first).to_have_text(heading)
    fits_the_width(phone, PHONE_WIDTH)
    screenshot(phone, f"phone-{name}")


# --------------------------------------------------------------------------- every page


@pytest.mark.parametrize("name, path, heading", LOGGED_IN_PAGES)
def test_logged_in_pages(new_page, alice, club, screenshot, name, path, heading):
    page = new_page(alice)
    page.goto(path)
    expect(page.locator("main h1").first).to_have_text(heading)
    fits_the_width(page, 1280)
    screenshot(page, name)


@pytest.mark.parametrize(
    "name, path, heading",
    [
        ("login", "/accounts/login/", "Log in"),
        ("subscribe", "/accounts/subscribe/", "Ask to subscribe"),
    ],
)
def test_pages_before_logging_in(new_page, db, screenshot, name, path, heading):
    page = new_page()
    page.goto(path)
    expect(page.locator("main h1").first).to_have_text(heading)
    screenshot(page, name)


def test_site_speaks_spanish_to_a_spanish_browser(new_page, alice, club, screenshot):
    page = new_page(alice, locale="es-ES")
    page.goto("/")
    expect(page.locator("html")).to_have_attribute("lang", "es")
    expect(page.locator("main h1").first).to_have_text("Mis partidas")
    expect(page.locator("#live-connection")).to_have_text("conectado")
    screenshot(page, "dashboard-es")
    page.goto(f"/games/{club['in_progress'].pk}/")
    expect(page.locator("#status-connection")).to_have_text("conectado")
    screenshot(page, "game-es")


def test_the_language_menu_is_remembered_and_the_mail_kinds_follow_the_mail_switch(
    new_page, alice, club
):
    from accounts.selectors import preferences_of

    page = new_page(alice)
    page.goto("/accounts/preferences/")
    page.locator("#language-form button.dropdown-toggle").click()
    page.locator("#language-form button[name=language][value=es]").click()
    expect(page.locator("main h1").first).to_have_text("Preferencias")
    assert preferences_of(alice).language == "es"
    expect(page.locator("#id_language")).to_have_value("es")

    # "Send me e-mail" off greys out the kinds; on again, they are as they were.
    kinds = page.locator("#id_mail_opponent_moved")  # one of the switches in the fieldset
    expect(kinds).to_be_enabled()
    page.locator("#id_mail").uncheck()
    expect(kinds).to_be_disabled()
    page.get_by_role("button", name="Guardar").click()
    expect(page.locator(".alert-success")).to_contain_text("Se guardaron tus preferencias.")
    expect(kinds).to_be_disabled()
    expect(page.locator("#id_mail_opponent_moved")).to_be_checked()
    page.locator("#id_mail").check()
    expect(kinds).to_be_enabled()
    assert not preferences_of(alice).mail
    assert mail_kind_on(preferences_of(alice), "opponent_moved")


def test_a_player_makes_a_gateway_key_on_the_preferences_page_and_sees_it_once(new_page, alice):
    from accounts.selectors import gateway_key_matches

    page = new_page(alice)
    page.goto("/accounts/preferences/")
    expect(page.locator("#gateway-key-none")).to_be_visible()
    page.get_by_role("button", name="Make a new key").click()
    key = page.locator("#new-gateway-key")
    expect(key).to_have_text(re.compile(r"^[A-Za-z0-9_-]{32}$"))
    assert gateway_key_matches(alice.pk, key.inner_text())
    page.goto("/accounts/preferences/")
    expect(page.locator("#gateway-key-made")).to_be_visible()
    expect(page.locator("#new-gateway-key")).to_have_count(0)
