"""The read model's view of a game for the TCP gateways (games.state.gateways): the same
fields as every page, built from a game or from a live event without reading again."""

from __future__ import annotations

import datetime as dt

import pytest
import time_machine

from games import services, state
from games.models import Move
from games.state import gateways

pytestmark = pytest.mark.django_db

BLACK_TO_MOVE = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 12"


def move_event(game, number: int) -> dict:
    """The live event of half-move ``number``, as a gateway receives it."""
    made = Move.objects.get(game=game, number=number)
    return state.event_message(game, "move", move=state.move_state(made))


def test_the_view_has_the_fields_of_the_game_state_every_page_gets(game, play):
    game = play(game, "e4", "e5")
    view = gateways.read(game.pk)
    shown = state.game_state(game)
    assert (view.id, view.public_id, view.version, view.fen, view.status, view.turn) == (
        shown["id"], shown["public_id"], shown["version"], shown["fen"], shown["status"],
        shown["turn"],
    )
    assert (view.plies, view.last_sans, view.result) == (2, ("e4", "e5"), "*")
    assert gateways.read(game.pk, with_moves=False).last_sans == ()


def test_a_view_from_a_live_event_is_the_view_read_after_the_move_without_a_query(
    game, play, django_assert_num_queries
):
    game = play(game, "e4", "e5")
    event = move_event(game, 2)
    with django_assert_num_queries(0):
        followed = gateways.from_event(event, previous_san="e4")
    assert followed == gateways.read(game.pk)


def test_a_view_of_a_game_begun_with_black_to_move_says_who_moves_first(alice, bob):
    started = services.start_gateway_game(white=alice, black=bob, initial_fen=BLACK_TO_MOVE)
    view = gateways.read(started.pk)
    assert (view.turn, view.white_first, view.plies) == ("black", False, 0)


def test_a_view_of_a_game_whose_time_ran_out_shows_it_over_and_writes_nothing(
    alice, bob, play
):
    made = services.challenge(challenger=bob, challenged=alice, days_per_move=1)
    game = services.accept_challenge(challenge_id=made.pk, player=alice, colour="white")
    game = play(game, "e4", "e5")
    with time_machine.travel(game.deadline + dt.timedelta(minutes=1), tick=False):
        view = gateways.read(game.pk)
    assert (view.finished, view.result, view.termination) == (True, "0-1", "timeout")
    game.refresh_from_db()
    assert game.is_active
