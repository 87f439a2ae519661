"""make_move judges a move before its write transaction and writes it there if the
game is still at the version it judged (its UPDATE matches that version only, or it is
judged again on the locked game): what happens when the game changes in between.

Each test makes its change at that moment, through the services (or a bare version
bump), by wrapping the read that checks the move; the transactions commit for real.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator

import pytest
import time_machine
from django.db.models import F

from games import errors, services
from games.models import ConditionalLines, Game, Move
from games.services import moves
from tests.games.test_conditional import set_lines

pytestmark = pytest.mark.django_db(transaction=True)

START = dt.datetime(2026, 4, 1, 10, 0, tzinfo=dt.UTC)


class Interleaving:
    """Runs ``then`` once, between make_move's judging of the move and its transaction,
    and counts the moves judged again on the locked game."""

    def __init__(self) -> None:
        self.then: Callable[[], object] | None = None
        self.locked_plays = 0


@pytest.fixture
def between(monkeypatch) -> Iterator[Interleaving]:
    interleaving = Interleaving()
    judge_before_locking = moves._judge_before_locking
    judge_on = moves._judge_on

    def judge_then_change(*args, **kwargs):
        reading = judge_before_locking(*args, **kwargs)
        then, interleaving.then = interleaving.then, None
        if then is not None:
            then()
        return reading

    def count_locked(game, request):
        # Conditional replies are judged on the locked game by nature: not counted.
        if not request.conditional_reply:
            interleaving.locked_plays += 1
        return judge_on(game, request)

    monkeypatch.setattr(moves, "_judge_before_locking", judge_then_change)
    monkeypatch.setattr(moves, "_judge_on", count_locked)
    yield interleaving


def move(game: Game, player, number: int, text: str) -> Game:
    return services.make_move(game_id=game.pk, player=player, move_number=number, move=text)


def test_an_unchanged_game_takes_the_move_without_judging_it_again(between, game, alice):
    played = move(game, alice, 1, "e4")
    assert played.next_move_number == 2
    assert played.version == game.version + 1
    assert between.locked_plays == 0
    assert Move.objects.get(game=game, number=1).san == "e4"


def test_a_version_changed_in_between_plays_the_move_again_under_the_lock(
    between, game, alice
):
    between.then = lambda: Game.objects.filter(pk=game.pk).update(version=F("version") + 1)
    played = move(game, alice, 1, "e4")
    assert between.locked_plays == 1
    stored = Game.objects.get(pk=game.pk)
    assert (stored.next_move_number, stored.version) == (2, game.version + 2)
    assert played.version == stored.version
    assert list(Move.objects.filter(game=game).values_list("number", "san")) == [(1, "e4")]


def test_the_same_move_landing_in_between_refuses_this_one_as_stale(between, game, alice):
    between.then = lambda: move(game, alice, 1, "d4")
    with pytest.raises(errors.WrongMoveNumber):
        move(game, alice, 1, "e4")
    assert between.locked_plays == 1
    assert list(Move.objects.filter(game=game).values_list("number", "san")) == [(1, "d4")]
    assert Game.objects.get(pk=game.pk).next_move_number == 2


def test_a_stale_number_is_refused_from_the_read_without_a_write(between, game, alice, bob):
    move(game, alice, 1, "e4")
    with pytest.raises(errors.WrongMoveNumber):
        move(game, alice, 1, "d4")
    assert between.locked_plays == 0
    assert Move.objects.filter(game=game).count() == 1


def test_a_resignation_in_between_refuses_the_move(between, game, alice, bob):
    move(game, alice, 1, "e4")
    between.then = lambda: services.resign(game_id=game.pk, player=alice)
    with pytest.raises(errors.GameFinished):
        move(game, bob, 2, "e5")
    assert Move.objects.filter(game=game).count() == 1
    assert Game.objects.get(pk=game.pk).result == "0-1"


def test_a_draw_offer_in_between_refuses_the_move(between, game, alice, bob):
    move(game, alice, 1, "e4")
    between.then = lambda: services.offer_draw(game_id=game.pk, player=alice)
    with pytest.raises(errors.DrawOfferPending):
        move(game, bob, 2, "e5")
    assert Move.objects.filter(game=game).count() == 1


def test_an_illegal_move_on_an_unchanged_game_is_refused_as_judged(between, game, alice):
    with pytest.raises(errors.IllegalMove):
        move(game, alice, 1, "e5")
    assert between.locked_plays == 0
    assert not Move.objects.filter(game=game).exists()


def test_an_illegal_move_on_a_game_changed_in_between_is_judged_again(between, game, alice):
    between.then = lambda: Game.objects.filter(pk=game.pk).update(version=F("version") + 1)
    with pytest.raises(errors.IllegalMove):
        move(game, alice, 1, "e5")
    assert between.locked_plays == 1
    assert not Move.objects.filter(game=game).exists()


def test_lines_set_in_between_answer_the_move(between, game, alice, bob):
    """Setting lines does not change the game's version: the reply reads them inside
    the transaction, after the lock, so lines stored before it are used."""
    move(game, alice, 1, "e4")
    between.then = lambda: set_lines(game, alice, [["e5", "Nf3"]])
    played = move(game, bob, 2, "e5")
    assert between.locked_plays == 0
    assert played.next_move_number == 4
    assert Move.objects.get(game=game, number=3).san == "Nf3"
    assert not ConditionalLines.objects.filter(game=game).exists()


@pytest.fixture
def timed(alice, bob, play) -> Iterator[tuple[Game, time_machine.Coordinates]]:
    """alice (white) to move against bob at START, 3 days per move, both having moved."""
    with time_machine.travel(START, tick=False) as frozen:
        made = services.challenge(challenger=bob, challenged=alice, days_per_move=3)
        game = services.accept_challenge(challenge_id=made.pk, player=alice, colour="white")
        yield play(game, "e4", "e5"), frozen


def test_time_running_out_in_between_ends_the_game_and_refuses_the_move(
    between, timed, alice
):
    game, frozen = timed
    frozen.move_to(game.deadline - dt.timedelta(seconds=1))
    between.then = lambda: frozen.shift(dt.timedelta(seconds=2))
    with pytest.raises(errors.GameFinished):
        move(game, alice, 3, "Nf3")
    stored = Game.objects.get(pk=game.pk)
    assert (stored.status, stored.termination, stored.result) == ("finished", "timeout", "0-1")
    assert Move.objects.filter(game=game).count() == 2


def test_an_opponent_going_on_vacation_in_between_gets_the_clock_paused(
    between, timed, alice, bob
):
    """bob's vacation stops no clock while alice is to move, but the game's pages show
    him away (a new version): alice's move is judged again under the lock, where it
    reads the vacation and stops bob's clock as it starts."""
    game, _frozen = timed
    between.then = lambda: services.start_vacation(player=bob)
    played = move(game, alice, 3, "Nf3")
    assert between.locked_plays == 1
    assert played.paused_at is not None
    assert Game.objects.get(pk=game.pk).paused_at == START


def test_a_vacation_of_the_mover_in_between_plays_the_move_under_the_lock(
    between, timed, alice, bob
):
    """alice's vacation pauses her clock (a new version): her move is played again on
    the locked game, and bob's clock runs."""
    game, _frozen = timed
    between.then = lambda: services.start_vacation(player=alice)
    played = move(game, alice, 3, "Nf3")
    assert between.locked_plays == 1
    assert played.paused_at is None
    assert played.deadline == START + dt.timedelta(days=3)
