"""Helpers that play on the game page as a player does: open it, find squares, drag and
click pieces with the mouse, type moves, read the move list."""

from __future__ import annotations

from collections.abc import Callable

from playwright.sync_api import Page, expect

from games.models import Game


def open_game(page: Page, game: Game) -> Page:
    page.goto(f"/games/{game.pk}/")
    expect(page.locator("#game")).to_have_attribute("data-connection", "connected")
    return page


def square_centre(page: Page, square: str) -> tuple[float, float]:
    """Where ``square``'s centre is on the screen now, measured from the board drawn."""
    box = page.locator("#board cg-board").bounding_box()
    assert box is not None
    black_below = page.locator("#board").evaluate(
        "el => el.classList.contains('orientation-black')"
    )
    file, rank = ord(square[0]) - ord("a"), int(square[1]) - 1
    column, row = (7 - file, rank) if black_below else (file, 7 - rank)
    size = box["width"] / 8
    return box["x"] + (column + 0.5) * size, box["y"] + (row + 0.5) * size


def drag(
    page: Page, orig: str, dest: str, *, meanwhile: Callable[[], None] | None = None
) -> None:
    """Drag the piece on ``orig`` to ``dest`` with the mouse, as a player does.

    ``meanwhile`` runs with the piece picked up and moved a little; ``dest`` is found
    where it is after that.
    """
    expect(page.locator("#game")).to_have_attribute("data-can-move", "true")
    x1, y1 = square_centre(page, orig)
    page.mouse.move(x1, y1)
    page.mouse.down()
    if meanwhile is not None:
        page.mouse.move(x1 + 10, y1 - 10, steps=2)
        meanwhile()
    x2, y2 = square_centre(page, dest)
    page.mouse.move(x2, y2, steps=8)
    page.mouse.up()


def click_click(
    page: Page, orig: str, dest: str, *, meanwhile: Callable[[], None] | None = None
) -> None:
    """Click the piece on ``orig``, then the square ``dest``; ``meanwhile`` runs
    between the two clicks."""
    expect(page.locator("#game")).to_have_attribute("data-can-move", "true")
    page.mouse.click(*square_centre(page, orig))
    if meanwhile is not None:
        meanwhile()
    page.mouse.click(*square_centre(page, dest))


def move_list(page: Page) -> list[str]:
    return page.locator("#move-list .move").all_inner_texts()


def expect_moves(page: Page, count: int) -> None:
    expect(page.locator("#move-list .move")).to_have_count(count)


def type_move(page: Page, text: str) -> None:
    page.locator("#move-input").press_sequentially(text)
    page.locator("#move-form button[type=submit]").click()
