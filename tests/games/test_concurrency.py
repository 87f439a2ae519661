"""Concurrent requests in real threads, each with its own database connection.

The database settles races: PostgreSQL through row locks and unique indexes, SQLite
through IMMEDIATE transactions that make writers queue for the lock.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from functools import partial

import pytest
from django.conf import settings
from django.db import connection

from accounts import errors as account_errors
from accounts import services as account_services
from games import errors, services
from games.models import Challenge, Game, Move

pytestmark = pytest.mark.django_db(transaction=True)

ROUNDS = 6


@pytest.fixture(autouse=True)
def no_challenge_limits(settings):
    """Each race makes a challenge per round between the same two players: the limits on
    challenges (tested in test_challenge_limits.py) would refuse them."""
    settings.CHALLENGES_PER_WINDOW = 0
    settings.CHALLENGES_PER_PAIR_PER_WINDOW = 0
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
        applied = [o for o in outcomes if isinstance(o, Game)]
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
        # The loser is told what it would be told a moment later: answer theirs.
        refused = [o for o in outcomes if isinstance(o, errors.OpponentChallengedFirst)]
        assert (len(created), len(refused)) == (1, 1), outcomes
        assert Challenge.objects.filter(status="pending").count() == 1
        pending = created[0]
        services.withdraw_challenge(challenge_id=pending.pk, player=pending.challenger)


def _accept_against_withdraw(alice, bob) -> None:
    for _ in range(ROUNDS):
        made = services.challenge(challenger=alice, challenged=bob)
        accepted, withdrawn = race(
            partial(services.accept_challenge, challenge_id=made.pk, player=bob, colour="white"),
            partial(services.withdraw_challenge, challenge_id=made.pk, player=alice),
        )
        made.refresh_from_db()
        if isinstance(accepted, Game):
            assert isinstance(withdrawn, errors.ChallengeNotFound), withdrawn
            assert (made.status, made.game_id) == ("accepted", accepted.pk)
            services.resign(game_id=accepted.pk, player=alice)
        else:
            assert isinstance(accepted, errors.ChallengeNotFound), accepted
            assert isinstance(withdrawn, Challenge), withdrawn
            assert (made.status, made.game_id) == ("withdrawn", None)
        assert not Game.objects.filter(status="active").exists()


def _acceptances_at_the_limit(alice, bob) -> None:
    # Two challenges wait, one each way, made while the site allowed the pair two games;
    # the administrator then allows one. Both are accepted at the same moment: the count
    # under the lock on both players lets exactly one game start.
    for _ in range(ROUNDS):
        services.set_site_rules(games_per_pair=2)
        mine = services.challenge(challenger=alice, challenged=bob)
        theirs = services.challenge(challenger=bob, challenged=alice)
        services.set_site_rules(games_per_pair=1)
        accept = services.accept_challenge
        outcomes = race(
            partial(accept, challenge_id=mine.pk, player=bob, colour="white"),
            partial(accept, challenge_id=theirs.pk, player=alice, colour="black"),
        )
        started = [o for o in outcomes if isinstance(o, Game)]
        refused = [o for o in outcomes if isinstance(o, errors.ActiveGameExists)]
        assert (len(started), len(refused)) == (1, 1), outcomes
        assert Game.objects.filter(status="active").count() == 1
        # The refused challenge still waits, to be accepted once the game ends.
        left = Challenge.objects.get(status="pending")
        services.resign(game_id=started[0].pk, player=alice)
        services.withdraw_challenge(challenge_id=left.pk, player=left.challenger)


def _acceptance_against_a_gateway_game(alice, bob) -> None:
    # At the default limit (one game per pair), a challenge accepted on the web and a game
    # a gateway pairs for the same two accounts (linked names) start at the same moment.
    for _ in range(ROUNDS):
        made = services.challenge(challenger=alice, challenged=bob)
        outcomes = race(
            partial(services.accept_challenge, challenge_id=made.pk, player=bob, colour="white"),
            partial(services.start_gateway_game, white=alice, black=bob),
        )
        started = [o for o in outcomes if isinstance(o, Game)]
        refused = [o for o in outcomes if isinstance(o, errors.ActiveGameExists)]
        assert (len(started), len(refused)) == (1, 1), outcomes
        assert Game.objects.filter(status="active").count() == 1
        services.resign(game_id=started[0].pk, player=alice)
        made.refresh_from_db()
        if made.status == "pending":
            services.withdraw_challenge(challenge_id=made.pk, player=alice)


def _accept_against_account_closure(make_player) -> None:
    for round_number in range(ROUNDS):
        leaver = make_player(f"leaver{round_number}")
        stayer = make_player(f"stayer{round_number}")
        made = services.challenge(challenger=leaver, challenged=stayer)
        accepted, revoked = race(
            partial(services.accept_challenge, challenge_id=made.pk, player=stayer, colour="black"),
            partial(account_services.revoke_access, player=leaver),
        )
        # The closure always goes through (no deadlock, no database error), and whatever
        # the accept did, no game is left running against a closed account.
        assert revoked is None, revoked
        assert isinstance(accepted, Game | errors.ChallengeNotFound | account_errors.UserNotFound)
        leaver.refresh_from_db()
        assert not leaver.is_active
        assert not Game.objects.filter(status="active").exists()
        if isinstance(accepted, Game):
            accepted.refresh_from_db()
            # The leaver had not moved: the game is aborted, with no result.
            assert (accepted.result, accepted.termination) == ("*", "aborted")


def _resign_against_move(start_game, make_player) -> None:
    for round_number in range(ROUNDS):
        white = make_player(f"white{round_number}")
        black = make_player(f"black{round_number}")
        game = start_game(white, black)
        moved, resigned = race(
            partial(services.make_move, game_id=game.pk, player=white, move_number=1, move="e4"),
            partial(services.resign, game_id=game.pk, player=black),
        )
        # Either order is a valid history, but never a move after the game ended.
        assert isinstance(resigned, Game), resigned
        assert isinstance(moved, Game | errors.GameFinished), moved
        game.refresh_from_db()
        assert (game.status, game.result, game.termination) == ("finished", "1-0", "resignation")
        stored = list(Move.objects.filter(game=game))
        if isinstance(moved, Game):
            assert [m.uci for m in stored] == ["e2e4"]
            assert stored[0].played_at <= game.finished_at
            assert game.next_move_number == 2
        else:
            assert stored == [] and game.next_move_number == 1


def _draw_offer_against_move(game) -> None:
    # White to move; black offers a draw at the same moment. Whichever comes second sees
    # the first: an offer during white's move is fine, a move after the offer is not
    # (the offering side's opponent must answer before moving).
    for _ in range(ROUNDS):
        game.refresh_from_db()
        number = game.next_move_number
        mover, offerer = (game.white, game.black) if number % 2 else (game.black, game.white)
        text = ["Nf3", "Nf6", "Ng1", "Ng8", "Nc3", "Nc6"][number - 1]
        move = partial(
            services.make_move, game_id=game.pk, player=mover, move_number=number, move=text
        )
        moved, offered = race(move, partial(services.offer_draw, game_id=game.pk, player=offerer))
        assert isinstance(offered, Game), offered
        assert isinstance(moved, Game | errors.DrawOfferPending), moved
        game.refresh_from_db()
        assert game.draw_offer_by == offerer_colour(game, offerer)
        assert game.next_move_number == (number + 1 if isinstance(moved, Game) else number)
        services.answer_draw(game_id=game.pk, player=mover, accept=False)
        if not isinstance(moved, Game):
            # The move waited for the answer; it is played now, so that each side has
            # moved since its last offer and may offer again (one offer per own move).
            move()


def offerer_colour(game: Game, player) -> str:
    return "white" if game.white_id == player.pk else "black"


ON_EACH_DATABASE = pytest.mark.parametrize(
    "database",
    [
        pytest.param("postgresql", marks=pytest.mark.postgres),
        pytest.param(
            "sqlite",
            marks=pytest.mark.skipif(
                not ON_SQLITE, reason="SQLite variant: DATABASE_URL is not SQLite"
            ),
        ),
    ],
)


@ON_EACH_DATABASE
def test_concurrent_moves_with_the_same_number_apply_once(database, game):
    _same_move_number_twice(game)


@ON_EACH_DATABASE
def test_concurrent_opposite_challenges_create_one(database, alice, bob):
    _challenges_in_opposite_directions(alice, bob)


@ON_EACH_DATABASE
def test_accept_racing_a_withdrawal_does_exactly_one(database, alice, bob):
    _accept_against_withdraw(alice, bob)


@ON_EACH_DATABASE
def test_two_acceptances_racing_at_the_games_per_pair_limit_start_one_game(
    database, alice, bob
):
    _acceptances_at_the_limit(alice, bob)


@ON_EACH_DATABASE
def test_an_acceptance_racing_a_gateway_game_for_the_same_pair_starts_one(
    database, alice, bob
):
    _acceptance_against_a_gateway_game(alice, bob)


@ON_EACH_DATABASE
def test_accept_racing_an_account_closure_leaves_no_game_running(database, make_player):
    _accept_against_account_closure(make_player)


@ON_EACH_DATABASE
def test_resign_racing_a_move_never_stores_a_move_after_the_end(
    database, start_game, make_player
):
    _resign_against_move(start_game, make_player)


@ON_EACH_DATABASE
def test_draw_offer_racing_a_move_keeps_the_rule_of_answering_first(database, game):
    _draw_offer_against_move(game)
