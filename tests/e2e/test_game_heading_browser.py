"""How a game is named and dated in the browser: its heading and tab title name its
players (the number beside them), chat lines carry their moment in the reader's own
time zone, and its PGN names both ratings and the time control."""

from __future__ import annotations

import datetime as dt
import re
from zoneinfo import ZoneInfo

import chess.pgn
import pytest
from playwright.sync_api import Locator, expect

from games import chat, services
from tests.e2e.board import open_game

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize(
    ("locale", "number_title", "width"),
    [("en-US", "game number", 1280), ("es-ES", "número de partida", 390)],
)
def test_the_game_is_named_by_its_players_in_the_heading_and_the_tab(
    new_page, game, alice, locale, number_title, width
):
    page = open_game(new_page(alice, locale=locale, width=width, height=844), game)
    heading = page.locator("#game-heading")
    expect(heading.locator(".game-players")).to_contain_text(
        re.compile(r"alice\s.*–\s.*bob", re.DOTALL)
    )
    # The number is a detail after the names, not the heading's first word.
    expect(heading).not_to_have_text(re.compile(r"^\s*P\d"))
    expect(heading.locator(".game-number")).to_have_text(game.public_id)
    expect(heading.locator(".game-number")).to_have_attribute("title", number_title)
    # After the count of games awaiting the reader, "(1) ", when there are some.
    title = rf"^(\(\d+\) )?alice – bob · {game.public_id} · Ajedrez$"
    expect(page).to_have_title(re.compile(title))
    assert page.evaluate("document.documentElement.scrollWidth") <= width


@pytest.mark.parametrize("locale", ["en-US", "es-ES"])
def test_the_games_a_leaving_player_loses_are_named_by_their_players(
    new_page, game, alice, locale
):
    page = new_page(alice, locale=locale)
    page.goto("/accounts/unsubscribe/")
    expect(page.locator("main li").filter(has_text=game.public_id)).to_have_text(
        f"alice – bob {game.public_id}"
    )


def local_hour_and_minute(time: Locator, zone: str) -> tuple[int, int]:
    """The moment of a chat line's ``<time datetime>``, as a clock in ``zone`` shows it."""
    moment = dt.datetime.fromisoformat(time.get_attribute("datetime") or "")
    local = moment.astimezone(ZoneInfo(zone))
    return local.hour, local.minute


def shown_hour_and_minute(time: Locator) -> tuple[int, int]:
    """The time of day the line shows: ``17:05`` or ``5:05 PM``."""
    found = re.fullmatch(r"(\d{1,2}):(\d{2})(?:\s*([AP])\.?\s?M\.?)?", time.inner_text().strip())
    assert found, time.inner_text()
    hour, minute, half = int(found[1]), int(found[2]), found[3]
    if half:
        hour = hour % 12 + (12 if half == "P" else 0)
    return hour, minute


@pytest.mark.parametrize(
    ("locale", "zone"), [("en-US", "America/Bogota"), ("es-ES", "Asia/Kolkata")]
)
def test_chat_lines_show_their_time_in_the_readers_time_zone(
    new_page, game, alice, bob, locale, zone
):
    chat.post_message(game_id=game.pk, author=alice, text="good luck")
    black = open_game(new_page(bob, locale=locale, timezone_id=zone), game)
    white = open_game(new_page(alice), game)
    white.locator("#chat-text").fill("you too?")
    white.locator(".chat-form button[type=submit]").click()
    lines = black.locator('.chat-lines[data-room="players"] li')
    expect(lines).to_have_count(2)
    for line in (lines.first, lines.last):  # written by the server, then arrived live
        time = line.locator("time.chat-time")
        expect(time).to_have_attribute("datetime", re.compile(r"^\d{4}-\d\d-\d\dT"))
        # Kolkata is UTC+5:30: only a localised time gets the minutes right too.
        assert shown_hour_and_minute(time) == local_hour_and_minute(time, zone)


def test_the_pgn_names_both_ratings_and_the_correspondence_time_control(
    new_page, alice, bob, tmp_path
):
    made = services.challenge(challenger=bob, challenged=alice, days_per_move=3)
    game = services.accept_challenge(challenge_id=made.pk, player=alice, colour="white")
    page = open_game(new_page(alice), game)
    with page.expect_download() as info:
        page.get_by_role("link", name="Download PGN").click()
    path = tmp_path / "game.pgn"
    info.value.save_as(path)
    with path.open(encoding="utf-8") as pgn:
        headers = chess.pgn.read_headers(pgn)
    assert headers is not None
    assert (headers["WhiteElo"], headers["BlackElo"]) == ("1500", "1500")
    assert headers["TimeControl"] == "1/259200"
