"""Subscription requests, approval and rejection, revocation and unsubscribing."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import check_password
from django.http import HttpRequest
from django.test import Client
from django.utils import translation

from accounts import errors, services
from accounts.models import AccessChange, Preferences, SubscriptionRequest
from games import services as game_services
from games.models import Challenge
from ranking.models import PlayerRecord
from tests.conftest import PASSWORD

User = get_user_model()


def request(username: str = "dora", password: str = "dora-secret", **fields):
    return services.request_subscription(username=username, password=password, **fields)


# --------------------------------------------------------------------------- requests


def test_valid_request_is_recorded_pending(db):
    made = request(comment="Dora Reyes", email="dora@example.org")
    assert (made.username, made.status, made.comment, made.email) == (
        "dora",
        "pending",
        "Dora Reyes",
        "dora@example.org",
    )
    assert not User.objects.filter(username="dora").exists()


def test_request_keeps_only_a_hash_of_the_password(db):
    made = request(password="dora-secret")
    assert "dora-secret" not in made.password_hash
    assert check_password("dora-secret", made.password_hash)


def test_request_name_is_trimmed(db):
    assert request(username="  dora ").username == "dora"


@pytest.mark.parametrize("username", ["a:b", "a,b", "a#b", "a b", "x" * 31, "", "dañino", "a/b"])
def test_request_with_an_unacceptable_name_is_refused(db, username):
    with pytest.raises(errors.SubscriptionRefused):
        request(username=username)
    assert not SubscriptionRequest.objects.exists()


def test_thirty_character_name_is_accepted(db):
    assert request(username="x" * 30).username == "x" * 30


def test_request_for_a_taken_name_is_refused_whatever_the_case(alice):
    with pytest.raises(errors.SubscriptionRefused) as caught, translation.override("en"):
        request(username="ALICE")
    assert "taken" in caught.value.message
    assert not SubscriptionRequest.objects.exists()


def test_second_request_for_a_pending_name_is_refused(db):
    request(username="dora")
    with pytest.raises(errors.SubscriptionRefused):
        request(username="Dora")
    assert SubscriptionRequest.objects.count() == 1


def test_request_without_a_password_is_refused(db):
    with pytest.raises(errors.SubscriptionRefused):
        request(password="")
    assert not SubscriptionRequest.objects.exists()


def test_name_of_a_rejected_request_can_be_requested_again(db):
    first = request()
    services.reject_subscription(request_id=first.pk, admin=None)
    assert request().pk != first.pk


# --------------------------------------------------------------------------- decisions


def test_approval_gives_a_working_login(db):
    made = request(comment="Dora Reyes")
    user = services.approve_subscription(request_id=made.pk, admin=None)
    assert user.is_active
    assert (user.first_name, user.last_name) == ("Dora", "Reyes")
    assert Client().login(request=HttpRequest(), username="dora", password="dora-secret")
    made.refresh_from_db()
    assert (made.status, made.user) == ("approved", user)


def test_approval_opens_the_record_and_stores_no_preferences(db):
    user = services.approve_subscription(request_id=request().pk, admin=None)
    assert PlayerRecord.objects.filter(player=user).exists()
    # Preferences are stored when the player first saves them; until then the defaults.
    assert not Preferences.objects.filter(player=user).exists()


def test_approval_records_who_decided(alice):
    made = request()
    services.approve_subscription(request_id=made.pk, admin=alice)
    made.refresh_from_db()
    assert made.decided_by == alice
    assert made.decided_at is not None


def test_pending_request_cannot_log_in(db):
    request()
    assert not Client().login(request=HttpRequest(), username="dora", password="dora-secret")


def test_rejection_gives_no_login(db):
    made = request()
    services.reject_subscription(request_id=made.pk, admin=None)
    made.refresh_from_db()
    assert made.status == "rejected"
    assert not User.objects.filter(username="dora").exists()
    assert not Client().login(request=HttpRequest(), username="dora", password="dora-secret")


def test_approving_twice_is_refused(db):
    made = request()
    services.approve_subscription(request_id=made.pk, admin=None)
    with pytest.raises(errors.SubscriptionNotPending):
        services.approve_subscription(request_id=made.pk, admin=None)
    assert User.objects.filter(username="dora").count() == 1


def test_rejecting_an_approved_request_is_refused(db):
    made = request()
    services.approve_subscription(request_id=made.pk, admin=None)
    with pytest.raises(errors.SubscriptionNotPending):
        services.reject_subscription(request_id=made.pk, admin=None)
    made.refresh_from_db()
    assert made.status == "approved"


def test_approving_a_rejected_request_is_refused(db):
    made = request()
    services.reject_subscription(request_id=made.pk, admin=None)
    with pytest.raises(errors.SubscriptionNotPending):
        services.approve_subscription(request_id=made.pk, admin=None)
    assert not User.objects.filter(username="dora").exists()


@pytest.mark.parametrize(
    "decide", [services.approve_subscription, services.reject_subscription]
)
def test_deciding_an_unknown_request_is_refused(db, decide):
    with pytest.raises(errors.SubscriptionNotFound):
        decide(request_id=424242, admin=None)


def test_approval_is_refused_when_the_name_was_taken_meanwhile(make_player):
    made = request(username="dora")
    make_player("Dora")
    with pytest.raises(errors.SubscriptionRefused):
        services.approve_subscription(request_id=made.pk, admin=None)
    made.refresh_from_db()
    assert made.status == "pending"


# --------------------------------------------------------------------------- leaving


def test_unsubscribe_with_a_wrong_password_is_refused_and_changes_nothing(alice, bob, start_game):
    game = start_game(alice, bob)
    with pytest.raises(errors.WrongPassword):
        services.unsubscribe(player=alice, password="not-it")
    alice.refresh_from_db()
    game.refresh_from_db()
    assert alice.is_active
    assert game.status == "active"


def test_unsubscribe_deactivates_the_account(alice):
    services.unsubscribe(player=alice, password=PASSWORD)
    alice.refresh_from_db()
    assert not alice.is_active
    assert not Client().login(request=HttpRequest(), username="alice", password=PASSWORD)


def test_unsubscribe_ends_each_active_game_as_a_loss(alice, bob, carol, start_game, play):
    as_white = play(start_game(alice, bob), "e4", "e5")
    as_black = play(start_game(carol, alice), "e4", "e5")
    services.unsubscribe(player=alice, password=PASSWORD)
    as_white.refresh_from_db()
    as_black.refresh_from_db()
    assert (as_white.status, as_white.result, as_white.termination) == (
        "finished",
        "0-1",
        "abandonment",
    )
    assert (as_black.result, as_black.termination) == ("1-0", "abandonment")
    assert PlayerRecord.objects.get(player=alice).losses == 2


def test_unsubscribe_withdraws_pending_challenges(alice, bob, carol):
    sent = game_services.challenge(challenger=alice, challenged=bob)
    received = game_services.challenge(challenger=carol, challenged=alice)
    services.unsubscribe(player=alice, password=PASSWORD)
    assert set(
        Challenge.objects.filter(pk__in=[sent.pk, received.pk]).values_list("status", flat=True)
    ) == {"withdrawn"}


def test_revoke_access_deactivates_and_ends_games(alice, bob, start_game, play):
    game = play(start_game(alice, bob), "e4", "e5")
    services.revoke_access(player=bob)
    bob.refresh_from_db()
    game.refresh_from_db()
    assert not bob.is_active
    assert (game.result, game.termination) == ("1-0", "abandonment")


def test_closing_records_when_and_by_whom(alice, bob, make_player):
    root = make_player("root")
    services.revoke_access(player=bob, by=root)
    services.unsubscribe(player=alice, password=PASSWORD)
    changes = {
        c.player_id: (c.player.is_active, c.changed_by_id)
        for c in AccessChange.objects.select_related("player")
    }
    assert changes == {bob.pk: (False, root.pk), alice.pk: (False, alice.pk)}


def test_closing_a_closed_account_changes_nothing(bob):
    services.revoke_access(player=bob)
    first = AccessChange.objects.get(player=bob).changed_at
    services.revoke_access(player=bob)
    assert AccessChange.objects.get(player=bob).changed_at == first


def test_restoring_access_lets_the_player_log_in_again(alice, bob, start_game, play):
    game = play(start_game(alice, bob), "e4", "e5")
    services.revoke_access(player=bob)
    assert services.restore_access(player=bob, by=alice) is True
    bob.refresh_from_db()
    game.refresh_from_db()
    assert bob.is_active
    assert Client().login(request=HttpRequest(), username="bob", password=PASSWORD)
    # What ended with the closure stays ended.
    assert (game.status, game.termination) == ("finished", "abandonment")
    change = AccessChange.objects.get(player=bob)
    assert (change.player.is_active, change.changed_by_id) == (True, alice.pk)


def test_restoring_an_open_account_changes_nothing(bob):
    assert services.restore_access(player=bob) is False
    assert not AccessChange.objects.filter(player=bob).exists()


def test_inactive_player_cannot_be_challenged_after_leaving(alice, bob):
    services.unsubscribe(player=bob, password=PASSWORD)
    bob.refresh_from_db()
    with pytest.raises(errors.UserNotFound):
        game_services.challenge(challenger=alice, challenged=bob)
