"""Challenges: making, accepting, declining and withdrawing them."""

from __future__ import annotations

import pytest

from accounts import errors as account_errors
from games import errors, services
from games.models import Challenge, Game


def test_challenge_is_created_pending(alice, bob):
    made = services.challenge(challenger=alice, challenged=bob)
    assert (made.challenger, made.challenged, made.status) == (alice, bob, "pending")


def test_challenging_yourself_is_refused(alice):
    with pytest.raises(errors.SelfChallenge):
        services.challenge(challenger=alice, challenged=alice)
    assert not Challenge.objects.exists()


def test_challenging_an_inactive_player_is_refused(alice, bob):
    bob.is_active = False
    bob.save()
    with pytest.raises(account_errors.UserNotFound):
        services.challenge(challenger=alice, challenged=bob)
    assert not Challenge.objects.exists()


def test_challenging_a_player_whose_account_closed_since_loading_is_refused(alice, bob):
    # The caller still holds bob as it loaded him, active.
    type(bob).objects.filter(pk=bob.pk).update(is_active=False)
    with pytest.raises(account_errors.UserNotFound):
        services.challenge(challenger=alice, challenged=bob)
    assert not Challenge.objects.exists()


def test_a_challenge_from_a_closed_account_is_refused(alice, bob):
    type(alice).objects.filter(pk=alice.pk).update(is_active=False)
    with pytest.raises(account_errors.UserNotFound):
        services.challenge(challenger=alice, challenged=bob)
    assert not Challenge.objects.exists()


def test_second_challenge_to_the_same_player_is_refused(alice, bob):
    services.challenge(challenger=alice, challenged=bob)
    with pytest.raises(errors.ChallengeExists):
        services.challenge(challenger=alice, challenged=bob)
    assert Challenge.objects.count() == 1


def test_challenging_someone_who_challenged_you_first_is_refused(alice, bob):
    services.challenge(challenger=bob, challenged=alice)
    with pytest.raises(errors.OpponentChallengedFirst):
        services.challenge(challenger=alice, challenged=bob)
    assert Challenge.objects.get().challenger == bob


def test_challenge_while_a_game_is_in_progress_is_refused(alice, bob, game):
    for challenger, challenged in ((alice, bob), (bob, alice)):
        with pytest.raises(errors.ActiveGameExists):
            services.challenge(challenger=challenger, challenged=challenged)
    assert Challenge.objects.filter(status="pending").count() == 0


def test_challenge_after_the_game_ended_is_accepted(alice, bob, game):
    services.resign(game_id=game.pk, player=alice)
    assert services.challenge(challenger=alice, challenged=bob).status == "pending"


def test_challenge_again_after_a_decline_is_accepted(alice, bob):
    first = services.challenge(challenger=alice, challenged=bob)
    services.decline_challenge(challenge_id=first.pk, player=bob)
    assert services.challenge(challenger=alice, challenged=bob).pk != first.pk


@pytest.mark.parametrize(("colour", "white_name"), [("white", "bob"), ("black", "alice")])
def test_accepting_starts_a_game_with_the_chosen_colour(alice, bob, colour, white_name):
    made = services.challenge(challenger=alice, challenged=bob)
    game = services.accept_challenge(challenge_id=made.pk, player=bob, colour=colour)
    assert game.white.username == white_name
    assert (game.status, game.result, game.next_move_number, game.version) == (
        "active",
        "*",
        1,
        1,
    )
    made.refresh_from_db()
    assert (made.status, made.game_id) == ("accepted", game.pk)
    assert made.decided_at is not None


@pytest.mark.parametrize("colour", ["red", "", "WHITE", "w"])
def test_accepting_with_an_invalid_colour_is_refused(alice, bob, colour):
    made = services.challenge(challenger=alice, challenged=bob)
    with pytest.raises(errors.InvalidColour):
        services.accept_challenge(challenge_id=made.pk, player=bob, colour=colour)
    made.refresh_from_db()
    assert made.status == "pending"
    assert not Game.objects.exists()


def test_challenger_cannot_accept_their_own_challenge(alice, bob):
    made = services.challenge(challenger=alice, challenged=bob)
    with pytest.raises(errors.ChallengeNotFound):
        services.accept_challenge(challenge_id=made.pk, player=alice, colour="white")
    assert not Game.objects.exists()


