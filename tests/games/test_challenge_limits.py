"""Challenge spam: a challenger, and a challenger to one opponent, get so many challenges
in a window at every door, withdrawn ones counted; a withdrawn challenge takes back its
unread notification, and with it the mail queued for it."""

from __future__ import annotations

import datetime as dt

import pytest
import time_machine
from django.urls import reverse

from games import errors, rules, services, tasks
from games.models import Challenge, Notification

NOW = dt.datetime(2026, 3, 2, 12, tzinfo=dt.UTC)


@pytest.fixture
def limits(settings):
    settings.CHALLENGES_PER_WINDOW = 3
    settings.CHALLENGES_PER_PAIR_PER_WINDOW = 2
    settings.CHALLENGE_WINDOW_SECONDS = 3600
    return settings


def challenge_and_withdraw(challenger, challenged) -> Challenge:
    made = services.challenge(challenger=challenger, challenged=challenged)
    services.withdraw_challenge(challenge_id=made.pk, player=challenger)
    return made


def test_a_challenger_over_the_window_is_refused_until_it_moves_on(
    limits, alice, make_player
):
    others = [make_player(f"p{index}") for index in range(4)]
    with time_machine.travel(NOW, tick=False) as clock:
        for index, opponent in enumerate(others[:3]):
            challenge_and_withdraw(alice, opponent)
            clock.shift(60 * (index + 1))
        with pytest.raises(errors.ChallengeRateLimited) as refused:
            services.challenge(challenger=alice, challenged=others[3])
        # The first challenge (at NOW) leaves the window at NOW + 1 h; it is NOW + 6 min.
        assert refused.value.details["retry_after"] == 54 * 60
        assert "54 minutes" in refused.value.message
        clock.shift(54 * 60)
        services.challenge(challenger=alice, challenged=others[3])
    assert Challenge.objects.filter(challenger=alice).count() == 4


def test_challenges_to_one_opponent_have_their_own_bound(limits, alice, bob, carol):
    with time_machine.travel(NOW, tick=False):
        challenge_and_withdraw(alice, bob)
        challenge_and_withdraw(alice, bob)
        with pytest.raises(errors.ChallengeRateLimited):
            services.challenge(challenger=alice, challenged=bob)
        # Another opponent, and another challenger of bob, are not held back.
        services.challenge(challenger=alice, challenged=carol)
        services.challenge(challenger=carol, challenged=bob)
    assert Challenge.objects.filter(challenger=alice, challenged=bob).count() == 2


def test_no_limit_when_the_settings_say_zero(settings, alice, bob):
    settings.CHALLENGES_PER_WINDOW = 0
    settings.CHALLENGES_PER_PAIR_PER_WINDOW = 0
    for _ in range(10):
        challenge_and_withdraw(alice, bob)
    assert Challenge.objects.count() == 10


def test_a_withdrawn_challenge_takes_back_its_unread_notification_and_mail(alice, bob):
    made = services.challenge(challenger=alice, challenged=bob)
    received = Notification.objects.get(recipient=bob, challenge=made)
    services.withdraw_challenge(challenge_id=made.pk, player=alice)
    assert not Notification.objects.filter(pk=received.pk).exists()
    # The mail queued for it finds nothing to send.
    assert tasks.deliver(received.pk).startswith("skipped: the notification is gone")


def test_a_challenge_already_read_stays_in_the_list_when_withdrawn(alice, bob):
    made = services.challenge(challenger=alice, challenged=bob)
    Notification.objects.filter(recipient=bob).update(read_at=NOW)
    services.withdraw_challenge(challenge_id=made.pk, player=alice)
    assert Notification.objects.filter(recipient=bob, challenge=made).exists()


def test_the_web_door_says_when_the_next_challenge_may_go(limits, client, alice, bob):
    client.force_login(alice)
    with time_machine.travel(NOW, tick=False):
        challenge_and_withdraw(alice, bob)
        challenge_and_withdraw(alice, bob)
        response = client.post(
            reverse("challenge_create"), {"username": "bob", "days_per_move": "3"},
            follow=True,
        )
    assert "too many challenges" in response.content.decode()
    assert Challenge.objects.filter(challenger=alice).count() == 2


def test_accepted_challenges_do_not_count(limits, alice, bob):
    with time_machine.travel(NOW, tick=False):
        for _ in range(4):
            made = services.challenge(challenger=alice, challenged=bob)
            game = services.accept_challenge(challenge_id=made.pk, player=bob, colour=rules.WHITE)
            services.resign(game_id=game.pk, player=alice)
    assert Challenge.objects.filter(status=Challenge.Status.ACCEPTED).count() == 4
