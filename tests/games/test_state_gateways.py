"""The read model's view of a game for the TCP gateways (games.state.gateways): the same
fields as every page, built from a game or from a live event without reading again."""

from __future__ import annotations

import datetime as dt
import json

import pytest
import time_machine

from games import errors, services, state
from games.models import Move
from games.state import GameView, game_view

pytestmark = pytest.mark.django_db

BLACK_TO_MOVE = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 12"


def move_event(game, number: int) -> dict:
    """The live event of half-move ``number``, as a gateway receives it."""
    made = Move.objects.get(game=game, number=number)
    return state.event_message(game, "move", move=state.move_state(made))


def test_the_view_has_the_fields_of_the_game_state_every_page_gets(game, play):
    game = play(game, "e4", "e5")
    view = game_view(game.pk, with_moves=True)
    shown = state.game_state(game)
    assert (view.id, view.public_id, view.version, view.fen, view.status, view.turn) == (
        shown["id"], shown["public_id"], shown["version"], shown["fen"], shown["status"],
        shown["turn"],
    )
    assert (view.white, view.black, view.move_number, view.next_move_number) == (
        "alice", "bob", 2, 3
    )
    assert view.sans == ("e4", "e5")
    assert game_view(game.pk).sans is None  # no moves read unless asked for
    assert view.as_state() == {
        "fen": game.fen, "status": "active", "result": "*", "termination": ""
    }


def test_a_view_follows_live_events_without_reading_the_game_again(
    game, play, django_assert_num_queries
):
    view = game_view(game.pk, with_moves=True)
    game = play(game, "e4")
    first = move_event(game, 1)
    game = play(game, "e5")
    second = move_event(game, 2)
    with django_assert_num_queries(0):
        followed = view.after(first).after(second)
    assert followed == game_view(game.pk, with_moves=True)
    # An event the view already holds (the reply to its own move came first) changes
    # nothing; one after a missed version asks for a fresh read.
    assert followed.after(second) is followed
    assert view.after(second) is None


def test_a_view_of_a_game_begun_with_black_to_move_numbers_as_chess_does(alice, bob):
    started = services.start_gateway_game(white=alice, black=bob, initial_fen=BLACK_TO_MOVE)
    view = game_view(started.pk)
    assert (view.turn, view.move_number, view.start_fen) == ("black", 12, BLACK_TO_MOVE)


def test_a_view_of_a_game_whose_time_ran_out_shows_it_over_and_writes_nothing(
    alice, bob, play
):
    made = services.challenge(challenger=bob, challenged=alice, days_per_move=1)
    game = services.accept_challenge(challenge_id=made.pk, player=alice, colour="white")
    game = play(game, "e4", "e5")
    with time_machine.travel(game.deadline + dt.timedelta(minutes=1), tick=False):
        view = game_view(game.pk)
    assert (view.finished, view.result, view.termination, view.winner) == (
        True, "0-1", "timeout", "black"
    )
    game.refresh_from_db()
    assert game.is_active


def test_the_ending_event_gives_the_view_its_result(game, play, bob):
    game = play(game, "e4", "e5")
    view = game_view(game.pk)
    ended = services.resign(game_id=game.pk, player=bob)
    message = json.loads(json.dumps(state.event_message(ended, "resigned", by="black")))
    after = view.after(message)
    assert after is not None
    assert (after.finished, after.winner, after.ended_by, after.termination) == (
        True, "white", "black", "resignation"
    )
    assert after == GameView.of(ended)


def test_no_view_of_a_game_that_does_not_exist():
    with pytest.raises(errors.GameNotFound):
        game_view(999_999)
