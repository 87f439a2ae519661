"""A move made with the mouse is the move the player made, whatever appeared or went above
the board since the page was drawn: the red error box (and its going after a few
seconds), the message that a game has started, the draw offer banner and the result
banner all move the board up or down the page.

Each test drags (or clicks, then clicks) a piece on a board that such a notice has moved,
and reads what the server recorded. The moves are chosen so that a board taken to be a
rank higher or lower than it is makes a different move or none.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import pytest
from playwright.sync_api import Page, expect

from games import services
from games.models import Game, Move
from tests.e2e.board import click_click, drag, expect_moves, open_game, square_centre, type_move

pytestmark = pytest.mark.e2e

Gesture = Callable[..., None]
GESTURES = [pytest.param(drag, id="drag"), pytest.param(click_click, id="click-click")]

# 1.d4 e6 2.Bd2 d5 3.c4 Nf6: white's bishop can go d2–a5, and the queen just below it
# d1–a4 (with check), the move the server recorded when a notice had moved the board.
OPENING = ("d4", "e6", "Bd2", "d5", "c4", "Nf6")


def play_and_expect(page: Page, game: Game, gesture: Gesture, uci: str) -> None:
    """Make ``uci`` with ``gesture`` on ``page``; the server records exactly that move."""
    game.refresh_from_db()
    number = game.next_move_number
    gesture(page, uci[:2], uci[2:4])
    expect_moves(page, number)
    assert Move.objects.get(game=game, number=number).uci == uci


# A window low enough for the game page to scroll.
SHORT = {"width": 1280, "height": 800}


def scroll_a_little(page: Page) -> None:
    """The player scrolls the page a little (to see more of the move list, say)."""
    page.mouse.move(5, 300)
    page.mouse.wheel(0, 40)
    page.wait_for_function("window.scrollY > 0")


@pytest.mark.parametrize("gesture", GESTURES)
def test_a_move_made_while_the_error_box_shows_is_the_move_made(
    new_page, game, alice, play, gesture
):
    play(game, *OPENING)
    white = open_game(new_page(alice), game)
    type_move(white, "Qh5")  # the pawn on e2 is in the way
    expect(white.locator("#game-error")).to_be_visible()
    play_and_expect(white, game, gesture, "d2a5")


@pytest.mark.parametrize("gesture", GESTURES)
def test_a_move_begun_while_the_error_box_shows_and_ended_after_it_went_is_the_move_made(
    new_page, game, alice, play, gesture
):
    """The piece is picked up (or clicked) under the error, which goes after its six
    seconds (the page's clock is run on) before the piece is put down."""
    play(game, *OPENING)
    white = new_page(alice, **SHORT)
    white.clock.install()
    open_game(white, game)
    type_move(white, "Qh5")
    error = white.locator("#game-error")
    expect(error).to_be_visible()
    scroll_a_little(white)

    def error_goes() -> None:
        white.clock.fast_forward(6000)
        expect(error).to_be_hidden()

    play_and_expect(white, game, partial(gesture, meanwhile=error_goes), "d2a5")


@pytest.mark.parametrize("gesture", GESTURES)
def test_a_move_made_after_closing_the_game_started_message_is_the_move_made(
    new_page, alice, bob, gesture
):
    challenge = services.challenge(challenger=bob, challenged=alice)
    white = new_page(alice)
    white.goto("/")
    white.locator(f'[data-challenge-id="{challenge.pk}"]').get_by_role(
        "button", name="White"
    ).click()
    message = white.locator(".messages .alert", has_text="has started")
    expect(message).to_be_visible()
    game = Game.objects.get(white=alice, black=bob)
    expect(white.locator("#game")).to_have_attribute("data-connection", "connected")
    message.get_by_role("button", name="Close").click()
    expect(message).to_have_count(0)
    play_and_expect(white, game, gesture, "g1f3")


@pytest.mark.parametrize("gesture", GESTURES)
def test_a_move_made_after_the_draw_banner_has_gone_is_the_move_made(
    new_page, game, alice, bob, gesture
):
    """White's offer is pending when the page opens; black declines it."""
    services.offer_draw(game_id=game.pk, player=alice)
    white, black = open_game(new_page(alice), game), open_game(new_page(bob), game)
    banner = white.locator("#draw-banner")
    expect(banner).to_be_visible()
    black.locator("#btn-draw-decline").click()
    expect(banner).to_be_hidden()
    play_and_expect(white, game, gesture, "g1f3")


@pytest.mark.parametrize("gesture", GESTURES)
def test_a_move_made_after_a_draw_offer_came_and_was_declined_is_the_move_made(
    new_page, game, alice, bob, play, gesture
):
    """The offer arrives live on black's page (scrolled a little), which declines it."""
    play(game, "e4")
    white, black = open_game(new_page(alice), game), open_game(new_page(bob, **SHORT), game)
    scroll_a_little(black)
    banner = black.locator("#draw-banner")
    white.locator("#btn-draw-offer").click()
    expect(banner).to_be_visible()
    black.locator("#btn-draw-decline").click()
    expect(banner).to_be_hidden()
    play_and_expect(black, game, gesture, "g8f6")


def test_an_arrow_drawn_after_the_result_banner_appeared_joins_the_squares_pointed_at(
    new_page, game, alice, bob
):
    """Once the game is over no move can be made, but the board still takes arrows,
    mapped from the pointer the same way as moves."""
    white, black = open_game(new_page(alice), game), open_game(new_page(bob), game)
    black.locator("#resign summary").click()
    black.locator("#btn-resign-confirm").click()
    expect(white.locator("#result-banner")).to_be_visible()
    x1, y1 = square_centre(white, "e2")
    x2, y2 = square_centre(white, "e4")
    white.mouse.move(x1, y1)
    white.mouse.down(button="right")
    white.mouse.move(x2, y2, steps=8)
    white.mouse.up(button="right")
    shapes = white.evaluate(
        "window.ajedrezGame.ground.state.drawable.shapes.map(s => [s.orig, s.dest])"
    )
    assert shapes == [["e2", "e4"]]
