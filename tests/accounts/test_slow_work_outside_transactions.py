"""Password hashes run outside write transactions, so they never hold up the moves.

On SQLite a write transaction takes the database's one write lock when it begins
(``transaction_mode=IMMEDIATE``); a PBKDF2 hash inside one kept every other writer
waiting for a quarter of a second, and a few anonymous subscription requests at once
turned moves into busy-timeout errors. These tests hold hashes open and require moves
to commit meanwhile: the structure, not a speed, is what they check.
"""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from accounts import services as account_services
from accounts.models import SubscriptionRequest
from ajedrez import demo
from games import services
from games.models import Move
from tests.accounts.hashers import HeldHasher, RecordingHasher

pytestmark = pytest.mark.django_db(transaction=True)

SUBSCRIBERS = 3
OPENING = ["e4", "e5", "Nf3", "Nc6"]
# Only a bound so that a broken run ends; a passing run never comes near it.
PATIENCE = 30.0


@pytest.fixture
def held_hashes(settings):
    settings.PASSWORD_HASHERS = [
        "tests.accounts.hashers.HeldHasher",
        "django.contrib.auth.hashers.MD5PasswordHasher",
    ]
    HeldHasher.reset()
    yield HeldHasher
    HeldHasher.release.set()


@pytest.fixture
def recorded_hashes(settings):
    settings.PASSWORD_HASHERS = [
        "tests.accounts.hashers.RecordingHasher",
        "django.contrib.auth.hashers.MD5PasswordHasher",
    ]
    RecordingHasher.inside_transaction = []
    return RecordingHasher


def in_thread(target, outcome: dict) -> threading.Thread:
    """A thread running ``target``, its result or error kept in ``outcome``."""

    def run() -> None:
        try:
            outcome["result"] = target()
        except Exception as exc:
            outcome["error"] = exc
        finally:
            connection.close()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def test_moves_commit_while_subscription_hashes_are_running(game, held_hashes):
    # The players exist before the hashes are held (``game`` comes first): creating them
    # hashes their passwords too.
    requested = [{} for _ in range(SUBSCRIBERS)]
    subscribers = [
        in_thread(
            lambda n=n: account_services.request_subscription(
                username=f"newcomer{n}", password="newcomer-pass"
            ),
            requested[n],
        )
        for n in range(SUBSCRIBERS)
    ]

    def play_opening() -> int:
        for number, text in enumerate(OPENING, start=1):
            player = game.white if number % 2 else game.black
            services.make_move(game_id=game.pk, player=player, move_number=number, move=text)
        return len(OPENING)

    moves: dict = {}
    try:
        # Every subscription is hashing at once: none waits for another's transaction.
        held_hashes.wait_for_in_flight(SUBSCRIBERS, PATIENCE)
        hashing = held_hashes.in_flight
        mover = in_thread(play_opening, moves)
        mover.join(PATIENCE)
        # Still held after the moves: the moves did not wait for the hashes.
        held_after_moves = held_hashes.in_flight
    finally:
        held_hashes.release.set()
        for thread in subscribers:
            thread.join(PATIENCE)
    assert "error" not in moves, moves.get("error")
    assert moves.get("result") == len(OPENING), "the moves did not complete"
    assert hashing == SUBSCRIBERS, f"only {hashing} of {SUBSCRIBERS} hashes could start"
    assert held_after_moves == SUBSCRIBERS
    assert Move.objects.filter(game=game).count() == len(OPENING)
    assert [outcome.get("error") for outcome in requested] == [None] * SUBSCRIBERS
    assert SubscriptionRequest.objects.count() == SUBSCRIBERS


def test_a_subscription_request_hashes_outside_any_transaction(recorded_hashes):
    account_services.request_subscription(username="dora", password="dora-secret")
    assert recorded_hashes.inside_transaction == [False]


def test_seeding_the_demo_hashes_outside_any_transaction(recorded_hashes, settings, tmp_path):
    settings.DEMO_CREDENTIALS_FILE = tmp_path / "demo-admin"
    demo.seed()
    # The administrator, five players and one pending request.
    assert len(recorded_hashes.inside_transaction) == 7
    assert not any(recorded_hashes.inside_transaction)
