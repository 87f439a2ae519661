"""Conditional moves against a move in real threads: the game row orders them."""

from __future__ import annotations

from functools import partial

import pytest

from games import errors, services
from games.models import ConditionalLines, Game, Move
from tests.games.test_concurrency import ROUNDS, race
from tests.games.test_conditional import set_lines

pytestmark = pytest.mark.django_db(transaction=True)


def after_e4_with_a_line(game: Game) -> Game:
    """``game`` after 1.e4, white holding the line 1...e5 2.Nf3."""
    services.make_move(game_id=game.pk, player=game.white, move_number=1, move="e4")
    set_lines(game, game.white, [["e5", "Nf3"]])
    return game


def test_the_opponents_move_racing_the_owner_replacing_lines(alice, bob, start_game):
    """Either the new lines are stored first and their reply is played, or the move
    comes first, the old lines answer it and the replacement, written for a position
    the game has left, is refused as a stale move. Never a mix: the old reply after
    the new lines were accepted."""
    orders = set()
    for _ in range(ROUNDS):
        game = after_e4_with_a_line(start_game(alice, bob))
        outcomes = race(
            partial(services.make_move, game_id=game.pk, player=bob, move_number=2, move="e5"),
            lambda game=game: services.set_conditional_lines(
                game_id=game.pk, player=alice, move_number=2, lines=[["e5", "Nc3"]]
            ),
        )
        assert isinstance(outcomes[0], Game), outcomes
        reply = Move.objects.get(game=game, number=3).san
        if isinstance(outcomes[1], errors.WrongMoveNumber):
            orders.add("move first")
            assert reply == "Nf3"
        else:
            orders.add("lines first")
            assert outcomes[1] == [["e7e5", "b1c3"]], outcomes
            assert reply == "Nc3"
        assert Move.objects.filter(game=game).count() == 3
        assert not ConditionalLines.objects.filter(game=game).exists()
        services.resign(game_id=game.pk, player=bob)
    # Which order won is up to the scheduler; each is checked when it happens.
    assert orders


def test_the_opponents_move_racing_the_owner_clearing_lines(alice, bob, start_game):
    for _ in range(ROUNDS):
        game = after_e4_with_a_line(start_game(alice, bob))
        outcomes = race(
            partial(services.make_move, game_id=game.pk, player=bob, move_number=2, move="e5"),
            lambda game=game: services.clear_conditional_lines(game_id=game.pk, player=alice),
        )
        assert isinstance(outcomes[0], Game) and outcomes[1] is None, outcomes
        played = Move.objects.filter(game=game).count()
        assert played in (2, 3)  # cleared first: no reply; moved first: the reply
        assert not ConditionalLines.objects.filter(game=game).exists()
        services.resign(game_id=game.pk, player=bob)
