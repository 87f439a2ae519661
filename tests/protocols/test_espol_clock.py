"""A game with a time control, as an ESPOL client sees it.

The protocol has no clock: JUEG makes challenges without one, STAT keeps its 10 fields,
and a game whose time ran out reads as finished with its result, on its first read,
whether or not the sweep has ended it yet (docs/protocols/espol.md, "Time controls").
"""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from games import services
from games.models import Challenge, Game, Move
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db(transaction=True)


def _timed_game(white, black, play, *moves: str) -> Game:
    made = services.challenge(challenger=black, challenged=white, days_per_move=1)
    game = services.accept_challenge(challenge_id=made.pk, player=white, colour="white")
    return play(game, *moves)


def _run_out(game: Game) -> None:
    # Set-up only: the deadline passed while nothing was running.
    Game.objects.filter(pk=game.pk).update(deadline=timezone.now() - dt.timedelta(hours=1))


def test_jueg_makes_a_challenge_without_a_time_control(login, alice, bob):
    assert login(alice).send("JUEG:bob").code == 103
    assert Challenge.objects.get().days_per_move is None


def test_stat_of_a_game_whose_time_ran_out_reads_finished_with_its_result(
    login, alice, bob, play
):
    game = _timed_game(alice, bob, play, "e4", "e5")
    _run_out(game)
    fields = login(bob).send(f"STAT:{game.public_id}").text.split(":")
    assert len(fields) == 10
    # est_prt 2 (finished), ganador 2 (black), no request flags, bob is black.
    assert fields[4:] == ["2", "2", "0", "0", "N", "3"]
    # The read wrote nothing; the sweep ends it in the database, as the reply said.
    assert Game.objects.get(pk=game.pk).is_active
    assert services.expire_due_games() == 1
    assert Game.objects.get(pk=game.pk).termination == "timeout"


def test_stat_of_a_game_aborted_on_time_reads_finished_without_a_winner(
    login, alice, bob, play
):
    game = _timed_game(alice, bob, play, "e4")
    _run_out(game)
    fields = login(alice).send(f"STAT:{game.public_id}").text.split(":")
    assert fields[4:6] == ["2", "0"]


def test_a_move_after_the_deadline_gets_824_and_is_not_stored(login, alice, bob, play):
    game = _timed_game(alice, bob, play, "e4", "e5")
    _run_out(game)
    assert login(alice).send(f"JGDA:{game.public_id}:3:g1f3:0:0621:0").code == 824
    assert Move.objects.filter(game=game).count() == 2
    assert Game.objects.get(pk=game.pk).result == "0-1"


def test_unsu_before_one_s_first_move_aborts_the_game(login, alice, bob, game):
    assert login(alice).send(f"UNSU:alice:{PASSWORD}").code == 103
    game.refresh_from_db()
    assert (game.status, game.result, game.termination) == ("finished", "*", "aborted")
    fields = login(bob).send(f"STAT:{game.public_id}").text.split(":")
    assert fields[4:6] == ["2", "0"]
