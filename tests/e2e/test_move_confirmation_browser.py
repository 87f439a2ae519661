"""Move confirmation (the ``confirm_moves`` preference, on by default): a move made on
the board or typed is shown on the board with Confirm and Cancel, and nothing reaches the
server until the player confirms it."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import Page, expect

from accounts import services as account_services
from games.models import Game, Move
from tests.e2e.board import drag, expect_moves, open_game, type_move

pytestmark = pytest.mark.e2e

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"
AFTER_E4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR"
AFTER_NF3 = "rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R"


@pytest.fixture
def confirming(alice):
    """alice with the default preferences, in which moves are confirmed."""
    account_services.restore_default_preferences(player=alice)
    return alice


def moves_sent(page: Page) -> list[dict]:
    """Every ``move`` message the page sends on its socket from now on."""
    sent: list[dict] = []

    def record(frame) -> None:
        message = json.loads(frame)
        if message.get("type") == "move":
            sent.append(message)

    page.on("websocket", lambda ws: ws.on("framesent", record))
    return sent


def board_fen(page: Page) -> str:
    """The pieces as the board shows them (the placement part of a FEN)."""
    return page.evaluate("window.ajedrezGame.boardFen()")


def nothing_played(page: Page, game: Game, sent: list[dict]) -> None:
    """The page sent no move and the server recorded none. A round trip to the page
    first, so that a frame sent before it would have been reported by now."""
    page.evaluate("0")
    assert sent == []
    assert not Move.objects.filter(game=game).exists()


def test_a_dragged_move_waits_on_the_board_until_confirmed(new_page, game, confirming, bob):
    white = new_page(confirming)
    sent = moves_sent(white)
    open_game(white, game)
    black = open_game(new_page(bob), game)
    drag(white, "e2", "e4")
    bar = white.locator("#move-confirm")
    expect(bar).to_be_visible()
    expect(bar).to_contain_text("Play e2-e4?")
    expect(white.locator("#btn-move-confirm")).to_be_focused()
    assert board_fen(white) == AFTER_E4
    expect(white.locator("#game")).to_have_attribute("data-can-move", "false")
    nothing_played(white, game, sent)
    assert board_fen(black) == START

    white.locator("#btn-move-confirm").click()
    expect_moves(black, 1)
    expect(bar).to_be_hidden()
    assert [m["move"] for m in sent] == ["e2e4"]
    assert [m.uci for m in Move.objects.filter(game=game)] == ["e2e4"]


def test_cancel_puts_the_piece_back_and_sends_nothing(new_page, game, confirming):
    white = new_page(confirming)
    sent = moves_sent(white)
    open_game(white, game)
    drag(white, "g1", "f3")
    expect(white.locator("#move-confirm")).to_be_visible()
    white.locator("#btn-move-cancel").click()
    expect(white.locator("#move-confirm")).to_be_hidden()
    expect(white.locator("#game")).to_have_attribute("data-can-move", "true")
    white.wait_for_function(f"window.ajedrezGame.boardFen() === '{START}'")
    nothing_played(white, game, sent)
    # The board plays on: the next move confirmed is the one sent, alone.
    drag(white, "e2", "e4")
    white.locator("#btn-move-confirm").click()
    expect_moves(white, 1)
    assert [m["move"] for m in sent] == ["e2e4"]


def test_enter_confirms_the_move(new_page, game, confirming):
    white = open_game(new_page(confirming), game)
    drag(white, "g1", "f3")
    expect(white.locator("#btn-move-confirm")).to_be_focused()
    white.keyboard.press("Enter")
    expect_moves(white, 1)
    assert Move.objects.get(game=game).uci == "g1f3"
    expect(white.locator("#move-confirm")).to_be_hidden()
    expect(white.locator("#board")).to_be_focused()


def test_escape_cancels_the_move(new_page, game, confirming):
    white = new_page(confirming)
    sent = moves_sent(white)
    open_game(white, game)
    drag(white, "g1", "f3")
    expect(white.locator("#btn-move-confirm")).to_be_focused()
    white.keyboard.press("Escape")
    expect(white.locator("#move-confirm")).to_be_hidden()
    expect(white.locator("#board")).to_be_focused()
    white.wait_for_function(f"window.ajedrezGame.boardFen() === '{START}'")
    nothing_played(white, game, sent)


def test_a_typed_move_is_shown_on_the_board_and_sent_once_confirmed(
    new_page, game, confirming
):
    white = new_page(confirming)
    sent = moves_sent(white)
    open_game(white, game)
    type_move(white, "Nf3")
    expect(white.locator("#move-confirm")).to_contain_text("Play Nf3?")
    expect(white.locator("#btn-move-confirm")).to_be_focused()
    white.wait_for_function(f"window.ajedrezGame.boardFen() === '{AFTER_NF3}'")
    expect(white.locator("#move-input")).to_have_value("Nf3")
    nothing_played(white, game, sent)
    white.keyboard.press("Enter")
    expect_moves(white, 1)
    expect(white.locator("#move-input")).to_have_value("")
    assert Move.objects.get(game=game).uci == "g1f3"


def test_a_typed_move_cancelled_stays_in_the_box(new_page, game, confirming):
    white = new_page(confirming)
    sent = moves_sent(white)
    open_game(white, game)
    type_move(white, "e4")
    expect(white.locator("#btn-move-confirm")).to_be_focused()
    white.keyboard.press("Escape")
    expect(white.locator("#move-confirm")).to_be_hidden()
    expect(white.locator("#move-input")).to_be_focused()
    expect(white.locator("#move-input")).to_have_value("e4")
    white.wait_for_function(f"window.ajedrezGame.boardFen() === '{START}'")
    nothing_played(white, game, sent)


def test_a_typed_illegal_move_is_refused_at_once_without_asking(new_page, game, confirming):
    white = open_game(new_page(confirming), game)
    type_move(white, "Qh5")
    expect(white.locator("#move-input-error")).to_have_text(
        "That move is not legal in this position."
    )
    expect(white.locator("#move-confirm")).to_be_hidden()
    assert board_fen(white) == START


def test_a_refused_typed_move_leaves_the_box_once_a_board_move_is_confirmed(
    new_page, game, confirming
):
    white = open_game(new_page(confirming), game)
    type_move(white, "Qh5")
    expect(white.locator("#move-input-error")).to_be_visible()
    drag(white, "e2", "e4")
    expect(white.locator("#move-input")).to_have_value("Qh5")  # not played yet
    white.locator("#btn-move-confirm").click()
    expect_moves(white, 1)
    expect(white.locator("#move-input")).to_have_value("")
    expect(white.locator("#move-input-error")).to_be_hidden()


def test_a_promotion_shows_the_piece_chosen_until_confirmed(
    new_page, game, confirming, play
):
    play(game, "a4", "b5", "axb5", "a6", "bxa6", "Nc6", "a7", "Rb8")
    white = open_game(new_page(confirming), game)
    drag(white, "a7", "a8")
    white.locator("#promotion [data-piece=n]").click()
    expect(white.locator("#move-confirm")).to_contain_text("Play a7-a8=N?")
    assert board_fen(white).startswith("Nrbqkbnr/")
    assert Game.objects.get(pk=game.pk).next_move_number == 9
    white.locator("#btn-move-confirm").click()
    expect_moves(white, 9)
    assert Move.objects.get(game=game, number=9).uci == "a7a8n"


def test_an_opponents_draw_offer_drops_the_move_waiting(new_page, game, confirming, bob):
    white = new_page(confirming)
    sent = moves_sent(white)
    open_game(white, game)
    black = open_game(new_page(bob), game)
    drag(white, "e2", "e4")
    expect(white.locator("#move-confirm")).to_be_visible()
    black.locator("#btn-draw-offer").click()
    expect(white.locator("#draw-banner")).to_be_visible()
    expect(white.locator("#move-confirm")).to_be_hidden()
    expect(white.locator("#game-error")).to_have_text(
        "The game changed before you confirmed: your move was not sent."
    )
    white.wait_for_function(f"window.ajedrezGame.boardFen() === '{START}'")
    nothing_played(white, game, sent)


def test_a_move_played_elsewhere_drops_the_move_waiting(new_page, game, confirming):
    """alice has the game open twice; the position changes under the move waiting."""
    here = new_page(confirming)
    sent = moves_sent(here)
    open_game(here, game)
    elsewhere = open_game(here.context.new_page(), game)
    drag(here, "e2", "e4")
    expect(here.locator("#move-confirm")).to_be_visible()
    drag(elsewhere, "d2", "d4")
    elsewhere.locator("#btn-move-confirm").click()
    expect_moves(here, 1)
    expect(here.locator("#move-confirm")).to_be_hidden()
    assert board_fen(here) == "rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR"
    here.evaluate("0")
    assert sent == []
    assert [m.uci for m in Move.objects.filter(game=game)] == ["d2d4"]


def test_on_a_phone_the_buttons_are_on_screen_and_big_enough(
    new_page, game, confirming, screenshot
):
    phone = open_game(new_page(confirming, width=390, height=844), game)
    drag(phone, "e2", "e4")
    for button in ("#btn-move-confirm", "#btn-move-cancel"):
        locator = phone.locator(button)
        expect(locator).to_be_in_viewport()
        box = locator.bounding_box()
        assert box is not None
        assert box["height"] >= 44 and box["width"] >= 44
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    screenshot(phone, "game-phone-confirm-move")
    phone.locator("#btn-move-confirm").click()
    expect_moves(phone, 1)


def test_with_the_preference_off_a_drag_is_sent_at_once(new_page, game, alice, bob):
    account_services.save_preferences(player=alice, values={"confirm_moves": False})
    white, black = open_game(new_page(alice), game), open_game(new_page(bob), game)
    drag(white, "e2", "e4")
    expect_moves(black, 1)
    expect(white.locator("#move-confirm")).to_be_hidden()
    assert Move.objects.get(game=game).uci == "e2e4"


def test_the_preference_is_saved_from_the_preferences_page(new_page, game, confirming):
    page = new_page(confirming)
    page.goto("/accounts/preferences/")
    box = page.get_by_label("confirm each move before it is sent")
    expect(box).to_be_checked()
    box.uncheck()
    page.locator("#preferences-form button[type=submit]").first.click()
    expect(page.get_by_label("confirm each move before it is sent")).not_to_be_checked()
    open_game(page, game)
    drag(page, "e2", "e4")
    expect_moves(page, 1)
    expect(page.locator("#move-confirm")).to_be_hidden()
