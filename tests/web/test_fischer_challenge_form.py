"""The dashboard's challenge form with a Fischer clock: made when its three numbers make
one, refused with the reason (and nothing made) when they do not."""

from __future__ import annotations

import pytest
from django.contrib.messages import get_messages
from django.urls import reverse

from games import clock
from games.models import Challenge

pytestmark = pytest.mark.django_db

FISCHER = {"username": "bob", "days_per_move": "fischer", "fischer_base_days": "30",
           "fischer_increment_days": "1", "fischer_cap_days": "40"}


def _said(response) -> list[str]:
    return [str(message) for message in get_messages(response.wsgi_request)]


def test_the_dashboard_offers_a_fischer_clock(as_alice):
    page = as_alice.get(reverse("dashboard")).content.decode()
    assert 'value="fischer"' in page and 'name="fischer_cap_days"' in page


def test_a_challenge_with_a_fischer_clock_carries_it(as_alice, bob):
    as_alice.post(reverse("challenge_create"), FISCHER)
    made = Challenge.objects.get()
    assert made.fischer == clock.Fischer(30, 1, 40) and made.days_per_move is None


@pytest.mark.parametrize(
    ("fields", "says"),
    [
        ({"fischer_base_days": ""}, "must be whole days"),
        ({"fischer_base_days": "0"}, "base must be 1 to 365 days"),
        ({"fischer_base_days": "-5"}, "must be whole days"),
        ({"fischer_base_days": "1.5"}, "must be whole days"),
        ({"fischer_base_days": "treinta"}, "must be whole days"),
        ({"fischer_base_days": "３０"}, "must be whole days"),
        ({"fischer_base_days": "9" * 5000}, "must be whole days"),
        ({"fischer_base_days": "9999"}, "base must be 1 to 365 days"),
        ({"fischer_increment_days": "31"}, "increment must be 0 to 30 days"),
        ({"fischer_cap_days": "29"}, "cap must be at least its base"),
        ({"fischer_cap_days": "\x00"}, "must be whole days"),
    ],
)
def test_a_fischer_clock_that_makes_none_is_refused_with_the_reason(as_alice, bob, fields, says):
    response = as_alice.post(reverse("challenge_create"), {**FISCHER, **fields})
    assert response.status_code == 302
    assert any(says in said for said in _said(response))
    assert not Challenge.objects.exists()


def test_a_fischer_clock_without_its_numbers_is_refused(as_alice, bob):
    response = as_alice.post(
        reverse("challenge_create"), {"username": "bob", "days_per_move": "fischer"}
    )
    assert any("must be whole days" in said for said in _said(response))
    assert not Challenge.objects.exists()
