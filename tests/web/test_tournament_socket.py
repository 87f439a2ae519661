"""An event's page hears over its socket (``ws/tournaments/<id>/``) when its tables
change, and fetches them again; messages sent wrong get an error frame."""

from __future__ import annotations

import json

import pytest
from asgiref.sync import sync_to_async

from games.models import Game
from tests.games.tournaments import end_game, join_all, make_event
from tests.web.test_consumers import communicator, cookie_for, receive_until

pytestmark = pytest.mark.django_db(transaction=True)


def _running_event(players):
    event = make_event(max_players=3)
    join_all(event, players)
    return event


async def test_the_event_page_hears_when_a_game_ends(alice, bob, carol):
    event = await sync_to_async(_running_event)([alice, bob, carol])
    page = communicator(f"/ws/tournaments/{event.pk}/", await sync_to_async(cookie_for)(carol))
    connected, _ = await page.connect()
    assert connected
    assert await page.receive_json_from(timeout=5) == {"type": "hello", "tournament": event.pk}
    game = await sync_to_async(lambda: Game.objects.filter(tournament=event).first())()
    await sync_to_async(end_game)(game, 0.5)
    frame = await receive_until(page, "event")
    assert frame == {"type": "event", "event": "table_changed", "tournament": event.pk}
    await page.disconnect()


async def test_another_events_page_hears_nothing(alice, bob, carol):
    event = await sync_to_async(_running_event)([alice, bob, carol])
    other = await sync_to_async(make_event)(name="Other Cup")
    page = communicator(f"/ws/tournaments/{other.pk}/", await sync_to_async(cookie_for)(carol))
    await page.connect()
    await page.receive_json_from(timeout=5)
    game = await sync_to_async(lambda: Game.objects.filter(tournament=event).first())()
    await sync_to_async(end_game)(game, 1)
    assert await page.receive_nothing(timeout=0.3)
    await page.disconnect()


@pytest.mark.parametrize("path", ["/ws/tournaments/0/", "/ws/tournaments/99999999999999999999/"])
async def test_an_unknown_event_is_refused(carol, path):
    page = communicator(path, await sync_to_async(cookie_for)(carol))
    connected, _ = await page.connect()
    assert connected
    assert (await page.receive_output(timeout=5))["code"] == 4404


async def test_a_logged_out_visitor_is_refused():
    event = await sync_to_async(make_event)()
    page = communicator(f"/ws/tournaments/{event.pk}/", None)
    await page.connect()
    assert (await page.receive_output(timeout=5))["code"] == 4401


@pytest.mark.parametrize(
    ("sent", "code"),
    [
        (json.dumps({"type": "move", "move": "e4"}), "unknown_type"),
        (json.dumps({"type": "ñandú" * 100}), "unknown_type"),
        (json.dumps({"type": None}), "missing_type"),
        (json.dumps([]), "missing_type"),
        (" ", "malformed_json"),
        ("{" * 3000, "malformed_json"),
    ],
)
async def test_messages_sent_wrong_get_an_error_frame(carol, sent, code):
    event = await sync_to_async(make_event)()
    page = communicator(f"/ws/tournaments/{event.pk}/", await sync_to_async(cookie_for)(carol))
    await page.connect()
    await page.receive_json_from(timeout=5)
    await page.send_to(text_data=sent)
    frame = await page.receive_json_from(timeout=5)
    assert (frame["type"], frame["code"]) == ("error", code)
    # The socket goes on serving.
    await page.send_json_to({"type": "ping"})
    assert await page.receive_json_from(timeout=5) == {"type": "pong"}
    await page.disconnect()


async def test_a_frame_too_large_closes_the_socket(carol):
    event = await sync_to_async(make_event)()
    page = communicator(f"/ws/tournaments/{event.pk}/", await sync_to_async(cookie_for)(carol))
    await page.connect()
    await page.receive_json_from(timeout=5)
    await page.send_to(text_data=json.dumps({"type": "ping", "x": "a" * 10000}))
    assert (await page.receive_json_from(timeout=5))["code"] == "frame_too_large"
    assert (await page.receive_output(timeout=5))["code"] == 4413


async def test_a_players_pages_hear_once_that_a_round_started(alice, bob, carol, make_player):
    dave = await sync_to_async(make_player)("dave")
    event = await sync_to_async(make_event)(max_players=4, cycles=2)
    await sync_to_async(join_all)(event, [bob, carol, dave])
    dashboard = communicator("/ws/player/", await sync_to_async(cookie_for)(alice))
    await dashboard.connect()
    assert (await dashboard.receive_json_from(timeout=5))["type"] == "hello"
    await sync_to_async(join_all)(event, [alice])  # the last place: it starts
    frame = await receive_until(dashboard, "event")
    assert frame == {"type": "event", "event": "round_started", "tournament": event.pk}
    # Six games of hers started (two per opponent): one event for them all.
    assert await sync_to_async(
        lambda: Game.objects.filter(tournament=event).of_player(alice).count()
    )() == 6
    while not await dashboard.receive_nothing(timeout=0.3):
        assert (await dashboard.receive_json_from(timeout=1))["type"] != "event"
    await dashboard.disconnect()
