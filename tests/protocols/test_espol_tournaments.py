"""Tournament games over ESPOL: ordinary games there too. PPEN lists them with the rest
(two against one opponent in a double round robin), and JGDA plays them."""

from __future__ import annotations

import pytest

from games.models import Game
from legacy_tcp.espol.client import jgda
from tests.games.tournaments import join_all, make_event

pytestmark = pytest.mark.django_db(transaction=True)


def test_ppen_lists_every_tournament_game_with_the_rest(login, alice, bob, carol, start_game):
    ordinary = start_game(alice, bob)
    event = make_event(max_players=3, cycles=2)
    join_all(event, [alice, bob, carol])
    mine = Game.objects.filter(tournament=event).of_player(alice)
    assert mine.count() == 4
    reply = login(alice).send("PPEN:00000000000")
    assert reply.code == 103
    listed = {record.split(":")[0] for record in reply.text.split(",")[:-1]}
    assert listed == {ordinary.public_id, *(g.public_id for g in mine)}
    against_bob = [r for r in reply.text.split(",")[:-1] if r.split(":")[1] == "bob"]
    assert len(against_bob) == 3  # the ordinary game and both tournament games


def test_a_tournament_game_is_played_over_espol(login, alice, bob, carol):
    event = make_event(max_players=3)
    join_all(event, [alice, bob, carol])
    game = Game.objects.filter(tournament=event).of_player(alice).order_by("pk").first()
    client = login(game.white)
    reply = client.send(jgda(game.public_id, 1, "e2e4"))
    assert reply.code == 103
    game.refresh_from_db()
    assert (game.next_move_number, game.last_move_san) == (2, "e4")
