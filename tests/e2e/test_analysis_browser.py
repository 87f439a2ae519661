"""The computer analysis in real Chromium, with the real Stockfish (a short search per
position) run by the analysis worker of ``manage.py serve``: a player asks for a finished
game's analysis, watches the graph fill in, clicks a point of it to see that position,
then tries a line that was not played on the analysis board and asks the engine about it.
The same on a phone, in Spanish; and no engine for a game in progress."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from ajedrez.task_worker import WorkerThread
from games import services
from games.analysis_tasks import close_thread_engine
from games.models import Game, GameAnalysis

pytestmark = pytest.mark.e2e

# 1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6?? 4. d3?? (Qxf7# was there) Nxh5, then White resigns.
MISSED_MATE = ["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "d3", "Nxh5"]


@pytest.fixture
def analysis_worker(settings, stockfish) -> Iterator[WorkerThread]:
    """The analysis worker, as ``manage.py serve`` runs it, on the test database; a
    search of half a second per position, so that the graph is seen growing (the page
    polls every 1.5 s)."""
    settings.STOCKFISH_PATH = stockfish
    settings.ENGINE_NODES = 0
    settings.ENGINE_SECONDS = 0.5
    settings.ENGINE_HASH_MB = 16
    settings.ENGINE_IDLE_CLASS = False
    settings.ANALYSIS_SLICE_SECONDS = 0.5
    worker = WorkerThread(interval=0.2, analysis=True)
    worker.start()
    yield worker
    worker.stop()
    close_thread_engine()


@pytest.fixture
def missed_mate(make_player, start_game, play) -> tuple[Game, object, object]:
    alice, bob = make_player("alice"), make_player("bob")
    game = play(start_game(alice, bob), *MISSED_MATE)
    return services.resign(game_id=game.pk, player=alice), alice, bob


def square_centre(page: Page, board: str, square: str) -> tuple[float, float]:
    box = page.locator(f"{board} cg-board").bounding_box()
    assert box is not None
    black_below = page.locator(board).evaluate("el => el.classList.contains('orientation-black')")
    file, rank = ord(square[0]) - ord("a"), int(square[1]) - 1
    column, row = (7 - file, rank) if black_below else (file, 7 - rank)
    size = box["width"] / 8
    return box["x"] + (column + 0.5) * size, box["y"] + (row + 0.5) * size


def drag(page: Page, board: str, orig: str, dest: str) -> None:
    page.mouse.move(*square_centre(page, board, orig))
    page.mouse.down()
    page.mouse.move(*square_centre(page, board, dest), steps=6)
    page.mouse.up()


def click_graph_at(page: Page, ply: int, positions: int) -> None:
    """Click the evaluation graph above half-move ``ply``."""
    over = page.locator("#analysis-graph .u-over")
    box = over.bounding_box()
    assert box is not None
    x = box["x"] + box["width"] * ply / (positions - 1)
    page.mouse.move(x, box["y"] + box["height"] / 2)
    page.mouse.click(x, box["y"] + box["height"] / 2)


def test_an_analysis_fills_in_and_a_variation_is_explored(
    new_page, missed_mate, analysis_worker, screenshot
):
    game, _alice, bob = missed_mate
    page = new_page(bob)
    page.goto(f"/games/{game.pk}/")
    panel = page.locator("#analysis")
    status = panel.locator("#analysis-status")
    expect(status).to_have_text("No computer analysis yet.")
    panel.get_by_role("button", name="Request a computer analysis").click()
    # It grows: part of the positions first, with the graph drawn, then all of them.
    expect(status).to_contain_text(re.compile(r"The engine is analysing: \d+ of 9 positions"))
    expect(panel.locator("#analysis-graph")).to_have_attribute("data-ready", "true")
    partial = panel.locator("#analysis-moves li").count()
    expect(status).to_have_text(re.compile(r"Analysed by Stockfish"), timeout=30_000)
    assert partial < 8
    expect(panel.locator("#analysis-moves li")).to_have_count(8)
    assert GameAnalysis.objects.get(game=game).status == "done"
    # 4. d3 is the blunder: marked in the list and counted for White.
    missed = panel.locator('#analysis-moves li[data-ply="7"]')
    expect(missed).to_have_class(re.compile("mark-blunder"))
    expect(missed).to_contain_text("d3??")
    expect(missed).to_contain_text("best Qxf7#")
    expect(panel.locator('td[data-side="white"][data-count="blunder"]')).not_to_have_text("0")
    expect(panel.locator('td[data-side="white"][data-count="accuracy"]')).to_have_text(
        re.compile(r"^\d+%$")
    )
    screenshot(page, "analysis-done")

    # A point of the graph shows its position on the game's board.
    click_graph_at(page, 3, 9)
    expect(page.locator('#move-list button[data-ply="3"]')).to_have_class(re.compile("current"))
    expect(panel.locator('#analysis-moves li[data-ply="3"]')).to_have_class(re.compile("current"))

    # From the position before the blunder, on the analysis board: the move that was
    # not played, as a variation.
    panel.locator('#analysis-moves button[data-ply="6"]').click()
    panel.locator("#analysis-board-link").click()
    board_page = page.locator("#analysis-board-page")
    expect(board_page).to_have_attribute("data-ready", "true")
    tree = page.locator("#analysis-tree")
    expect(tree.locator(".node.current")).to_have_text("Nf6")
    drag(page, "#analysis-board", "h5", "f7")
    expect(tree.locator(".variation .node.current")).to_have_text("Qxf7#")
    expect(tree.locator(".variation")).to_have_count(1)
    # The keys move through the tree: back to the branch, down the game's own move.
    page.locator("#analysis-board").focus()
    page.keyboard.press("ArrowLeft")
    expect(tree.locator(".node.current")).to_have_text("Nf6")
    page.keyboard.press("ArrowRight")
    expect(tree.locator(".node.current")).to_have_text("d3")
    page.keyboard.press("ArrowDown")
    expect(tree.locator(".node.current")).to_have_text("Qxf7#")
    page.keyboard.press("ArrowLeft")
    page.locator("#btn-evaluate").click()
    engine_line = page.locator("#engine-line")
    expect(engine_line).to_have_attribute("data-state", "done", timeout=20_000)
    expect(engine_line).to_contain_text("#1")
    expect(engine_line).to_contain_text("Best move Qxf7#")
    screenshot(page, "analysis-board-variation")


def test_the_analysis_on_a_phone_in_spanish(new_page, missed_mate, analysis_worker, screenshot):
    game, alice, _bob = missed_mate
    services.request_analysis(game_id=game.pk, player=alice)
    page = new_page(alice, width=390, height=844, locale="es-ES")
    page.goto(f"/games/{game.pk}/")
    status = page.locator("#analysis-status")
    expect(status).to_contain_text("Analizada por Stockfish", timeout=30_000)
    graph = page.locator("#analysis-graph")
    expect(graph).to_have_attribute("data-ready", "true")
    box = graph.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390
    expect(page.locator("#analysis-heading")).to_have_text("Análisis del ordenador")
    expect(page.locator('#analysis-moves li[data-ply="7"] .analysis-mark')).to_have_text(
        "Error grave"
    )
    screenshot(page, "analysis-phone-es")


def test_no_engine_for_a_game_in_progress(
    new_page, make_player, start_game, play, settings, stockfish
):
    settings.STOCKFISH_PATH = stockfish
    alice, bob = make_player("alice"), make_player("bob")
    game = play(start_game(alice, bob), "e4")
    page = new_page(alice)
    page.goto(f"/games/{game.pk}/")
    expect(page.locator("#analysis-status")).to_have_text(
        "No engine while the game is in progress."
    )
    expect(page.locator("#btn-analysis")).to_be_hidden()
    page.locator("#analysis-board-link").click()
    expect(page.locator("#analysis-board-page")).to_have_attribute("data-ready", "true")
    expect(page.locator("#btn-evaluate")).to_have_count(0)
    expect(page.locator("#engine-off")).to_have_text(
        "No engine on a board opened from a game in progress."
    )
    # Even asked by hand, from the page, the server refuses the game's position.
    answer = page.evaluate(
        """async (fen) => {
            const token = document.cookie.split('; ').find(c => c.startsWith('csrftoken='));
            const response = await fetch('/analysis/evaluation/', {
                method: 'POST',
                headers: {Accept: 'application/json', 'X-CSRFToken': token ? token.slice(10) : ''},
                body: new URLSearchParams({fen}),
            });
            return [response.status, (await response.json()).code];
        }""",
        game.fen,
    )
    assert answer == [403, "engine_not_allowed"]
