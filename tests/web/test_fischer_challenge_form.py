"""The challenge form with a Fischer clock, the dashboard's and a player's page's (one
form): made when its three numbers make one, refused with the reason (and nothing made)
when they do not."""

from __future__ import annotations

import re

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


# --------------------------------------------------------------------------- a player's page


def test_a_players_page_offers_the_fischer_clock_of_the_dashboards_form(as_alice, bob):
    page = as_alice.get(reverse("player_detail", args=["bob"])).content.decode()
    assert 'value="fischer"' in page
    for name in ("fischer_base_days", "fischer_increment_days", "fischer_cap_days"):
        assert f'name="{name}"' in page
    assert f'id="challenge-days-{bob.pk}"' in page and f'id="fischer-cap-{bob.pk}"' in page


def test_the_players_list_gives_each_form_its_own_field_ids(as_alice, bob, carol):
    page = as_alice.get(reverse("players")).content.decode()
    ids = re.findall(r'id="((?:challenge-days|fischer-[a-z]+)-\d+)"', page)
    assert len(ids) == 2 * 4 and len(set(ids)) == len(ids)


def test_a_fischer_challenge_from_a_players_page_carries_it_and_comes_back(as_alice, bob):
    back = reverse("player_detail", args=["bob"])
    response = as_alice.post(reverse("challenge_create"), {**FISCHER, "next": back})
    assert response.status_code == 302 and response["Location"] == back
    made = Challenge.objects.get()
    assert made.fischer == clock.Fischer(30, 1, 40) and made.days_per_move is None


@pytest.mark.parametrize(
    "fields",
    [
        {"fischer_cap_days": "29"},
        {"fischer_increment_days": ""},
        {"fischer_base_days": "🕰️"},
        {"fischer_base_days": "1" * 10_000},
    ],
)
def test_a_refused_fischer_challenge_from_a_players_page_comes_back_with_fischer_chosen(
    as_alice, bob, fields
):
    back = reverse("player_detail", args=["bob"])
    as_alice.post(reverse("challenge_create"), {**FISCHER, **fields, "next": back})
    assert not Challenge.objects.exists()
    page = as_alice.get(back).content.decode()
    assert '<option value="fischer" selected>' in page
