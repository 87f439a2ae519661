"""A player's archive: finished games, paged, filtered, searched, downloaded as PGN."""

from __future__ import annotations

import datetime as dt
import io
import re

import chess.pgn
import pytest
from django.urls import reverse

from games import services
from games.models import Game

URL = "player_archive"


def finish(game: Game, play, *moves: str, loser=None, draw: bool = False) -> Game:
    """Play ``moves`` and end the game: a draw by agreement, or ``loser`` resigns."""
    play(game, *moves)
    if draw:
        services.offer_draw(game_id=game.pk, player=game.white)
        services.answer_draw(game_id=game.pk, player=game.black, accept=True)
    else:
        services.resign(game_id=game.pk, player=loser or game.black)
    game.refresh_from_db()
    return game


def shown(response) -> list[int]:
    return [int(pk) for pk in re.findall(r'data-game-id="(\d+)"', response.content.decode())]


@pytest.fixture
def games(alice, bob, carol, start_game, play):
    """alice's finished games, oldest first: won as white (French) against bob, lost as
    black (Sicilian) to carol, drew as white (Italian) with carol; one in progress."""
    won = finish(start_game(alice, bob), play, "e4", "e6", "d4", "d5")
    lost = finish(start_game(carol, alice), play, "e4", "c5", loser=alice)
    drawn = finish(start_game(alice, carol), play, "e4", "e5", "Nf3", "Nc6", "Bc4", draw=True)
    start_game(alice, bob)  # in progress: never in the archive
    # Spread the endings over three days.
    for days, game in ((3, won), (2, lost), (1, drawn)):
        Game.objects.filter(pk=game.pk).update(
            finished_at=dt.datetime(2026, 5, 10, 12, tzinfo=dt.UTC) - dt.timedelta(days=days)
        )
    return {"won": won, "lost": lost, "drawn": drawn}


def test_any_logged_in_player_sees_a_players_finished_games_latest_first(as_bob, games):
    response = as_bob.get(reverse(URL, args=["alice"]))
    assert response.status_code == 200
    assert shown(response) == [games["drawn"].pk, games["lost"].pk, games["won"].pk]
    assert "C00 French Defense" in response.content.decode()


def test_the_archive_needs_a_login(client, games):
    assert client.get(reverse(URL, args=["alice"]))["Location"].startswith(reverse("login"))


def test_the_archive_of_nobody_is_not_found(as_bob, db):
    assert as_bob.get(reverse(URL, args=["nobody"])).status_code == 404


def test_the_profile_links_to_the_archive(as_bob, alice):
    html = as_bob.get(reverse("player_detail", args=["alice"])).content.decode()
    assert f'href="{reverse(URL, args=["alice"])}"' in html


@pytest.mark.parametrize(
    ("filters", "expected"),
    [
        ({"result": "won"}, ["won"]),
        ({"result": "lost"}, ["lost"]),
        ({"result": "drawn"}, ["drawn"]),
        ({"colour": "black"}, ["lost"]),
        ({"colour": "white", "result": "drawn"}, ["drawn"]),
        ({"colour": "black", "result": "won"}, []),
        ({"opponent": "carol"}, ["drawn", "lost"]),
        ({"opponent": "CAROL", "colour": "white"}, ["drawn"]),
        ({"opponent": "nobody"}, []),
        ({"since": "2026-05-08"}, ["drawn", "lost"]),
        ({"until": "2026-05-07"}, ["won"]),
        ({"since": "2026-05-08", "until": "2026-05-08"}, ["lost"]),
        ({"opening": "C00"}, ["won"]),
        ({"opening": "b"}, ["lost"]),
        ({"opening": "C"}, ["drawn", "won"]),
        ({"opening": "sicilian"}, ["lost"]),
        ({"q": "bob"}, ["won"]),
        ({"q": "italian"}, ["drawn"]),
        ({"q": "{lost}"}, ["lost"]),  # the game's public id
    ],
)
def test_filters_narrow_the_archive(as_bob, games, filters, expected):
    filters = {k: v.format(lost=games["lost"].public_id) for k, v in filters.items()}
    response = as_bob.get(reverse(URL, args=["alice"]), filters)
    assert response.status_code == 200
    assert shown(response) == [games[name].pk for name in expected]


