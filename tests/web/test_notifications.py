"""The bell and the notifications pages: listing, opening (marks read), marking all,
and what others' ids, bad ids and anonymous visitors get; the live count on the socket."""

from __future__ import annotations

import re

import pytest
from asgiref.sync import sync_to_async
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from games import notifications, services
from games.inbox import NOTIFICATIONS_PER_PAGE
from games.models import Notification, NotificationKind
from tests.web.test_consumers import communicator, cookie_for

pytestmark = pytest.mark.django_db


def unread_of(player) -> int:
    return Notification.objects.filter(recipient=player, read_at__isnull=True).count()


def bell(html: str) -> str:
    found = re.search(r'id="notification-bell".*?data-unread="(\d+)"', html, re.S)
    assert found, "no bell"
    return found.group(1)


@pytest.fixture
def moved(alice, bob, start_game, play):
    """alice played 1.e4 against bob: bob has an unread "opponent moved"."""
    return play(start_game(alice, bob), "e4")


def test_every_page_shows_the_bell_with_the_unread_count(as_bob, bob, moved):
    # bob challenged alice, who accepted, then moved: two pieces of news for him.
    assert unread_of(bob) == 2
    html = as_bob.get(reverse("players")).content.decode()
    assert bell(html) == "2"
    assert "Notifications: 2 unread" in html
    # A drawn icon: the emoji was an empty box where no emoji font is installed.
    assert 'class="notification-icon"' in html and "\N{BELL}" not in html


def test_anonymous_pages_have_no_bell(client):
    assert "notification-bell" not in client.get(reverse("login")).content.decode()


def test_the_page_lists_mine_newest_first_with_the_unread_marked(as_bob, bob, alice, moved):
    notifications.mark_read(bob.pk)
    services.offer_draw(game_id=moved.pk, player=alice)
    html = as_bob.get(reverse("notification_list")).content.decode()
    offer = html.index(f"alice offers a draw in {moved.public_id}.")
    move = html.index(f"alice played e4 in {moved.public_id}: your move.")
    assert offer < move
    assert html.count("notification-unread") == 1
    assert "Mark all as read" in html


def test_the_page_shows_nobody_else_s(as_carol, moved):
    html = as_carol.get(reverse("notification_list")).content.decode()
    assert moved.public_id not in html
    assert "No notifications yet" in html


@pytest.mark.parametrize("page", ["2", "999999999999999999999", "x", "-1", ""])
def test_any_page_number_shows_a_page(as_bob, bob, moved, page):
    for _ in range(NOTIFICATIONS_PER_PAGE + 1):
        notifications.notify(recipient=bob, kind=NotificationKind.LOW_TIME, game=moved)
    response = as_bob.get(reverse("notification_list"), {"page": page})
    assert response.status_code == 200
    assert "notification-link" in response.content.decode()


def test_opening_one_marks_it_read_and_leads_to_its_game(as_bob, bob, moved):
    told = Notification.objects.get(recipient=bob, kind="opponent_moved")
    response = as_bob.get(reverse("notification_open", args=[told.pk]))
    assert response.status_code == 302
    assert response["Location"] == reverse("game_detail", args=[moved.pk])
    told.refresh_from_db()
    assert told.read_at is not None
    # Opened again (a replayed link, the back button): still there, still read.
    first_read = told.read_at
    again = as_bob.get(reverse("notification_open", args=[told.pk]))
    assert again.status_code == 302
    told.refresh_from_db()
    assert told.read_at == first_read


def test_a_challenge_s_notification_leads_to_the_challenges(as_bob, alice, bob):
    services.challenge(challenger=alice, challenged=bob)
    told = Notification.objects.get(recipient=bob, kind="challenge_received")
    response = as_bob.get(reverse("notification_open", args=[told.pk]))
    assert response["Location"] == reverse("dashboard")


def test_somebody_else_s_notification_is_not_found_and_stays_unread(as_carol, as_alice, bob, moved):
    told = Notification.objects.get(recipient=bob, kind="opponent_moved")
    for client in (as_carol, as_alice):
        assert client.get(reverse("notification_open", args=[told.pk])).status_code == 404
    told.refresh_from_db()
    assert told.read_at is None


@pytest.mark.parametrize(
    "path",
    [
        "/notifications/0/",
        "/notifications/99999999999/",
        "/notifications/abc/",
        "/notifications/-1/",
        "/notifications/1.5/",
    ],
)
def test_bad_ids_are_not_found(as_bob, moved, path):
    assert as_bob.get(path).status_code == 404


