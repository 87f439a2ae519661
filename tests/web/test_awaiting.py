"""How many games await a player: on every page (the tab title) and as JSON."""

from __future__ import annotations

from django.urls import reverse

from games import selectors, services, state
from games.models import Game
from games.state import game_row


def test_every_page_says_how_many_games_await_me(
    as_alice, alice, bob, carol, make_player, start_game, play
):
    play(start_game(alice, bob), "e4")  # bob's move
    start_game(alice, carol)  # mine
    play(start_game(make_player("dave"), alice), "d4")  # dave moved: mine
    html = as_alice.get(reverse("players")).content.decode()
    assert 'data-awaiting="2"' in html


def test_a_draw_offer_to_me_awaits_me_and_mine_does_not(as_alice, alice, bob, carol, start_game):
    to_me = start_game(bob, alice)  # bob to move
    services.offer_draw(game_id=to_me.pk, player=bob)
    mine = start_game(alice, carol)  # my move, but I offered: carol must answer
    services.offer_draw(game_id=mine.pk, player=alice)
    assert as_alice.get(reverse("awaiting")).json()["awaiting"] == 1


def test_the_count_needs_a_login(client, db):
    response = client.get(reverse("awaiting"))
    assert response.status_code == 302


def test_the_count_refuses_a_post(as_alice):
    assert as_alice.post(reverse("awaiting")).status_code == 405


def test_anonymous_pages_carry_no_count(client, db):
    assert "data-awaiting" not in client.get(reverse("login")).content.decode()


def test_the_count_is_the_your_move_list_whatever_the_games_hold(
    alice, bob, carol, make_player, start_game, play
):
    dave, erin, fred = (make_player(name) for name in ("dave", "erin", "fred"))
    start_game(alice, bob)  # alice to move
    play(start_game(alice, carol), "e4")  # carol to move
    offered_to_alice = play(start_game(dave, alice), "e4")
    services.offer_draw(game_id=offered_to_alice.pk, player=dave)  # alice owes the answer
    offered_by_alice = start_game(alice, erin)
    services.offer_draw(game_id=offered_by_alice.pk, player=alice)  # erin owes it
    services.resign(game_id=start_game(fred, alice).pk, player=fred)  # over

    for player in (alice, bob, carol, dave, erin, fred):
        rows = [
            game_row(g, player)
            for g in Game.objects.of_player(player, status=Game.Status.ACTIVE).select_related(
                "white", "black"
            )
        ]
        expected = sum(row.waits_for_me for row in rows)
        assert state.awaiting_count(player) == expected
        assert selectors.games_waiting_for(player).count() == expected
    assert [state.awaiting_count(p) for p in (alice, carol, erin, fred)] == [2, 1, 1, 0]
