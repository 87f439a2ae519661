"""Conditional moves in real Chromium: a player enters a line on the small board beside
the game, the opponent moves in another browser, the reply shows on both pages at once."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from games import services
from games.models import ConditionalLines
from tests.e2e.board import drag, expect_moves, move_list, open_game

pytestmark = pytest.mark.e2e


def explore(page: Page, orig: str, dest: str) -> None:
    """Drag a piece on the conditional moves' small board, either side below."""
    page.locator("#conditional-board").scroll_into_view_if_needed()
    box = page.locator("#conditional-board cg-board").bounding_box()
    assert box is not None
    size = box["width"] / 8
    black_below = page.locator("#conditional-board").evaluate(
        "el => el.classList.contains('orientation-black')"
    )

    def centre(square: str) -> tuple[float, float]:
        file, rank = ord(square[0]) - ord("a"), int(square[1]) - 1
        column, row = (7 - file, rank) if black_below else (file, 7 - rank)
        return box["x"] + (column + 0.5) * size, box["y"] + (row + 0.5) * size

    page.mouse.move(*centre(orig))
    page.mouse.down()
    page.mouse.move(*centre(dest), steps=6)
    page.mouse.up()


@pytest.fixture
def after_e4(make_player, start_game):
    alice, bob = make_player("alice"), make_player("bob")
    game = start_game(alice, bob)
    services.make_move(game_id=game.pk, player=alice, move_number=1, move="e4")
    return game, alice, bob


def test_a_line_entered_on_the_small_board_answers_the_opponents_move(
    new_page, after_e4, screenshot
):
    game, alice, bob = after_e4
    white = open_game(new_page(alice), game)
    black = open_game(new_page(bob), game)
    panel = white.locator("#conditional")
    expect(panel.locator("#conditional-editor")).to_be_visible()
    expect(panel.locator("#conditional-save")).to_be_disabled()
    explore(white, "e7", "e5")
    expect(panel.locator("#conditional-draft")).to_contain_text("1… e5")
    explore(white, "g1", "f3")
    expect(panel.locator("#conditional-draft")).to_contain_text("1… e5 2. Nf3")
    panel.locator("#conditional-save").click()
    expect(panel.locator("#conditional-lines li")).to_have_count(1)
    expect(panel.locator("#conditional-lines li")).to_contain_text("1… e5 2. Nf3")
    screenshot(white, "conditional-line-entered")
    # The opponent's page knows nothing of it: on his turn his own panel waits.
    expect(black.locator("#conditional-wait")).to_be_visible()
    expect(black.locator("#conditional-lines li")).to_have_count(0)

    drag(black, "e7", "e5")
    expect_moves(black, 3)
    expect_moves(white, 3)
    assert move_list(black)[-1] == move_list(white)[-1] == "Nf3"
    # The line is spent, and it is black's turn again: white's panel is open for the
    # next line, empty.
    expect(panel.locator("#conditional-lines li")).to_have_count(0)
    expect(panel.locator("#conditional-empty")).to_be_visible()
    screenshot(white, "conditional-reply-played")


def test_an_illegal_line_sent_anyway_is_refused_with_the_servers_reason(new_page, after_e4):
    game, alice, _ = after_e4
    white = open_game(new_page(alice), game)
    # A page that lets through what the small board never would: the server still judges.
    answer = white.evaluate(
        """async (url) => {
            const token = document.querySelector('[name=csrfmiddlewaretoken]').value;
            const r = await fetch(url, {method: 'POST', headers: {'X-CSRFToken': token,
              'Content-Type': 'application/json', Accept: 'application/json'},
              body: JSON.stringify({move_number: 2, lines: [['e5', 'Ke3']]})});
            return [r.status, (await r.json()).message];
        }""",
        f"/games/{game.pk}/conditional/",
    )
    assert answer == [422, "Line 1: “Ke3” is not a legal move there."]


def test_the_panel_in_spanish_on_a_phone(new_page, after_e4, screenshot):
    game, alice, _ = after_e4
    page = open_game(new_page(alice, width=390, height=844, locale="es-ES"), game)
    panel = page.locator("#conditional")
    panel.scroll_into_view_if_needed()
    expect(panel.locator("#conditional-heading")).to_have_text("Jugadas condicionales")
    explore(page, "c7", "c5")
    explore(page, "g1", "f3")
    panel.locator("#conditional-save").click()
    expect(panel.locator("#conditional-lines li")).to_contain_text("1… c5 2. Nf3")
    expect(panel.locator(".conditional-remove")).to_have_text("Quitar")
    screenshot(page, "conditional-phone-es")
    panel.locator(".conditional-remove").click()
    expect(panel.locator("#conditional-lines li")).to_have_count(0)


