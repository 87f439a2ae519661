"""Castling on the board as on lichess: the king dragged two squares, or dropped on its
own rook, castles; the server takes either and stores the standard move."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from accounts import services as account_services
from games.models import Move
from tests.e2e.board import drag, expect_moves, move_list, open_game

pytestmark = pytest.mark.e2e

# 1. e4 e5 2. Nf3 Nf6 3. Bc4 Bc5: either side may castle kingside.
OPENING = ("e4", "e5", "Nf3", "Nf6", "Bc4", "Bc5")


def test_the_king_dropped_on_its_own_rook_castles(new_page, game, alice, bob, play):
    play(game, *OPENING)
    white = open_game(new_page(alice), game)
    black = open_game(new_page(bob), game)
    drag(white, "e1", "h1")
    expect_moves(black, 7)
    expect_moves(white, 7)
    assert move_list(white)[-1] == move_list(black)[-1] == "O-O"
    # Stored as every other door reads castling: the king's two squares.
    assert Move.objects.get(game=game, number=7).uci == "e1g1"
    placement = white.evaluate("window.ajedrezGame.boardFen()")
    assert placement.endswith("RNBQ1RK1")
    # Black's king castles the same way, onto the h8 rook.
    drag(black, "e8", "h8")
    expect_moves(white, 8)
    assert move_list(white)[-1] == "O-O"
    assert Move.objects.get(game=game, number=8).uci == "e8g8"


@pytest.mark.parametrize(
    ("locale", "question"), [("en-US", "Play O-O?"), ("es-ES", "¿Jugar O-O?")]
)
def test_castling_onto_the_rook_asks_to_confirm_castling_on_a_phone(
    new_page, game, alice, play, locale, question
):
    account_services.save_preferences(player=alice, values={"confirm_moves": True})
    play(game, *OPENING)
    white = open_game(new_page(alice, width=390, height=844, locale=locale), game)
    drag(white, "e1", "h1")
    expect(white.locator("#move-confirm")).to_contain_text(question)
    white.locator("#btn-move-confirm").click()
    expect_moves(white, 7)
    assert move_list(white)[-1] == "O-O"