@pytest.mark.parametrize(
    "filters",
    [
        {"result": "victory"},
        {"colour": "green"},
        {"since": "yesterday"},
        {"since": "2026-05-09", "until": "2026-05-01"},
        {"q": "x" * 101},
        {"opening": "🙂" * 101},
        {"opponent": "a" * 200},
        {"until": "9999-12-31"},
        {"since": "0001-01-01"},
        {"since": "2026-02-30"},
        {"since": "20260-01-01"},
    ],
)
def test_bad_filters_are_refused_with_the_reason_and_show_nothing(as_bob, games, filters):
    response = as_bob.get(reverse(URL, args=["alice"]), filters)
    assert response.status_code == 400
    assert shown(response) == []
    assert 'class="small text-danger"' in response.content.decode()


def test_the_date_pickers_offer_only_the_dates_the_server_accepts(as_bob, games):
    page = as_bob.get(reverse(URL, args=["alice"])).content.decode()
    for name in ("since", "until"):
        assert re.search(
            rf'<input type="date" name="{name}"[^>]* min="1900-01-01" max="9998-12-31"', page
        ), name


def test_the_archive_is_paged_25_at_a_time_and_the_pages_keep_the_filters(
    as_bob, alice, make_player, start_game, play
):
    for n in range(27):
        finish(start_game(alice, make_player(f"r{n:02d}")), play, "e4", "e5")
    first = as_bob.get(reverse(URL, args=["alice"]), {"result": "won"})
    assert len(shown(first)) == 25
    assert "result=won&amp;page=2" in first.content.decode()
    second = as_bob.get(reverse(URL, args=["alice"]), {"result": "won", "page": 2})
    assert len(shown(second)) == 2
    assert as_bob.get(reverse(URL, args=["alice"]), {"page": "999999"}).status_code == 200
    assert as_bob.get(reverse(URL, args=["alice"]), {"page": "x"}).status_code == 200


def test_the_page_reads_in_a_fixed_number_of_queries(
    as_bob, alice, make_player, start_game, play, django_assert_max_num_queries
):
    def count() -> int:
        with django_assert_max_num_queries(20) as counted:
            as_bob.get(reverse(URL, args=["alice"]), {"opponent": "r00", "q": "r"})
            as_bob.get(reverse(URL, args=["alice"]))
        return len(counted.captured_queries)

    finish(start_game(alice, make_player("r00")), play, "e4", "e5")
    few = count()
    for n in range(1, 30):
        finish(start_game(alice, make_player(f"r{n:02d}")), play, "d4", "d5")
    assert count() == few


def test_download_gives_every_game_the_filters_match_as_one_pgn(as_bob, games):
    response = as_bob.get(reverse("player_archive_pgn", args=["alice"]), {"opponent": "carol"})
    assert response.status_code == 200
    assert response["Content-Disposition"] == 'attachment; filename="alice-games.pgn"'
    text = b"".join(response.streaming_content).decode()
    read = io.StringIO(text)
    found = []
    while (game := chess.pgn.read_game(read)) is not None:
        found.append(game)
    assert [g.headers["Result"] for g in found] == ["1/2-1/2", "1-0"]  # alice lost as black
    assert found[0].headers["ECO"].startswith("C5") and found[1].headers["ECO"] == "B20"
    assert [m.uci() for m in found[1].mainline_moves()] == ["e2e4", "c7c5"]


@pytest.mark.parametrize(
    "filters",
    [{"q": "%_\\"}, {"q": "P99999999999999999999999"}, {"opening": "E99"}, {"q": "\x00"},
     {"opponent": "\x00"}],
)
def test_odd_searches_match_nothing_and_fail_nothing(as_bob, games, filters):
    response = as_bob.get(reverse(URL, args=["alice"]), filters)
    assert response.status_code in (200, 400)
    assert shown(response) == []
    download = as_bob.get(reverse("player_archive_pgn", args=["alice"]), filters)
    assert download.status_code in (200, 400)


def test_download_with_bad_filters_is_refused(as_bob, games):
    response = as_bob.get(reverse("player_archive_pgn", args=["alice"]), {"colour": "green"})
    assert response.status_code == 400
    assert "colour" in response.content.decode()