def test_a_pending_draw_offer_says_the_lines_wait(new_page, after_e4):
    game, alice, bob = after_e4
    services.set_conditional_lines(
        game_id=game.pk, player=alice, move_number=2, lines=[["e5", "Nf3"]]
    )
    services.offer_draw(game_id=game.pk, player=alice)
    white = open_game(new_page(alice), game)
    expect(white.locator("#conditional-suspended")).to_be_visible()
    expect(white.locator("#conditional-lines li")).to_contain_text("1… e5 2. Nf3")
    black = open_game(new_page(bob), game)
    black.locator("#btn-draw-decline").click()
    # Declined: the note goes on the owner's page as the event arrives.
    expect(white.locator("#conditional-suspended")).to_be_hidden()


def test_black_enters_a_line_on_the_board_turned_its_way(new_page, make_player, start_game):
    alice, bob = make_player("alice"), make_player("bob")
    game = start_game(alice, bob)
    white = open_game(new_page(alice), game)
    black = open_game(new_page(bob), game)
    expect(black.locator("#conditional-board")).to_have_class(re.compile("orientation-black"))
    explore(black, "d2", "d4")
    explore(black, "d7", "d5")
    black.locator("#conditional-save").click()
    expect(black.locator("#conditional-lines li")).to_contain_text("1. d4 d5")
    drag(white, "d2", "d4")
    expect_moves(white, 2)
    expect_moves(black, 2)
    assert move_list(white) == ["d4", "d5"]


def test_a_line_typed_with_the_keyboard_alone(new_page, after_e4):
    game, alice, _ = after_e4
    page = open_game(new_page(alice), game)
    field = page.locator("#conditional-typed-line")
    field.focus()
    field.press_sequentially("1... c5 2. Nf3 Ke7")
    page.keyboard.press("Enter")
    # An odd line: the server's reason shows, the text stays to be corrected.
    expect(page.locator("#conditional-error")).to_contain_text("Line 1: a line is their move")
    expect(field).to_have_value("1... c5 2. Nf3 Ke7")
    field.fill("1... c5 2. Nf3 2...d6 3.d4")
    page.keyboard.press("Enter")
    expect(page.locator("#conditional-lines li")).to_contain_text("1… c5 2. Nf3 d6 3. d4")
    expect(field).to_have_value("")
    expect(page.locator("#conditional-error")).to_be_hidden()


def test_a_pawn_reaching_the_last_rank_on_the_small_board_becomes_the_piece_chosen(
    new_page, make_player
):
    alice, bob = make_player("alice"), make_player("bob")
    # Black to move: white's panel is open, and either side may promote in a line.
    game = services.start_gateway_game(
        white=alice, black=bob, initial_fen="4k3/1P6/8/8/8/8/6p1/4K3 b - - 0 1"
    )
    white = open_game(new_page(alice), game)
    panel = white.locator("#conditional")
    picker = panel.locator("#conditional-promotion")
    expect(picker).to_be_hidden()

    explore(white, "g2", "g1")
    expect(picker).to_be_visible()
    expect(picker.locator("piece.black")).to_have_count(4)  # their pawn: black pieces
    white.keyboard.press("Escape")
    expect(picker).to_be_hidden()
    expect(panel.locator("#conditional-draft")).not_to_contain_text("g1")

    explore(white, "g2", "g1")
    picker.locator("button[data-piece=n]").click()
    expect(panel.locator("#conditional-draft")).to_contain_text("1… g1=N")
    explore(white, "b7", "b8")
    expect(picker.locator("piece.white")).to_have_count(4)
    picker.locator("button[data-piece=r]").click()
    expect(panel.locator("#conditional-draft")).to_contain_text("1… g1=N 2. b8=R+")
    panel.locator("#conditional-save").click()
    expect(panel.locator("#conditional-lines li")).to_contain_text("1… g1=N 2. b8=R+")
    lines = ConditionalLines.objects.get(game=game, player=alice).lines
    assert lines == [["g2g1n", "b7b8r"]]


def test_the_small_boards_promotion_dialog_fits_it(new_page, make_player):
    alice, bob = make_player("alice"), make_player("bob")
    game = services.start_gateway_game(
        white=alice, black=bob, initial_fen="4k3/1P6/8/8/8/8/6p1/4K3 b - - 0 1"
    )
    for width in (1280, 390):
        page = open_game(new_page(alice, width=width, height=844), game)
        explore(page, "g2", "g1")
        picker = page.locator("#conditional-promotion")
        expect(picker).to_be_visible()
        board = page.locator("#conditional-board").bounding_box()
        choices = picker.locator(".promotion-choice")
        tops = set()
        for n in range(4):
            box = choices.nth(n).bounding_box()
            assert box is not None and board is not None
            left, top = box["x"] - board["x"], box["y"] - board["y"]
            assert left >= 0 and left + box["width"] <= board["width"]
            assert top >= 0 and top + box["height"] <= board["height"]
            tops.add(round(box["y"]))
        assert len(tops) == 1, f"the four pieces are not on one row at {width}px"
