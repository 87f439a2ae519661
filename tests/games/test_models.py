"""The integrity rules held by the database itself, whatever writes the rows."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction

from games.models import Challenge, Game, Move


def insert_refused(create) -> None:
    with pytest.raises(IntegrityError), transaction.atomic():
        create()


def test_two_moves_with_the_same_number_are_refused(game):
    Move.objects.create(game=game, number=1, uci="e2e4", san="e4", fen_after="x")
    insert_refused(
        lambda: Move.objects.create(game=game, number=1, uci="d2d4", san="d4", fen_after="y")
    )
    assert Move.objects.filter(game=game).count() == 1


def test_the_same_number_in_another_game_is_accepted(alice, bob, carol, start_game):
    first, second = start_game(alice, bob), start_game(alice, carol)
    Move.objects.create(game=first, number=1, uci="e2e4", san="e4", fen_after="x")
    Move.objects.create(game=second, number=1, uci="e2e4", san="e4", fen_after="x")
    assert Move.objects.count() == 2


def test_the_database_leaves_the_games_per_pair_to_the_services(alice, bob):
    # "At most N games in progress per pair" is no unique index: the services count it
    # under a lock on both players (tests/games/test_games_per_pair.py).
    Game.objects.create(white=alice, black=bob)
    Game.objects.create(white=bob, black=alice)
    assert Game.objects.filter(status="active").count() == 2


def test_game_against_yourself_is_refused(alice):
    insert_refused(lambda: Game.objects.create(white=alice, black=alice))


def test_second_pending_challenge_between_the_same_players_is_refused(alice, bob):
    Challenge.objects.create(challenger=alice, challenged=bob)
    insert_refused(lambda: Challenge.objects.create(challenger=alice, challenged=bob))
    assert Challenge.objects.count() == 1


def test_pending_challenge_in_the_opposite_direction_is_left_to_the_services(alice, bob):
    # Whether a challenge back may wait beside theirs depends on the games the pair may
    # still start (the site rules): the service decides, under a lock on both players.
    Challenge.objects.create(challenger=alice, challenged=bob)
    Challenge.objects.create(challenger=bob, challenged=alice)
    assert Challenge.objects.filter(status="pending").count() == 2


def test_pending_challenge_beside_answered_ones_is_accepted(alice, bob):
    Challenge.objects.create(challenger=alice, challenged=bob, status="declined")
    Challenge.objects.create(challenger=bob, challenged=alice, status="withdrawn")
    Challenge.objects.create(challenger=alice, challenged=bob)
    assert Challenge.objects.filter(status="pending").count() == 1


def test_challenge_to_yourself_is_refused(alice):
    insert_refused(lambda: Challenge.objects.create(challenger=alice, challenged=alice))


def test_public_id_is_p_and_seven_digits(game):
    assert game.public_id == f"P{game.pk:07d}"
    assert Game.pk_from_public_id(game.public_id) == game.pk


@pytest.mark.parametrize(
    ("text", "pk"),
    [("P0000042", 42), ("p42", 42), (" P0000042 ", 42), ("P12345678", 12345678)],
)
def test_public_id_is_read_back(text, pk):
    assert Game.pk_from_public_id(text) == pk


@pytest.mark.parametrize("text", ["", "P", "42", "Q0000042", "P00-42", "Pabc"])
def test_text_that_is_no_public_id_gives_none(text):
    assert Game.pk_from_public_id(text) is None



def test_each_player_s_opponent_is_the_other_player(alice, bob, carol, game):
    assert (game.opponent_of(alice.pk), game.opponent_of(bob.pk)) == (bob, alice)
    # Someone who does not play has no opponent here: asking is a bug of the caller.
    with pytest.raises(ValueError, match="does not play"):
        game.opponent_of(carol.pk)
