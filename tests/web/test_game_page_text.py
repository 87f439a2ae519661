"""The game page's first render and its script write the move list and the result banner
the same way, from the same snapshot: a game begun from a position with Black to move is
numbered as chess numbers it ("12. …" before Black's first move) on load and after live
moves alike, and the banner reads the same before and after a reload.

The server side is the read model (``games.state.move_rows``, ``result_text``) rendered
by the template; the script side is ``static/js/game_text.js``, run here by Node on the
page's own embedded snapshot and on the live events the page would receive.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from django.urls import reverse

from games import services, state
from games.models import Game, Move

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
GAME_TEXT_JS = ROOT / "static" / "js" / "game_text.js"
# 1. e4 played, Black to move at move 12: what chessirc's START may begin a game from.
BLACK_TO_MOVE = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 12"

# What the page's script does with its snapshot and each live event (game.js's
# applyEvent), then what it writes with game_text.js.
HARNESS = """
import { readFileSync } from "node:fs";
import { moveRows, resultText } from "%(module)s";
const input = JSON.parse(readFileSync(0, "utf8"));
const page = input.page;
let game = page.game, ratings = page.ratings;
const moves = [...page.moves];
for (const event of input.events) {
  if (event.move) moves.push(event.move);
  game = event.game;
  if (event.ratings) ratings = event.ratings;
}
process.stdout.write(JSON.stringify({
  rows: moveRows(moves).map((row) => [row.label, row.moves.map((m) => m.san)]),
  banner: resultText(game, ratings, page.strings, page.terminations),
  status: game.move_number,
}));
"""

needs_node = pytest.mark.skipif(
    shutil.which("node") is None, reason="Node is not installed: the script is not run"
)


def script_writes(page: dict[str, Any], events: list[dict[str, Any]] = ()) -> dict[str, Any]:
    """What the page's script writes after loading ``page`` and receiving ``events``."""
    code = HARNESS % {"module": GAME_TEXT_JS.as_uri()}
    done = subprocess.run(
        ["node", "--input-type=module", "-e", code],
        input=json.dumps({"page": page, "events": list(events)}),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return json.loads(done.stdout)


def page_of(client, game: Game) -> tuple[str, dict[str, Any]]:
    response = client.get(reverse("game_detail", args=[game.pk]))
    assert response.status_code == 200
    text = response.content.decode()
    found = re.search(r'<script id="game-data" type="application/json">(.*?)</script>', text, re.S)
    assert found is not None
    return text, json.loads(found.group(1))


def template_rows(text: str) -> list[list[Any]]:
    """The move list as the template wrote it: ``[label, [SAN, …]]`` per row."""
    found = re.search(r'<ol id="move-list"[^>]*>(.*?)</ol>', text, re.S)
    assert found is not None
    rows = []
    for row in re.findall(r'<li class="move-pair">(.*?)</li>', found.group(1), re.S):
        label = re.search(r'<span class="move-no">(.*?)</span>', row).group(1)
        sans = re.findall(r'<button type="button" class="move[^"]*"[^>]*>(.*?)</button>', row)
        rows.append([html.unescape(label), [html.unescape(s) for s in sans]])
    return rows


def template_banner(text: str) -> str:
    found = re.search(r'<div id="result-banner"[^>]*>(.*?)</div>', text, re.S)
    assert found is not None
    return html.unescape(found.group(1)).strip()


def template_status_move(text: str) -> str:
    found = re.search(r'<span class="status-item" id="status-move">(.*?)</span>', text, re.S)
    assert found is not None
    return found.group(1)


def play(game: Game, *sans: str) -> list[dict[str, Any]]:
    """Play ``sans`` in order; returns the event of each move, as the pages receive it."""
    events = []
    for san in sans:
        game.refresh_from_db()
        player = game.white if game.colour_to_move == "white" else game.black
        services.make_move(
            game_id=game.pk, player=player, move_number=game.next_move_number, move=san
        )
        game.refresh_from_db()
        made = Move.objects.get(game=game, number=game.next_move_number - 1)
        events.append(event_frame(game, "move", move=state.move_state(made)))
    return events


def event_frame(game: Game, event: str, **extra: Any) -> dict[str, Any]:
    message = state.event_message(game, event, **extra)
    return json.loads(state.frame_text(message, state.PLAYER))


@pytest.fixture
def black_to_move(alice, bob) -> Game:
    return services.start_gateway_game(white=alice, black=bob, initial_fen=BLACK_TO_MOVE)


EXPECTED_ROWS = [["12. …", ["e5"]], ["13.", ["Nf3", "Nc6"]], ["14.", ["Bc4"]]]


def test_the_read_model_numbers_a_game_begun_with_black_to_move_as_chess_does(
    black_to_move, as_alice
):
    play(black_to_move, "e5", "Nf3", "Nc6", "Bc4")
    text, data = page_of(as_alice, black_to_move)
    rows = state.move_rows(data["moves"])
    assert [[r["label"], [m["san"] for m in r["moves"]]] for r in rows] == EXPECTED_ROWS
    assert template_rows(text) == EXPECTED_ROWS
    # Black is to move at move 14: the status bar says so, as the script does.
    assert data["game"]["move_number"] == 14
    assert template_status_move(text).endswith(" 14")


@needs_node
def test_the_script_numbers_on_load_and_after_live_moves_as_the_template(
    black_to_move, as_alice
):
    _text, before = page_of(as_alice, black_to_move)  # no move yet
    events = play(black_to_move, "e5", "Nf3", "Nc6", "Bc4")
    text, after = page_of(as_alice, black_to_move)
    live = script_writes(before, events)
    loaded = script_writes(after)
    assert template_rows(text) == loaded["rows"] == live["rows"] == EXPECTED_ROWS
    assert live["status"] == loaded["status"] == 14


@needs_node
@pytest.mark.parametrize("ending", ["resigned", "resigned_early"])
def test_the_script_writes_the_result_banner_the_template_wrote(
    black_to_move, as_alice, bob, ending
):
    played = play(black_to_move, "e5", "Nf3") if ending == "resigned" else []
    _text, before = page_of(as_alice, black_to_move)
    game = services.resign(game_id=black_to_move.pk, player=bob)
    events = [event_frame(game, "resigned", by="black")]
    text, after = page_of(as_alice, black_to_move)
    banner = template_banner(text)
    assert banner == state.result_text(after["game"], after["ratings"])
    assert script_writes(after)["banner"] == banner
    assert script_writes(before, events)["banner"] == banner
    if ending == "resigned":
        # A rated ending: the result, who won, how, and both ratings with their change.
        assert played and banner.startswith("1-0 · White wins · ")
        assert "alice" in banner and "bob" in banner
    else:
        # Resigned before both players moved: no rating changes.
        assert banner.endswith("· not rated: the game ended before both players moved")


@needs_node
def test_an_imported_game_s_banner_says_it_was_imported_on_load_and_in_the_script(as_alice, alice):
    from games.services import imports

    pgn = '[White "alice"]\n[Black "someone"]\n[Result "0-1"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n'
    game = imports.import_game(importer=alice, imported=imports.read_import(pgn))

    text, page = page_of(as_alice, game)
    banner = template_banner(text)
    assert banner.endswith("· not rated: an imported game, not played here")
    assert script_writes(page)["banner"] == banner
