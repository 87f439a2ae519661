"""The dashboard's windows on a player's games, and each list's own pages ("more")."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from games import selectors, services
from games.lobby import GAMES_PER_PAGE, game_window
from games.models import Game
from games.state import game_row
from tests.web.test_lobby import section, text

User = get_user_model()


def games_against_new_players(player, start_game, count: int, *, white: bool) -> list[Game]:
    """``count`` games of ``player`` with new opponents; ``player`` is white (to move) or
    black (waiting), with no move played."""
    games = []
    for _ in range(count):
        opponent = User.objects.create_user(username=f"opp{User.objects.count()}")
        games.append(start_game(player, opponent) if white else start_game(opponent, player))
    return games


@pytest.fixture
def small_window(monkeypatch):
    monkeypatch.setattr("games.lobby.DASHBOARD_GAMES_PER_LIST", 3)
    monkeypatch.setattr("games.lobby.RECENT_FINISHED_GAMES", 2)


def test_the_dashboard_shows_a_window_of_each_list_with_the_count_and_a_link_to_the_rest(
    as_alice, alice, start_game, small_window
):
    mine = games_against_new_players(alice, start_game, 5, white=True)
    games_against_new_players(alice, start_game, 4, white=False)

    html = text(as_alice.get(reverse("dashboard")))

    your_move = section(html, "my-turn-games")
    assert your_move.count("data-game-id=") == 3
    assert '<span class="badge rounded-pill text-bg-success">5</span>' in your_move
    assert "2 more games waiting for your move" in your_move
    assert f'href="{reverse("game_list", args=["your-move"])}"' in your_move
    # The longest waiting first: the first three started.
    for game in mine[:3]:
        assert f'data-game-id="{game.pk}"' in your_move
    waiting = section(html, "their-turn-games")
    assert waiting.count("data-game-id=") == 3
    assert "1 more game waiting for your opponent" in waiting


def test_a_list_that_fits_its_window_has_no_link_and_no_count_query(
    alice, start_game, django_assert_num_queries
):
    games_against_new_players(alice, start_game, 2, white=True)

    with django_assert_num_queries(1):
        window = game_window(selectors.games_waiting_for(alice), alice, 3)

    assert (len(window.rows), window.total, window.hidden) == (2, 2, 0)


@pytest.mark.parametrize("partial", [False, True])
def test_the_dashboards_queries_and_rows_do_not_grow_with_the_players_games(
    as_alice, alice, start_game, small_window, django_assert_num_queries, partial
):
    params = {"partial": "1"} if partial else {}
    games_against_new_players(alice, start_game, 4, white=True)
    games_against_new_players(alice, start_game, 4, white=False)
    as_alice.get(reverse("dashboard"), params)  # session and caches warm
    with CaptureQueriesContext(connection) as few:
        few_html = text(as_alice.get(reverse("dashboard"), params))

    games_against_new_players(alice, start_game, 20, white=True)
    games_against_new_players(alice, start_game, 20, white=False)
    with django_assert_num_queries(len(few.captured_queries)):
        many_html = text(as_alice.get(reverse("dashboard"), params))

    assert few_html.count("data-game-id=") == many_html.count("data-game-id=") == 6


def test_the_your_move_list_is_paged_in_its_order(as_alice, alice, start_game):
    games = games_against_new_players(alice, start_game, GAMES_PER_PAGE + 2, white=True)
    url = reverse("game_list", args=["your-move"])

    first = text(as_alice.get(url))
    second = text(as_alice.get(url, {"page": "2"}))

    assert first.count("data-game-id=") == GAMES_PER_PAGE
    assert second.count("data-game-id=") == 2
    assert f'data-game-id="{games[0].pk}"' in first
    assert f'data-game-id="{games[-1].pk}"' in second
    assert "Page 1 of 2" in first and 'href="?page=2"' in first


def test_each_list_holds_only_its_own_games(as_alice, alice, bob, carol, dave, start_game):
    to_move = start_game(alice, bob)
    waiting = start_game(carol, alice)
    finished = start_game(alice, dave)
    services.resign(game_id=finished.pk, player=dave)
    others = start_game(bob, carol)

    pages = {
        name: text(as_alice.get(reverse("game_list", args=[name])))
        for name in ("your-move", "their-move", "finished")
    }

    assert [g.pk for g in (to_move, waiting, finished)] == [
        int(pages[name].split('data-game-id="')[1].split('"')[0])
        for name in ("your-move", "their-move", "finished")
    ]
    for html in pages.values():
        assert html.count("data-game-id=") == 1
        assert f'data-game-id="{others.pk}"' not in html


@pytest.mark.parametrize("page", ["abc", "-1", "0", "99999999999999999999", "2.5", "", "١"])
def test_a_page_number_that_is_no_page_shows_a_page_of_the_list(
    as_alice, alice, start_game, page
):
    games_against_new_players(alice, start_game, 2, white=True)

    response = as_alice.get(reverse("game_list", args=["your-move"]), {"page": page})

    assert response.status_code == 200
    assert text(response).count("data-game-id=") == 2


def test_an_unknown_list_is_not_found(as_alice):
    assert as_alice.get("/my-games/everything/").status_code == 404


def test_the_lists_need_a_login_and_only_read(client, as_alice, db):
    url = reverse("game_list", args=["your-move"])
    assert client.get(url).status_code == 302
    assert as_alice.post(url).status_code == 405


@pytest.fixture
def dave(make_player):
    return make_player("dave")


def test_the_lists_split_games_in_progress_as_each_row_says_whose_step_it_is(
    alice, bob, carol, dave, start_game, play
):
    opponents = iter(User.objects.create_user(username=f"o{n}") for n in range(20))
    cases = []
    for alice_white in (True, False):
        for plies in (0, 1):
            for offer in (None, "alice", "opponent"):
                opponent = next(opponents)
                game = start_game(alice, opponent) if alice_white else start_game(opponent, alice)
                if plies:
                    play(game, "e4")
                game.refresh_from_db()
                offerer = {"alice": alice, "opponent": opponent}.get(offer or "")
                if offerer is not None:
                    services.offer_draw(game_id=game.pk, player=offerer)
                cases.append(game.pk)
    assert len(cases) == 12

    waiting_for_alice = set(selectors.games_waiting_for(alice).values_list("pk", flat=True))
    waiting_for_them = set(
        selectors.games_waiting_for_opponent(alice).values_list("pk", flat=True)
    )

    assert waiting_for_alice.isdisjoint(waiting_for_them)
    assert waiting_for_alice | waiting_for_them == set(cases)
    for game in Game.objects.filter(pk__in=cases).select_related("white", "black"):
        assert (game.pk in waiting_for_alice) is game_row(game, alice).waits_for_me, game


def test_the_link_to_the_rest_of_a_list_speaks_spanish(
    alice, start_game, small_window, settings
):
    from django.test import Client

    settings.LANGUAGE_CODE = "es"
    games_against_new_players(alice, start_game, 5, white=True)
    client = Client(HTTP_ACCEPT_LANGUAGE="es")
    client.force_login(alice)

    html = text(client.get(reverse("dashboard")))
    listed = text(client.get(reverse("game_list", args=["finished"])))

    assert "2 partidas más esperan tu jugada" in section(html, "my-turn-games")
    assert "Partidas terminadas" in listed


def test_each_finished_game_says_how_it_went_for_me_and_an_aborted_one_is_no_draw(
    as_alice, alice, bob, carol, dave, start_game
):
    won = start_game(alice, bob)
    services.resign(game_id=won.pk, player=bob)
    lost = start_game(carol, alice)
    services.resign(game_id=lost.pk, player=alice)
    drawn = start_game(alice, dave)
    services.offer_draw(game_id=drawn.pk, player=alice)
    services.answer_draw(game_id=drawn.pk, player=dave, accept=True)
    # Left by its first player before a move: aborted, with no result.
    aborted = start_game(alice, carol)
    services.abandon_games(player=alice)
    aborted.refresh_from_db()
    assert (aborted.result, aborted.termination) == ("*", "aborted")

    html = text(as_alice.get(reverse("game_list", args=["finished"])))

    def badge(game):
        row = html.split(f'data-game-id="{game.pk}"')[1].split("</a>")[0]
        return row.split('class="badge')[-1].split(">", 1)[1].split("</span>")[0].strip()

    assert badge(won) == "won 1-0"
    assert badge(lost) == "lost 1-0"
    assert badge(drawn) == "draw ½–½"
    assert badge(aborted) == "aborted"


# -- a read never writes, not even to end a game whose time ran out ------------------------


WRITE = re.compile(r"^\s*(INSERT|UPDATE|DELETE|REPLACE)\b.*?\b(games_\w+|ranking_\w+)", re.I | re.S)
# The one write a read may make: opening a game marks the reader's own notifications of
# it read.
MARK_READ = re.compile(r'^\s*UPDATE "games_notification" SET "read_at"', re.I)


def test_no_page_writes_a_game_whose_time_ran_out_and_each_shows_it_over(
    as_alice, alice, bob, start_game
):
    import datetime as dt

    import time_machine
    from django.utils import timezone

    made = services.challenge(challenger=bob, challenged=alice, days_per_move=1)
    game = services.accept_challenge(challenge_id=made.pk, player=alice, colour="white")
    for text_move, player in (("e4", alice), ("e5", bob)):
        game.refresh_from_db()
        services.make_move(
            game_id=game.pk, player=player, move_number=game.next_move_number, move=text_move
        )
    game.refresh_from_db()
    stored = (game.status, game.version, game.deadline, game.updated_at)
    pages = [
        reverse("dashboard"),
        reverse("dashboard") + "?partial=1",
        *(reverse("game_list", args=[name]) for name in ("your-move", "their-move", "finished")),
        reverse("game_detail", args=[game.pk]),
        reverse("game_state", args=[game.pk]),
        reverse("game_pgn", args=[game.pk]),
        reverse("player_detail", args=["alice"]),
        reverse("live_games"),
        reverse("awaiting"),
    ]
    with time_machine.travel(game.deadline + dt.timedelta(hours=1), tick=False):
        with CaptureQueriesContext(connection) as queries:
            responses = {url: as_alice.get(url) for url in pages}
        assert timezone.now() > game.deadline
    assert {url: r.status_code for url, r in responses.items()} == dict.fromkeys(pages, 200)
    writes = [
        q["sql"]
        for q in queries.captured_queries
        if WRITE.match(q["sql"]) and not MARK_READ.match(q["sql"])
    ]
    assert writes == []
    game.refresh_from_db()
    assert (game.status, game.version, game.deadline, game.updated_at) == stored
    # Each shows it over: lost on time by alice (white was to move), in no list in progress.
    state_json = responses[reverse("game_state", args=[game.pk])].json()
    assert (state_json["game"]["status"], state_json["game"]["result"]) == ("finished", "0-1")
    assert state_json["game"]["termination"] == "timeout"
    assert responses[reverse("awaiting")].json()["awaiting"] == 0
    finished = text(responses[reverse("game_list", args=["finished"])])
    assert f'data-game-id="{game.pk}"' in finished
    for name in ("your-move", "their-move"):
        assert f'data-game-id="{game.pk}"' not in text(
            responses[reverse("game_list", args=[name])]
        )
    assert f"game-{game.pk}" not in text(responses[reverse("live_games")])
    assert "[Result \"0-1\"]" in responses[reverse("game_pgn", args=[game.pk])].content.decode()
