"""The live lobby: games in progress, filterable, told of every game's changes over its
socket; and the spectator count on a game's page."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from django.urls import reverse

from games import services
from games.models import Game
from legacy_tcp import guests
from tests.web.test_consumers import communicator, cookie_for, open_game, receive_until

URL = reverse("live_games")


def guest_game() -> Game:
    white = guests.player_for(gateway="distribuido", name="gw", trusted=False)
    black = guests.player_for(gateway="distribuido", name="gb", trusted=False)
    return services.start_gateway_game(white=white, black=black)


@pytest.mark.django_db
def test_the_live_games_list_games_in_progress_with_their_last_move(as_carol, game, play):
    play(game, "e4", "e5", "Nf3")
    finished = guest_game()
    services.resign(game_id=finished.pk, player=finished.white)
    page = as_carol.get(URL).content.decode()
    assert f'href="{reverse("game_detail", args=[game.pk])}"' in page
    assert "alice" in page and "bob" in page
    assert "move 2" in page and "last move Nf3" in page and "black to move" in page
    assert "gw@distribuido" not in page  # finished: not in progress


@pytest.mark.django_db
def test_the_live_games_show_each_games_time_control(as_carol, alice, bob, carol):
    timed = services.accept_challenge(
        challenge_id=services.challenge(challenger=alice, challenged=bob, days_per_move=3).pk,
        player=bob,
        colour="black",
    )
    services.start_gateway_game(
        white=guests.player_for(gateway="distribuido", name="gw", trusted=False),
        black=guests.player_for(gateway="distribuido", name="gb", trusted=False),
    )
    page = as_carol.get(URL).content.decode()
    assert timed.time_control_label == "3 days per move"
    assert page.count('<span class="time-control">3 days per move</span>') == 1
    assert page.count('<span class="time-control">no time limit</span>') == 1


@pytest.mark.django_db
def test_the_live_games_are_filtered_by_player_and_kind(as_carol, game):
    other = guest_game()
    by_player = as_carol.get(URL, {"player": "GW@"}).content.decode()
    assert other.public_id in by_player and game.public_id not in by_player
    rated = as_carol.get(URL, {"kind": "rated"}).content.decode()
    assert game.public_id in rated and other.public_id not in rated
    unrated = as_carol.get(URL, {"kind": "unrated"}).content.decode()
    assert other.public_id in unrated and game.public_id not in unrated
    assert "unrated" in unrated
    nothing = as_carol.get(URL, {"player": "nobody"}).content.decode()
    assert "No game in progress matches." in nothing


@pytest.mark.django_db
@pytest.mark.parametrize(
    "query", [{"kind": "bogus"}, {"player": "x" * 5000}, {"player": "<script>"}, {"kind": ""}]
)
def test_a_filter_no_honest_page_sends_is_harmless(as_carol, game, query):
    response = as_carol.get(URL, query)
    assert response.status_code == 200
    assert b"<script>\"" not in response.content and b"value=\"<script>" not in response.content


@pytest.mark.django_db
def test_the_partial_is_only_the_list(as_carol, game):
    partial = as_carol.get(URL, {"partial": "1"}).content.decode()
    assert game.public_id in partial and "<html" not in partial


@pytest.mark.django_db
def test_the_live_games_need_a_login(client):
    response = client.get(URL)
    assert response.status_code == 302 and "/login/" in response["Location"]


@pytest.mark.django_db
def test_the_menu_leads_to_the_live_games(as_carol):
    assert f'href="{URL}"' in as_carol.get(reverse("dashboard")).content.decode()


@pytest.mark.django_db
def test_a_query_count_that_does_not_grow_with_the_games(as_carol, django_assert_max_num_queries):
    for index in range(6):
        white = guests.player_for(gateway="distribuido", name=f"w{index}", trusted=False)
        black = guests.player_for(gateway="distribuido", name=f"b{index}", trusted=False)
        services.start_gateway_game(white=white, black=black)
    with django_assert_max_num_queries(6):
        as_carol.get(URL, {"partial": "1"})


@pytest.mark.django_db(transaction=True)
async def test_the_lobby_socket_hears_of_every_games_changes(alice, bob, carol, game):
    lobby = communicator("/ws/lobby/", await sync_to_async(cookie_for)(carol))
    connected, _ = await lobby.connect()
    assert connected
    assert (await lobby.receive_json_from(timeout=5))["type"] == "hello"
    await sync_to_async(services.make_move)(
        game_id=game.pk, player=alice, move_number=1, move="e4"
    )
    frame = await receive_until(lobby, "event")
    assert frame["game"]["id"] == game.pk
    # Not a player's socket: no challenges of anyone reach it.
    await sync_to_async(services.challenge)(challenger=alice, challenged=carol)
    assert await lobby.receive_nothing(timeout=0.3)
    await lobby.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_the_lobby_socket_refuses_the_logged_out():
    lobby = communicator("/ws/lobby/", None)
    connected, _ = await lobby.connect()
    assert connected
    assert (await lobby.receive_output(timeout=5))["code"] == 4401


@pytest.mark.django_db(transaction=True)
async def test_every_page_of_a_game_hears_how_many_watch_it(alice, carol, make_player, game):
    dave = await sync_to_async(make_player)("dave")
    player, _ = await open_game(game.pk, await sync_to_async(cookie_for)(alice))
    first, _ = await open_game(game.pk, await sync_to_async(cookie_for)(carol))
    assert await receive_until(player, "watchers") == {"type": "watchers", "count": 1}
    assert await receive_until(first, "watchers") == {"type": "watchers", "count": 1}
    second, _ = await open_game(game.pk, await sync_to_async(cookie_for)(dave))
    assert await receive_until(player, "watchers") == {"type": "watchers", "count": 2}
    await second.disconnect()
    assert await receive_until(player, "watchers") == {"type": "watchers", "count": 1}
    await first.disconnect()
    assert await receive_until(player, "watchers") == {"type": "watchers", "count": 0}
    await player.disconnect()


@pytest.mark.django_db
def test_the_game_page_shows_its_spectator_count(as_alice, game):
    from games import watchers

    page = as_alice.get(reverse("game_detail", args=[game.pk])).content.decode()
    assert 'id="watchers"' in page and "hidden>0 spectators" in page
    watchers.joined(game.pk)
    watchers.joined(game.pk)
    page = as_alice.get(reverse("game_detail", args=[game.pk])).content.decode()
    assert ">2 spectators</span>" in page
