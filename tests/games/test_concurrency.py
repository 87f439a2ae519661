"""Concurrent requests in real threads, each with its own database connection.

The database settles races: PostgreSQL through row locks and unique indexes, SQLite
through IMMEDIATE transactions that make writers queue for the lock.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest
from django.conf import settings
from django.db import connection

from games import errors, services
from games.models import Challenge, Move

pytestmark = pytest.mark.django_db(transaction=True)

ROUNDS = 6
ON_SQLITE = settings.DATABASES["default"]["ENGINE"].endswith("sqlite3")


def race(*calls: Callable[[], object]) -> list[object]:
    """Run ``calls`` at the same moment in threads; return each result or raised error."""
    barrier = threading.Barrier(len(calls))
    outcomes: list[object] = [None] * len(calls)

    def run(index: int, call: Callable[[], object]) -> None:
        try:
            barrier.wait()
            outcomes[index] = call()
        except Exception as exc:
            outcomes[index] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    return outcomes


def _same_move_number_twice(game) -> None:
    dance = ["Nf3", "Nf6", "Ng1", "Ng8", "Nc3", "Nc6"]
    for text in dance[:ROUNDS]:
        game.refresh_from_db()
        player = game.white if game.colour_to_move == "white" else game.black
        number = game.next_move_number

        def submit(text: str = text, player=player, number: int = number):
            return services.make_move(game_id=game.pk, player=player, move_number=number, move=text)

        outcomes = race(submit, submit)
        applied = [o for o in outcomes if isinstance(o, Move)]
        refused = [o for o in outcomes if isinstance(o, errors.WrongMoveNumber)]
        assert (len(applied), len(refused)) == (1, 1), outcomes
        assert Move.objects.filter(game=game, number=number).count() == 1
    game.refresh_from_db()
    assert game.next_move_number == ROUNDS + 1


def _challenges_in_opposite_directions(alice, bob) -> None:
    for _ in range(ROUNDS):
        outcomes = race(
            lambda: services.challenge(challenger=alice, challenged=bob),
            lambda: services.challenge(challenger=bob, challenged=alice),
        )
        created = [o for o in outcomes if isinstance(o, Challenge)]
        refused = [
            o
            for o in outcomes
            if isinstance(o, errors.ChallengeExists | errors.OpponentChallengedFirst)
        ]
        assert (len(created), len(refused)) == (1, 1), outcomes
        assert Challenge.objects.filter(status="pending").count() == 1
        pending = created[0]
        services.withdraw_challenge(challenge_id=pending.pk, player=pending.challenger)


@pytest.mark.postgres
def test_concurrent_moves_with_the_same_number_apply_once_on_postgresql(game):
    _same_move_number_twice(game)


@pytest.mark.postgres
def test_concurrent_opposite_challenges_create_one_on_postgresql(alice, bob):
    _challenges_in_opposite_directions(alice, bob)


@pytest.mark.skipif(not ON_SQLITE, reason="SQLite variant: DATABASE_URL is not SQLite")
def test_concurrent_moves_with_the_same_number_apply_once_on_sqlite(game):
    _same_move_number_twice(game)


@pytest.mark.skipif(not ON_SQLITE, reason="SQLite variant: DATABASE_URL is not SQLite")
def test_concurrent_opposite_challenges_create_one_on_sqlite(alice, bob):
    _challenges_in_opposite_directions(alice, bob)
