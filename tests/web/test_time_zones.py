"""Each player's time zone: guessed from the browser at sign-up, changed on the
preferences page, and the zone every page is written in (the database keeps UTC)."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest
from django.test import Client
from django.urls import reverse

from accounts import services as accounts
from accounts.models import Preferences, SubscriptionRequest
from accounts.selectors import preferences_of
from games import notifications
from games.models import Notification, NotificationKind

PASSWORD = "queen-gambit-77"
# The rest of the preferences form, as the page sends it.
LOOK = {"board_theme": "brown", "piece_set": "cburnett", "orientation": "auto"}


def subscribe(client: Client, **fields: str):
    data = {
        "username": "frank",
        "password1": PASSWORD,
        "password2": PASSWORD,
        "email": "frank@example.org",
        **fields,
    }
    return client.post(reverse("subscribe"), data)


def page_zone(response) -> str:
    return re.search(r'data-time-zone="([^"]*)"', response.content.decode())[1]


def test_the_browsers_zone_sent_at_sign_up_becomes_the_players_on_approval(client, db):
    response = subscribe(client, time_zone="America/New_York")

    assert response["Location"] == reverse("subscribe_done")
    request = SubscriptionRequest.objects.get(username="frank")
    assert request.time_zone == "America/New_York"
    player = accounts.approve_subscription(request_id=request.pk, admin=None)
    assert preferences_of(player).time_zone == "America/New_York"


@pytest.mark.parametrize(
    "sent",
    ["", "Mars/Olympus_Mons", "Europe/Madrid" * 50, "Europe/Madrid\x00", "Ëurope/Madrid", " "],
)
def test_a_zone_the_machine_does_not_know_is_dropped_at_sign_up(client, db, sent):
    # The field is hidden: nobody could correct it, so it is dropped, not an error.
    response = subscribe(client, time_zone=sent)

    assert response["Location"] == reverse("subscribe_done")
    request = SubscriptionRequest.objects.get(username="frank")
    assert request.time_zone == ""
    player = accounts.approve_subscription(request_id=request.pk, admin=None)
    assert not Preferences.objects.filter(player=player).exists()


def test_the_sign_up_form_carries_the_hidden_zone_field(client, db):
    html = client.get(reverse("subscribe")).content.decode()
    assert re.search(r'<input type="hidden" name="time_zone"', html)


def test_the_preferences_page_sets_the_zone_and_the_pages_follow(alice):
    client = Client()
    client.force_login(alice)
    response = client.post(reverse("preferences"), {**LOOK, "time_zone": "Asia/Tokyo"})

    assert response["Location"] == reverse("preferences")
    assert preferences_of(alice).time_zone == "Asia/Tokyo"
    page = client.get(reverse("preferences"))
    assert page_zone(page) == "Asia/Tokyo"
    assert '<option value="Asia/Tokyo" selected>' in page.content.decode()


@pytest.mark.parametrize("sent", ["Nowhere/Land", "x" * 10_000, "Asia/Tokyo\n", "ÜTC"])
def test_an_unknown_zone_on_the_preferences_page_is_refused_and_changes_nothing(alice, sent):
    accounts.save_preferences(player=alice, values={"time_zone": "Europe/Madrid"})
    client = Client()
    client.force_login(alice)

    response = client.post(reverse("preferences"), {**LOOK, "time_zone": sent})

    assert response.status_code == 200
    assert "time_zone" in response.context["form"].errors
    assert preferences_of(alice).time_zone == "Europe/Madrid"


def test_a_players_zone_is_taken_at_each_login(alice):
    accounts.save_preferences(player=alice, values={"time_zone": "Australia/Sydney"})
    client = Client()
    client.force_login(alice)

    assert page_zone(client.get(reverse("preferences"))) == "Australia/Sydney"


def test_a_visitor_reads_pages_in_the_zone_their_browser_reports(client, db):
    client.cookies["tz"] = "Europe/Madrid"
    assert page_zone(client.get(reverse("login"))) == "Europe/Madrid"


@pytest.mark.parametrize("cookie", ["Nowhere/Land", "../../etc/passwd", "A" * 500, ""])
def test_a_bad_zone_cookie_leaves_the_page_in_utc(client, db, cookie):
    client.cookies["tz"] = cookie
    response = client.get(reverse("login"))
    assert response.status_code == 200
    assert page_zone(response) == "UTC"


def test_a_chosen_zone_wins_over_the_browsers(alice):
    accounts.save_preferences(player=alice, values={"time_zone": "Asia/Tokyo"})
    client = Client()
    client.force_login(alice)
    client.cookies["tz"] = "Europe/Madrid"
    assert page_zone(client.get(reverse("preferences"))) == "Asia/Tokyo"


def test_the_notifications_list_shows_local_time_with_the_zone_named(alice, bob):
    accounts.save_preferences(player=alice, values={"time_zone": "America/New_York"})
    made = notifications.notify(recipient=alice, kind=NotificationKind.GAME_OVER, actor=bob)
    Notification.objects.filter(pk=made.pk).update(
        created_at=datetime(2026, 1, 15, 12, 30, tzinfo=UTC)
    )
    client = Client()
    client.force_login(alice)

    html = client.get(reverse("notification_list")).content.decode()

    # 12:30 UTC in January is 07:30 in New York (EST, UTC-5).
    assert re.search(r"Jan\. 15, 2026, 7:30 a\.m\. EST", html), html


def test_a_session_store_that_is_down_leaves_the_zone_to_the_browser(rf):
    from django.db import OperationalError

    from accounts import time_zones

    class DownSession:
        def get(self, key, default=None):
            raise OperationalError("connection refused")

    request = rf.get("/healthz")
    request.session = DownSession()
    request.COOKIES["tz"] = "Europe/Madrid"
    assert time_zones.zone_of_request(request) == "Europe/Madrid"


def test_a_bug_reading_the_session_is_not_hidden(rf):
    from accounts import time_zones

    class BrokenSession:
        def get(self, key, default=None):
            raise TypeError("a bug")

    request = rf.get("/")
    request.session = BrokenSession()
    with pytest.raises(TypeError):
        time_zones.zone_of_request(request)
