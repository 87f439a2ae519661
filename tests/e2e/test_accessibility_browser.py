"""axe-core (axe-playwright-python) on the site's pages, light and dark: WCAG 2 AA,
contrast included. Contrast is measured on what the browser drew, so it catches a
colour that vanishes in dark mode as well as a grey too light on the board."""

from __future__ import annotations

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page, expect

from accounts import services as account_services
from games import services
from tests.e2e.board import drag, expect_moves, open_game

pytestmark = pytest.mark.e2e

AXE = Axe()
WCAG_AA = {"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}}


def violations(page: Page, context: object = None) -> list[str]:
    """Each rule broken, with the elements that break it, as one readable line.

    Colours are judged at rest: a button just clicked is still fading into its
    hover colours for 0.15 s, and axe would measure the colour halfway.
    """
    page.evaluate(
        """() => Promise.all(document.getAnimations()
            .filter(a => a.effect && a.effect.getComputedTiming().endTime !== Infinity)
            .map(a => a.finished.catch(() => null)))"""
    )
    results = AXE.run(page, context=context, options=WCAG_AA)
    return [
        f"{v['id']}: {v['help']} — "
        + "; ".join(
            f"{' '.join(n['target'])} ({n.get('failureSummary', '').splitlines()[-1].strip()})"
            for n in v["nodes"][:6]
        )
        for v in results.response["violations"]
    ]


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_game_page_meets_wcag_aa(new_page, game, alice, bob, scheme):
    white = open_game(new_page(alice, color_scheme=scheme), game)
    drag(white, "e2", "e4")
    expect_moves(white, 1)
    assert violations(white) == []


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_move_waiting_for_confirmation_meets_wcag_aa(
    new_page, game, alice, scheme, screenshot
):
    account_services.restore_default_preferences(player=alice)  # moves are confirmed
    page = open_game(new_page(alice, color_scheme=scheme), game)
    drag(page, "e2", "e4")
    expect(page.locator("#move-confirm")).to_be_visible()
    screenshot(page, f"game-confirm-move-{scheme}")
    assert violations(page) == []


# The square colours of each board theme (brown is chessground's image; the others are
# drawn by static/css/game.css).
SQUARES = {
    "brown": ("#f0d9b5", "#b58863"),
    "blue": ("#dee3e6", "#8ca2ad"),
    "green": ("#ffffdd", "#86a666"),
    "grey": ("#d9d9d9", "#a3a3a3"),
}

# Each coordinate label's colour and whether the square under its centre is light, read
# from the board drawn (axe cannot see through the board's background image).
READ_LABELS = """board => {
  const box = board.querySelector("cg-board").getBoundingClientRect();
  const size = box.width / 8;
  const white = board.classList.contains("orientation-white");
  return [...board.querySelectorAll("coords coord")].map(label => {
    const r = label.getBoundingClientRect();
    const column = Math.floor((r.left + r.width / 2 - box.left) / size);
    const row = Math.floor((r.top + r.height / 2 - box.top) / size);
    const file = white ? column : 7 - column, rank = white ? 7 - row : row;
    const style = getComputedStyle(label);
    return {text: label.textContent, color: style.color,
            opacity: Number(getComputedStyle(label.parentElement).opacity),
            light: (file + rank) % 2 === 1};
  });
}"""


def luminance(colour: str) -> float:
    if colour.startswith("#"):
        channels = [int(colour[i:i + 2], 16) for i in (1, 3, 5)]
    else:
        channels = [int(float(c)) for c in colour[colour.index("(") + 1:-1].split(",")[:3]]
    linear = [
        c / 3294.6 if c <= 10 else ((c / 255 + 0.055) / 1.055) ** 2.4 for c in channels
    ]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a: str, b: str) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_contrast_helper_matches_wcags_figures():
    assert round(contrast("#000000", "#ffffff"), 1) == 21.0
    assert round(contrast("#767676", "#ffffff"), 2) == 4.54  # WCAG's classic 4.5:1 grey


@pytest.mark.parametrize("theme", list(SQUARES))
@pytest.mark.parametrize("orientation", ["white", "black"])
def test_board_coordinates_meet_wcag_aa_on_every_square(
    new_page, game, make_player, theme, orientation
):
    player = make_player(f"c{theme[:3]}{orientation[0]}")
    account_services.save_preferences(
        player=player,
        values={"board_theme": theme, "show_coordinates": True, "orientation": orientation},
    )
    page = new_page(player)
    page.goto(f"/games/{game.pk}/")
    labels = page.locator("#board").evaluate(READ_LABELS)
    assert len(labels) == 16
    light, dark = SQUARES[theme]
    for label in labels:
        assert label["opacity"] == 1, label
        ratio = contrast(label["color"], light if label["light"] else dark)
        assert ratio >= 4.5, (label, ratio)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_player_swatches_stand_out_from_the_page(new_page, game, alice, scheme):
    page = open_game(new_page(alice, color_scheme=scheme), game)
    background = page.evaluate("getComputedStyle(document.body).backgroundColor")
    for swatch in ("white", "black"):
        style = page.locator(f"h1 .player-swatch.{swatch}").evaluate(
            "el => [getComputedStyle(el).backgroundColor, getComputedStyle(el).borderTopColor]"
        )
        # A graphic needs 3:1 against what is next to it (WCAG 1.4.11): its fill or edge.
        assert max(contrast(c, background) for c in style) >= 3, (swatch, style, background)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_finished_game_page_meets_wcag_aa(new_page, game, bob, alice, scheme, play):
    play(game, "f3", "e5", "g4", "Qh4#")
    page = open_game(new_page(bob, color_scheme=scheme), game)
    assert violations(page) == []


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("path", ["/", "/players/", "/ranking/", "/accounts/preferences/"])
def test_site_pages_meet_wcag_aa(new_page, alice, game, scheme, path):
    page = new_page(alice, color_scheme=scheme)
    page.goto(path)
    assert violations(page) == []


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_notifications_and_the_bell_meet_wcag_aa(new_page, alice, bob, game, scheme, play):
    # Unread and read ones, and the bell's badge showing a count.
    play(game, "e4", "e5", "Nf3", "Nc6")
    services.offer_draw(game_id=game.pk, player=bob)
    page = new_page(alice, color_scheme=scheme)
    page.goto("/notifications/")
    assert page.locator(".notification-unread").count() >= 1
    assert violations(page) == []


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_pages_without_login_meet_wcag_aa(new_page, db, scheme):
    page = new_page(color_scheme=scheme)
    for path in ("/accounts/login/", "/accounts/subscribe/", "/no/such/page/"):
        page.goto(path)
        assert violations(page) == [], path