def test_a_third_player_cannot_accept_a_challenge(alice, bob, carol):
    made = services.challenge(challenger=alice, challenged=bob)
    with pytest.raises(errors.ChallengeNotFound):
        services.accept_challenge(challenge_id=made.pk, player=carol, colour="white")
    assert not Game.objects.exists()


def test_accepting_an_unknown_challenge_is_refused(bob):
    with pytest.raises(errors.ChallengeNotFound):
        services.accept_challenge(challenge_id=12345, player=bob, colour="white")


def test_accepting_a_challenge_whose_challenger_has_left_is_refused(alice, bob):
    made = services.challenge(challenger=alice, challenged=bob)
    # Left behind by a closure that raced the challenge (closing withdraws the rest).
    type(alice).objects.filter(pk=alice.pk).update(is_active=False)
    with pytest.raises(account_errors.UserNotFound):
        services.accept_challenge(challenge_id=made.pk, player=bob, colour="white")
    assert not Game.objects.exists()
    made.refresh_from_db()
    assert made.status == "pending"


def test_accepting_twice_is_refused(alice, bob):
    made = services.challenge(challenger=alice, challenged=bob)
    services.accept_challenge(challenge_id=made.pk, player=bob, colour="white")
    with pytest.raises(errors.ChallengeNotFound):
        services.accept_challenge(challenge_id=made.pk, player=bob, colour="white")
    assert Game.objects.count() == 1


def test_decline_closes_the_challenge_without_a_game(alice, bob):
    made = services.challenge(challenger=alice, challenged=bob)
    services.decline_challenge(challenge_id=made.pk, player=bob)
    made.refresh_from_db()
    assert (made.status, made.game_id) == ("declined", None)
    assert not Game.objects.exists()


def test_challenger_cannot_decline_their_own_challenge(alice, bob):
    made = services.challenge(challenger=alice, challenged=bob)
    with pytest.raises(errors.ChallengeNotFound):
        services.decline_challenge(challenge_id=made.pk, player=alice)
    made.refresh_from_db()
    assert made.status == "pending"


def test_declining_an_unknown_challenge_is_refused(bob):
    with pytest.raises(errors.ChallengeNotFound):
        services.decline_challenge(challenge_id=12345, player=bob)


def test_withdraw_closes_the_challenge(alice, bob):
    made = services.challenge(challenger=alice, challenged=bob)
    services.withdraw_challenge(challenge_id=made.pk, player=alice)
    made.refresh_from_db()
    assert made.status == "withdrawn"


def test_challenged_player_cannot_withdraw_the_challenge(alice, bob):
    made = services.challenge(challenger=alice, challenged=bob)
    with pytest.raises(errors.ChallengeNotFound):
        services.withdraw_challenge(challenge_id=made.pk, player=bob)
    made.refresh_from_db()
    assert made.status == "pending"


def test_withdrawing_an_answered_challenge_is_refused(alice, bob):
    made = services.challenge(challenger=alice, challenged=bob)
    services.decline_challenge(challenge_id=made.pk, player=bob)
    with pytest.raises(errors.ChallengeNotFound):
        services.withdraw_challenge(challenge_id=made.pk, player=alice)
    made.refresh_from_db()
    assert made.status == "declined"


def test_accepting_while_another_game_between_them_is_active_is_refused(alice, bob, carol):
    # Only reachable when a game started by some other path; the database refuses it.
    made = services.challenge(challenger=alice, challenged=bob)
    Game.objects.create(white=alice, black=bob)
    with pytest.raises(errors.ActiveGameExists):
        services.accept_challenge(challenge_id=made.pk, player=bob, colour="white")
    made.refresh_from_db()
    assert made.status == "pending"
    assert Game.objects.count() == 1


def test_domain_errors_carry_a_stable_code_and_message(alice):
    with pytest.raises(errors.SelfChallenge) as caught:
        services.challenge(challenger=alice, challenged=alice)
    assert caught.value.code == "self_challenge"
    assert caught.value.as_dict()["message"] == caught.value.message