def test_opening_the_game_marks_its_notifications_read(
    as_bob, alice, bob, carol, moved, start_game, play
):
    other = play(start_game(carol, bob), "d4")
    as_bob.get(reverse("game_detail", args=[moved.pk]))
    left = Notification.objects.filter(recipient=bob, read_at__isnull=True)
    assert {n.game_id for n in left if n.game_id} == {other.pk}


def test_opening_a_game_with_nothing_unread_writes_nothing(as_bob, bob, moved):
    as_bob.get(reverse("game_detail", args=[moved.pk]))  # reads them
    with CaptureQueriesContext(connection) as queries:
        assert as_bob.get(reverse("game_detail", args=[moved.pk])).status_code == 200
    writes = [q["sql"] for q in queries if "games_notification" in q["sql"]
              and q["sql"].lstrip().upper().startswith("UPDATE")]
    assert writes == []


def test_a_watcher_opening_the_game_marks_nothing(as_carol, bob, moved):
    before = unread_of(bob)
    as_carol.get(reverse("game_detail", args=[moved.pk]))
    assert unread_of(bob) == before


def test_mark_all_read_is_a_post(as_bob, bob, moved):
    assert as_bob.get(reverse("notification_read_all")).status_code == 405
    assert unread_of(bob) > 0
    response = as_bob.post(reverse("notification_read_all"))
    assert response.status_code == 302 and response["Location"] == reverse("notification_list")
    assert unread_of(bob) == 0
    # Again: nothing left to mark, no error.
    assert as_bob.post(reverse("notification_read_all")).status_code == 302


def test_mark_all_read_answers_json_when_asked(as_bob, bob, moved):
    response = as_bob.post(reverse("notification_read_all"), headers={"Accept": "application/json"})
    assert response.json()["unread"] == 0


def test_mark_all_read_needs_the_csrf_token(bob, moved):
    client = Client(enforce_csrf_checks=True)
    client.force_login(bob)
    assert client.post(reverse("notification_read_all")).status_code == 403
    assert unread_of(bob) > 0


def test_mark_all_read_marks_only_mine(as_alice, bob, moved):
    as_alice.post(reverse("notification_read_all"))
    assert unread_of(bob) > 0


@pytest.mark.parametrize(
    "name,args",
    [("notification_list", []), ("notification_open", [1]), ("notification_read_all", [])],
)
def test_logged_out_visitors_are_sent_to_log_in(client, name, args):
    response = (
        client.get(reverse(name, args=args))
        if name != "notification_read_all"
        else (client.post(reverse(name)))
    )
    assert response.status_code == 302 and response["Location"].startswith(reverse("login"))


def test_the_awaiting_count_carries_the_unread_count(as_bob, bob, moved):
    assert as_bob.get(reverse("awaiting")).json()["notifications"] == unread_of(bob)


def test_the_page_speaks_spanish(bob, moved):
    client = Client(headers={"Accept-Language": "es"})
    client.force_login(bob)
    html = client.get(reverse("notification_list")).content.decode()
    assert "Notificaciones" in html
    assert f"alice jugó e4 en {moved.public_id}: te toca." in html


# --------------------------------------------------------------------------- live count


async def next_of_type(comm, kind: str) -> dict:
    for _ in range(20):
        frame = await comm.receive_json_from(timeout=5)
        if frame["type"] == kind:
            return frame
    raise AssertionError(f"no {kind} frame")


@pytest.mark.django_db(transaction=True)
async def test_the_player_socket_carries_the_new_unread_count(alice, bob, start_game):
    game = await sync_to_async(start_game)(alice, bob)
    cookie = await sync_to_async(cookie_for)(bob)
    comm = communicator("/ws/player/", cookie)
    connected, _ = await comm.connect()
    assert connected
    assert (await comm.receive_json_from(timeout=5))["type"] == "hello"
    await sync_to_async(services.make_move)(game_id=game.pk, player=alice, move_number=1, move="e4")
    expected = await sync_to_async(unread_of)(bob)
    told = await sync_to_async(Notification.objects.get)(recipient=bob, kind="opponent_moved")
    assert await next_of_type(comm, "notifications") == {
        "type": "notifications",
        "unread": expected,
        "id": told.pk,
        "game": game.pk,
    }
    # Reading them all drops it to zero, live.
    await sync_to_async(notifications.mark_read)(bob.pk)
    assert await next_of_type(comm, "notifications") == {"type": "notifications", "unread": 0}
    await comm.disconnect()
