"""The WebSocket consumers through the real ASGI application: session authentication,
origin check, actions through the service layer, error frames, limits, and resync."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from asgiref.sync import SyncToAsync, sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.sessions.models import Session
from django.test import Client, TestCase
from django.urls import reverse
from django.utils import timezone

from accounts import selectors as account_selectors
from accounts import services as accounts_services
from ajedrez.asgi import application
from games import consumers, selectors, services, state
from games.events import game_group, game_players_group, player_group
from games.models import Game
from tests.conftest import PASSWORD

User = get_user_model()

pytestmark = pytest.mark.django_db(transaction=True)

ORIGIN = (b"origin", b"http://localhost")


def cookie_for(user) -> bytes:
    client = Client()
    client.force_login(user)
    name = settings.SESSION_COOKIE_NAME
    return f"{name}={client.cookies[name].value}".encode()


@pytest.fixture
def cookies(alice, bob, carol) -> dict[str, bytes]:
    return {u.username: cookie_for(u) for u in (alice, bob, carol)}


class Communicator(WebsocketCommunicator):
    """The test communicator with waits that a loaded machine does not overrun: its
    defaults (one second) failed handshakes under a full parallel run. A test that waits
    for nothing to come says so with its own short timeout."""

    async def connect(self, timeout: float = 10):  # type: ignore[override]
        return await super().connect(timeout)

    async def receive_from(self, timeout: float = 10):  # type: ignore[override]
        return await super().receive_from(timeout)

    async def receive_json_from(self, timeout: float = 10):  # type: ignore[override]
        return await super().receive_json_from(timeout)


def communicator(
    path: str, cookie: bytes | None, origin=ORIGIN, extra_headers=()
) -> WebsocketCommunicator:
    headers = list(extra_headers)
    if not any(name == b"host" for name, _ in headers):
        headers.insert(0, (b"host", b"localhost"))
    if origin:
        headers.append(origin)
    if cookie:
        headers.append((b"cookie", cookie))
    return Communicator(application, path, headers=headers)


async def open_game(
    game_id: int, cookie: bytes, extra_headers=()
) -> tuple[WebsocketCommunicator, dict]:
    """Connect to a game's socket and return it with the snapshot it sends first."""
    comm = communicator(f"/ws/games/{game_id}/", cookie, extra_headers=extra_headers)
    connected, _ = await comm.connect()
    assert connected
    snapshot = await comm.receive_json_from(timeout=5)
    assert snapshot["type"] == "snapshot"
    return comm, snapshot


async def receive_until(comm: WebsocketCommunicator, kind: str) -> dict:
    """The next frame of type ``kind`` (acks, events and spectator counts may interleave:
    each watcher that joins is counted on every page of the game)."""
    for _ in range(50):
        frame = await comm.receive_json_from(timeout=5)
        if frame["type"] == kind:
            return frame
    raise AssertionError(f"no {kind} frame")


async def nothing_but_spectator_counts(comm: WebsocketCommunicator) -> bool:
    """Whether the socket has nothing more to send but spectator counts."""
    while not await comm.receive_nothing(timeout=0.1):
        if (await comm.receive_json_from(timeout=1))["type"] != "watchers":
            return False
    return True


async def fresh(game: Game) -> Game:
    return await sync_to_async(Game.objects.get)(pk=game.pk)


async def move_count(game: Game) -> int:
    return await sync_to_async(game.moves.count)()


# --------------------------------------------------------------------------- connecting


async def test_player_gets_a_snapshot_on_connect(game, cookies):
    comm, snapshot = await open_game(game.pk, cookies["alice"])
    assert snapshot["version"] == game.version
    assert snapshot["game"]["white"] == "alice"
    assert snapshot["moves"] == []
    assert sorted(snapshot["dests"]["e2"]) == ["e3", "e4"]
    assert snapshot["claimable"] is None
    await comm.disconnect()


async def assert_closed_with(comm: WebsocketCommunicator, code: int) -> None:
    """The next thing the socket does is close with ``code`` (no frame before it)."""
    closed = await comm.receive_output(timeout=5)
    assert closed == {"type": "websocket.close", "code": code}


async def test_anonymous_game_socket_is_accepted_then_closed_with_4401(game):
    # Accepted first: a close before the accept is Daphne's HTTP 403 refusal, which a
    # browser reports as 1006 without the code the page needs.
    comm = communicator(f"/ws/games/{game.pk}/", None)
    connected, _ = await comm.connect()
    assert connected
    await assert_closed_with(comm, consumers.CLOSE_UNAUTHENTICATED)


async def test_anonymous_player_socket_is_accepted_then_closed_with_4401(db):
    comm = communicator("/ws/player/", None)
    connected, _ = await comm.connect()
    assert connected
    await assert_closed_with(comm, consumers.CLOSE_UNAUTHENTICATED)


@pytest.mark.parametrize(
    "origin",
    [
        b"http://evil.example",
        # The same host on another port or scheme is another site.
        b"http://localhost:9999",
        b"https://localhost",
        b"null",
        None,
    ],
)
async def test_socket_from_a_foreign_origin_is_rejected(game, cookies, origin):
    comm = communicator(
        f"/ws/games/{game.pk}/",
        cookies["alice"],
        origin=(b"origin", origin) if origin is not None else None,
    )
    connected, _ = await comm.connect()
    assert not connected


async def test_socket_from_the_sites_own_origin_with_a_port_is_accepted(game, cookies):
    comm = communicator(
        f"/ws/games/{game.pk}/",
        cookies["alice"],
        origin=(b"origin", b"http://localhost:8000"),
        extra_headers=[(b"host", b"localhost:8000")],
    )
    connected, _ = await comm.connect()
    assert connected
    await comm.disconnect()


async def test_socket_from_a_trusted_origin_is_accepted(game, cookies, settings):
    settings.CSRF_TRUSTED_ORIGINS = ["https://chess.example"]
    comm = communicator(
        f"/ws/games/{game.pk}/", cookies["alice"], origin=(b"origin", b"https://chess.example")
    )
    connected, _ = await comm.connect()
    assert connected
    await comm.disconnect()


async def test_socket_for_a_missing_game_is_accepted_then_closed_with_4404(game, cookies):
    comm = communicator(f"/ws/games/{game.pk + 999}/", cookies["alice"])
    connected, _ = await comm.connect()
    assert connected
    await assert_closed_with(comm, consumers.CLOSE_NOT_FOUND)


# --------------------------------------------------------------------------- moves


async def test_move_is_played_and_reaches_the_opponent(game, cookies):
    white, _ = await open_game(game.pk, cookies["alice"])
    black, _ = await open_game(game.pk, cookies["bob"])
    await white.send_json_to({"type": "move", "number": 1, "move": "e2e4"})
    ack = await receive_until(white, "ack")
    event = await receive_until(black, "event")
    assert ack == {"type": "ack", "action": "move", "version": game.version + 1}
    assert event["event"] == "move"
    assert event["version"] == game.version + 1
    assert event["move"]["san"] == "e4"
    assert event["game"]["turn"] == "black"
    assert "e7" in event["dests"]
    await white.disconnect()
    await black.disconnect()


async def test_move_in_san_is_accepted(game, cookies):
    white, _ = await open_game(game.pk, cookies["alice"])
    await white.send_json_to({"type": "move", "number": 1, "move": "Nf3"})
    await receive_until(white, "ack")
    assert (await fresh(game)).next_move_number == 2
    await white.disconnect()


async def test_illegal_move_gets_an_error_frame_and_changes_nothing(game, cookies):
    white, _ = await open_game(game.pk, cookies["alice"])
    await white.send_json_to({"type": "move", "number": 1, "move": "e2e5"})
    error = await receive_until(white, "error")
    assert error["code"] == "illegal_move"
    assert error["action"] == "move"
    stored = await fresh(game)
    assert (stored.version, stored.next_move_number) == (game.version, 1)
    assert await move_count(game) == 0
    await white.disconnect()


async def test_move_text_that_is_no_move_gets_an_error_frame(game, cookies):
    white, _ = await open_game(game.pk, cookies["alice"])
    await white.send_json_to({"type": "move", "number": 1, "move": "hello"})
    assert (await receive_until(white, "error"))["code"] == "invalid_move"
    assert await move_count(game) == 0
    await white.disconnect()


@pytest.mark.parametrize("text", ["--", "Z0", "0000", "@@@@"])
async def test_null_move_gets_an_invalid_move_frame_and_changes_nothing(game, cookies, text):
    white, _ = await open_game(game.pk, cookies["alice"])
    await white.send_json_to({"type": "move", "number": 1, "move": text})
    assert (await receive_until(white, "error"))["code"] == "invalid_move"
    stored = await fresh(game)
    assert (stored.version, stored.next_move_number) == (game.version, 1)
    assert await move_count(game) == 0
    await white.disconnect()


async def test_move_out_of_turn_gets_an_error_frame(game, cookies):
    black, _ = await open_game(game.pk, cookies["bob"])
    await black.send_json_to({"type": "move", "number": 1, "move": "e7e5"})
    assert (await receive_until(black, "error"))["code"] == "not_your_turn"
    assert await move_count(game) == 0
    await black.disconnect()


async def test_stale_move_number_gets_an_error_frame(game, cookies, play):
    await sync_to_async(play)(game, "e4", "e5")
    white, _ = await open_game(game.pk, cookies["alice"])
    await white.send_json_to({"type": "move", "number": 1, "move": "d2d4"})
    error = await receive_until(white, "error")
    assert error["code"] == "wrong_move_number"
    assert error["expected"] == 3
    assert await move_count(game) == 2
    await white.disconnect()


async def test_watcher_sees_moves_but_cannot_move(game, cookies):
    watcher, snapshot = await open_game(game.pk, cookies["carol"])
    assert snapshot["claimable"] is None
    await watcher.send_json_to({"type": "move", "number": 1, "move": "e2e4"})
    assert (await receive_until(watcher, "error"))["code"] == "not_a_player"
    assert await move_count(game) == 0
    white, _ = await open_game(game.pk, cookies["alice"])
    await white.send_json_to({"type": "move", "number": 1, "move": "e2e4"})
    assert (await receive_until(watcher, "event"))["move"]["uci"] == "e2e4"
    await watcher.disconnect()
    await white.disconnect()


@pytest.mark.parametrize("kind", ["draw_offer", "resign", "claim_draw"])
async def test_watcher_actions_get_an_error_frame(game, cookies, kind):
    watcher, _ = await open_game(game.pk, cookies["carol"])
    await watcher.send_json_to({"type": kind})
    assert (await receive_until(watcher, "error"))["code"] == "not_a_player"
    assert (await fresh(game)).status == Game.Status.ACTIVE
    await watcher.disconnect()


async def test_move_made_through_the_service_layer_reaches_the_socket(game, cookies, alice):
    black, _ = await open_game(game.pk, cookies["bob"])
    await sync_to_async(services.make_move)(
        game_id=game.pk, player=alice, move_number=1, move="d4"
    )
    event = await receive_until(black, "event")
    assert event["move"]["san"] == "d4"
    await black.disconnect()


# --------------------------------------------------------------------------- draws, resign


async def test_draw_offered_and_accepted_ends_the_game(game, cookies):
    white, _ = await open_game(game.pk, cookies["alice"])
    black, _ = await open_game(game.pk, cookies["bob"])
    await white.send_json_to({"type": "draw_offer"})
    offered = await receive_until(black, "event")
    assert offered["event"] == "draw_offered"
    assert offered["game"]["draw_offer_by"] == "white"
    await black.send_json_to({"type": "draw_answer", "accept": True})
    accepted = await receive_until(white, "event")
    while accepted["event"] != "draw_accepted":
        accepted = await receive_until(white, "event")
    assert accepted["game"]["result"] == "1/2-1/2"
    assert (await fresh(game)).termination == "agreement"
    await white.disconnect()
    await black.disconnect()


async def test_draw_declined_keeps_the_game_going(game, cookies, alice):
    await sync_to_async(services.offer_draw)(game_id=game.pk, player=alice)
    black, _ = await open_game(game.pk, cookies["bob"])
    await black.send_json_to({"type": "draw_answer", "accept": False})
    event = await receive_until(black, "event")
    assert event["event"] == "draw_declined"
    stored = await fresh(game)
    assert stored.status == Game.Status.ACTIVE
    assert stored.draw_offer_by == ""
    await black.disconnect()


async def test_second_draw_offer_gets_an_error_frame(game, cookies, alice):
    await sync_to_async(services.offer_draw)(game_id=game.pk, player=alice)
    white, _ = await open_game(game.pk, cookies["alice"])
    await white.send_json_to({"type": "draw_offer"})
    assert (await receive_until(white, "error"))["code"] == "draw_offer_pending"
    await white.disconnect()


async def test_answer_without_an_offer_gets_an_error_frame(game, cookies):
    black, _ = await open_game(game.pk, cookies["bob"])
    await black.send_json_to({"type": "draw_answer", "accept": True})
    assert (await receive_until(black, "error"))["code"] == "no_draw_offer"
    assert (await fresh(game)).status == Game.Status.ACTIVE
    await black.disconnect()


async def test_draw_answer_must_say_true_or_false(game, cookies, alice):
    await sync_to_async(services.offer_draw)(game_id=game.pk, player=alice)
    black, _ = await open_game(game.pk, cookies["bob"])
    await black.send_json_to({"type": "draw_answer", "accept": "yes"})
    error = await receive_until(black, "error")
    assert error["code"] == "invalid_message"
    assert (await fresh(game)).draw_offer_by == "white"
    await black.disconnect()


async def test_resign_ends_the_game_for_the_opponent(game, cookies):
    black, _ = await open_game(game.pk, cookies["bob"])
    white, _ = await open_game(game.pk, cookies["alice"])
    await black.send_json_to({"type": "resign"})
    event = await receive_until(white, "event")
    assert event["event"] == "resigned"
    assert event["game"]["result"] == "1-0"
    assert event["dests"] == {}
    await black.disconnect()
    await white.disconnect()


async def test_resign_after_the_end_gets_an_error_frame(game, cookies, alice):
    await sync_to_async(services.resign)(game_id=game.pk, player=alice)
    black, _ = await open_game(game.pk, cookies["bob"])
    await black.send_json_to({"type": "resign"})
    assert (await receive_until(black, "error"))["code"] == "game_finished"
    assert (await fresh(game)).result == "0-1"
    await black.disconnect()


async def test_claim_without_a_claimable_draw_gets_an_error_frame(game, cookies):
    white, _ = await open_game(game.pk, cookies["alice"])
    await white.send_json_to({"type": "claim_draw"})
    assert (await receive_until(white, "error"))["code"] == "nothing_to_claim"
    assert (await fresh(game)).status == Game.Status.ACTIVE
    await white.disconnect()


async def test_threefold_repetition_is_offered_and_claimed(game, cookies, play):
    await sync_to_async(play)(game, "Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1")
    white, _ = await open_game(game.pk, cookies["alice"])
    black, snapshot = await open_game(game.pk, cookies["bob"])
    assert snapshot["claimable"] is None  # the third occurrence is one move away
    await black.send_json_to({"type": "move", "number": 8, "move": "Ng8"})
    event = await receive_until(white, "event")
    assert event["claimable"] == "threefold_repetition"
    await white.send_json_to({"type": "claim_draw"})
    claimed = await receive_until(black, "event")
    while claimed["event"] != "draw_claimed":
        claimed = await receive_until(black, "event")
    assert claimed["game"]["termination"] == "threefold_repetition"
    await white.disconnect()
    await black.disconnect()


# --------------------------------------------------------------------------- bad input


async def test_malformed_json_gets_an_error_frame_and_the_socket_stays_up(game, cookies):
    white, _ = await open_game(game.pk, cookies["alice"])
    await white.send_to(text_data="{not json")
    assert (await white.receive_json_from())["code"] == "malformed_json"
    await white.send_json_to({"type": "move", "number": 1, "move": "e2e4"})
    assert (await receive_until(white, "ack"))["action"] == "move"
    await white.disconnect()


async def test_message_without_a_type_gets_an_error_frame(game, cookies):
    white, _ = await open_game(game.pk, cookies["alice"])
    await white.send_json_to(["move", "e2e4"])
    assert (await white.receive_json_from())["code"] == "missing_type"
    await white.disconnect()


async def test_unknown_message_type_gets_an_error_frame(game, cookies):
    white, _ = await open_game(game.pk, cookies["alice"])
    await white.send_json_to({"type": "teleport"})
    assert (await white.receive_json_from())["code"] == "unknown_type"
    await white.disconnect()


@pytest.mark.parametrize(
    "message, field",
    [
        ({"type": "move", "move": "e2e4"}, "number"),
        ({"type": "move", "number": "1", "move": "e2e4"}, "number"),
        ({"type": "move", "number": True, "move": "e2e4"}, "number"),
        ({"type": "move", "number": 1}, "move"),
        ({"type": "move", "number": 1, "move": 42}, "move"),
        ({"type": "sync"}, "version"),
    ],
)
async def test_missing_or_wrong_fields_get_an_error_frame(game, cookies, message, field):
    white, _ = await open_game(game.pk, cookies["alice"])
    await white.send_json_to(message)
    error = await white.receive_json_from()
    assert error["code"] == "invalid_message"
    assert field in error["message"]
    assert await move_count(game) == 0
    await white.disconnect()


async def test_binary_frame_gets_an_error_frame(game, cookies):
    white, _ = await open_game(game.pk, cookies["alice"])
    await white.send_to(bytes_data=b"\x00\x01")
    assert (await white.receive_json_from())["code"] == "not_text"
    await white.disconnect()


async def test_oversize_frame_closes_the_socket_with_an_error(game, cookies):
    white, _ = await open_game(game.pk, cookies["alice"])
    padding = "x" * consumers.MAX_FRAME_BYTES
    await white.send_to(text_data=json.dumps({"type": "sync", "version": 0, "pad": padding}))
    assert (await white.receive_json_from())["code"] == "frame_too_large"
    closed = await white.receive_output(timeout=5)
    assert closed == {"type": "websocket.close", "code": consumers.CLOSE_FRAME_TOO_LARGE}


async def test_frame_just_under_the_cap_is_accepted(game, cookies):
    white, _ = await open_game(game.pk, cookies["alice"])
    message = {"type": "sync", "version": 0, "pad": ""}
    message["pad"] = "x" * (consumers.MAX_FRAME_BYTES - len(json.dumps(message)))
    await white.send_to(text_data=json.dumps(message))
    assert (await white.receive_json_from())["type"] == "snapshot"
    await white.disconnect()


async def test_too_many_messages_close_the_socket(game, cookies):
    white, _ = await open_game(game.pk, cookies["alice"])
    for _ in range(consumers.RATE_LIMIT_MESSAGES):
        await white.send_json_to({"type": "teleport"})
    for _ in range(consumers.RATE_LIMIT_MESSAGES):
        assert (await white.receive_json_from())["code"] == "unknown_type"
    await white.send_json_to({"type": "teleport"})
    assert (await white.receive_json_from())["code"] == "rate_limited"
    closed = await white.receive_output(timeout=5)
    assert closed == {"type": "websocket.close", "code": consumers.CLOSE_RATE_LIMITED}


# --------------------------------------------------------------------------- language


async def test_error_frames_speak_the_language_the_browser_asks_for(game, cookies):
    white, _ = await open_game(
        game.pk, cookies["alice"], extra_headers=[(b"accept-language", b"es-ES,es;q=0.9")]
    )
    await white.send_json_to({"type": "move", "number": 1, "move": "e2e5"})
    assert (await receive_until(white, "error"))["message"] == (
        "Esa jugada no es legal en esta posición."
    )
    await white.disconnect()


async def test_error_frames_follow_the_language_chosen_on_the_site(game, cookies, settings):
    settings.LANGUAGE_CODE = "es"  # the site's default, overruled by the chosen language
    chosen = cookies["alice"] + f"; {settings.LANGUAGE_COOKIE_NAME}=en".encode()
    white, _ = await open_game(game.pk, chosen, extra_headers=[(b"accept-language", b"es")])
    await white.send_json_to({"type": "move", "number": 1, "move": "e2e5"})
    assert (await receive_until(white, "error"))["message"] == (
        "That move is not legal in this position."
    )
    await white.disconnect()


async def test_error_frames_without_a_language_choice_use_the_site_default(
    game, cookies, settings
):
    settings.LANGUAGE_CODE = "es"
    black, _ = await open_game(game.pk, cookies["bob"])
    await black.send_json_to({"type": "move", "number": 1, "move": "e7e5"})
    assert (await receive_until(black, "error"))["message"] == "No es tu turno."
    await black.disconnect()


# --------------------------------------------------------------------------- resync


async def test_sync_sends_the_moves_after_what_the_page_has(game, cookies, play):
    white, _ = await open_game(game.pk, cookies["alice"])
    await white.disconnect()
    # Moves made while the page was away.
    await sync_to_async(play)(game, "e4", "e5", "Nf3")
    white, snapshot = await open_game(game.pk, cookies["alice"])
    assert [m["san"] for m in snapshot["moves"]] == ["e4", "e5", "Nf3"]
    await white.send_json_to({"type": "sync", "version": snapshot["version"] - 2, "after": 1})
    partial = await receive_until(white, "snapshot")
    assert partial["after"] == 1
    assert [m["number"] for m in partial["moves"]] == [2, 3]
    assert partial["version"] == (await fresh(game)).version
    await white.disconnect()


async def test_events_carry_consecutive_versions(game, cookies, alice, bob):
    watcher, snapshot = await open_game(game.pk, cookies["carol"])
    await sync_to_async(services.make_move)(game_id=game.pk, player=alice, move_number=1, move="e4")
    await sync_to_async(services.make_move)(game_id=game.pk, player=bob, move_number=2, move="e5")
    first = await receive_until(watcher, "event")
    second = await receive_until(watcher, "event")
    start = snapshot["version"]
    assert [first["version"], second["version"]] == [start + 1, start + 2]
    await watcher.disconnect()


# --------------------------------------------------------------------------- player socket


async def test_player_socket_hears_challenges_and_game_events(alice, bob, cookies):
    comm = communicator("/ws/player/", cookies["alice"])
    connected, _ = await comm.connect()
    assert connected
    assert (await comm.receive_json_from())["type"] == "hello"
    challenge = await sync_to_async(services.challenge)(challenger=bob, challenged=alice)
    created = await receive_until(comm, "event")
    assert (created["kind"], created["event"]) == ("challenge", "challenge_created")
    # alice's bell: the challenge is news to her, and no longer once she has accepted it.
    assert (await receive_until(comm, "notifications"))["unread"] == 1
    await sync_to_async(services.accept_challenge)(
        challenge_id=challenge.pk, player=alice, colour="white"
    )
    frames = [await comm.receive_json_from(timeout=5) for _ in range(3)]
    assert {f.get("event") for f in frames if f["type"] == "event"} == {
        "challenge_accepted", "game_started"
    }
    assert [f["unread"] for f in frames if f["type"] == "notifications"] == [0]
    await comm.disconnect()


async def test_player_socket_does_not_hear_other_players(alice, bob, carol, cookies):
    comm = communicator("/ws/player/", cookies["carol"])
    await comm.connect()
    await comm.receive_json_from()
    await sync_to_async(services.challenge)(challenger=bob, challenged=alice)
    assert await comm.receive_nothing(timeout=0.3)
    await comm.disconnect()


async def test_player_socket_answers_unknown_messages_with_an_error(alice, cookies):
    comm = communicator("/ws/player/", cookies["alice"])
    await comm.connect()
    await comm.receive_json_from()
    await comm.send_to(text_data="nope")
    assert (await comm.receive_json_from())["code"] == "malformed_json"
    await comm.send_json_to({"type": "ping"})
    assert (await comm.receive_json_from())["type"] == "pong"
    await comm.disconnect()


async def test_reconnecting_page_gets_only_the_moves_it_lacks(game, cookies, play):
    await sync_to_async(play)(game, "e4", "e5", "Nf3")
    comm = communicator(f"/ws/games/{game.pk}/?after=2", cookies["bob"])
    connected, _ = await comm.connect()
    assert connected
    snapshot = await comm.receive_json_from(timeout=5)
    assert snapshot["after"] == 2
    assert [m["san"] for m in snapshot["moves"]] == ["Nf3"]
    await comm.disconnect()


async def test_unreadable_after_on_connect_sends_every_move(game, cookies, play):
    await sync_to_async(play)(game, "e4")
    comm = communicator(f"/ws/games/{game.pk}/?after=x", cookies["bob"])
    await comm.connect()
    snapshot = await comm.receive_json_from(timeout=5)
    assert (snapshot["after"], len(snapshot["moves"])) == (0, 1)
    await comm.disconnect()


# --------------------------------------------------------------------------- ended sessions


def logged_in(user) -> tuple[Client, bytes]:
    """A browser's session for ``user``: the client that can log it out, and its cookie."""
    client = Client()
    client.force_login(user)
    name = settings.SESSION_COOKIE_NAME
    return client, f"{name}={client.cookies[name].value}".encode()


def session_key_of(client: Client) -> str:
    return client.cookies[settings.SESSION_COOKIE_NAME].value


async def test_message_after_the_session_is_gone_closes_with_4401_and_changes_nothing(
    game, alice
):
    client, cookie = await sync_to_async(logged_in)(alice)
    white, _ = await open_game(game.pk, cookie)
    # Removed behind the socket's back (as a session purge would), with no logout
    # signal: only the check on the next message can notice.
    await sync_to_async(Session.objects.filter(session_key=session_key_of(client)).delete)()
    await white.send_json_to({"type": "move", "number": 1, "move": "e2e4"})
    await assert_closed_with(white, consumers.CLOSE_UNAUTHENTICATED)
    assert await move_count(game) == 0


async def test_message_after_the_session_expired_closes_with_4401(alice):
    client, cookie = await sync_to_async(logged_in)(alice)
    comm = communicator("/ws/player/", cookie)
    await comm.connect()
    assert (await comm.receive_json_from())["type"] == "hello"
    await sync_to_async(
        Session.objects.filter(session_key=session_key_of(client)).update
    )(expire_date=timezone.now() - dt.timedelta(seconds=1))
    await comm.send_json_to({"type": "ping"})
    await assert_closed_with(comm, consumers.CLOSE_UNAUTHENTICATED)


async def test_message_from_an_account_closed_behind_the_socket_closes_with_4401(
    game, alice
):
    _, cookie = await sync_to_async(logged_in)(alice)
    white, _ = await open_game(game.pk, cookie)
    # Deactivated without the service (so no event is pushed): the check must see it.
    await sync_to_async(User.objects.filter(pk=alice.pk).update)(is_active=False)
    await white.send_json_to({"type": "sync", "version": 0})
    await assert_closed_with(white, consumers.CLOSE_UNAUTHENTICATED)


async def test_logging_out_closes_that_sessions_sockets_at_once(game, alice):
    client, cookie = await sync_to_async(logged_in)(alice)
    _, other_cookie = await sync_to_async(logged_in)(alice)
    white, _ = await open_game(game.pk, cookie)
    dashboard = communicator("/ws/player/", cookie)
    await dashboard.connect()
    await dashboard.receive_json_from()
    elsewhere, _ = await open_game(game.pk, other_cookie)
    await sync_to_async(client.logout)()
    await assert_closed_with(white, consumers.CLOSE_UNAUTHENTICATED)
    await assert_closed_with(dashboard, consumers.CLOSE_UNAUTHENTICATED)
    # The same player logged in on another machine stays logged in there.
    await elsewhere.send_json_to({"type": "sync", "version": 0})
    assert (await elsewhere.receive_json_from(timeout=5))["type"] == "snapshot"
    await elsewhere.disconnect()


async def test_revoking_access_closes_the_players_sockets_and_ends_the_game_live(
    game, alice, bob, cookies, play
):
    # Both have moved: leaving now loses the game (before one's first move it aborts).
    await sync_to_async(play)(game, "e4", "e5")
    white, _ = await open_game(game.pk, cookies["alice"])
    black, _ = await open_game(game.pk, cookies["bob"])
    bobs_dashboard = communicator("/ws/player/", cookies["bob"])
    await bobs_dashboard.connect()
    await bobs_dashboard.receive_json_from()
    await sync_to_async(accounts_services.revoke_access)(player=bob)
    # The opponent sees the game end, and keeps the socket.
    ended = await receive_until(white, "event")
    assert ended["event"] == "abandoned"
    assert (ended["game"]["status"], ended["game"]["result"]) == ("finished", "1-0")
    # Bob's pages hear their game end, then are closed.
    assert (await receive_until(black, "event"))["event"] == "abandoned"
    await assert_closed_with(black, consumers.CLOSE_UNAUTHENTICATED)
    assert (await bobs_dashboard.receive_json_from(timeout=5))["event"] == "abandoned"
    await assert_closed_with(bobs_dashboard, consumers.CLOSE_UNAUTHENTICATED)
    await white.send_json_to({"type": "sync", "version": 0})
    assert (await receive_until(white, "snapshot"))["game"]["status"] == "finished"
    await white.disconnect()


def test_the_session_check_is_one_query(alice, django_assert_num_queries):
    client, _ = logged_in(alice)
    key, auth_hash = session_key_of(client), alice.get_session_auth_hash()
    with django_assert_num_queries(1):
        assert account_selectors.is_live_session(alice.pk, key, auth_hash) is True
    assert account_selectors.is_live_session(alice.pk, "no-such-session", auth_hash) is False
    assert account_selectors.is_live_session(alice.pk, key, "another-hash") is False
    User.objects.filter(pk=alice.pk).update(is_active=False)
    assert account_selectors.is_live_session(alice.pk, key, auth_hash) is False


# --------------------------------------------------------------------------- error boundary


async def test_a_bug_inside_a_service_is_logged_and_not_reported_as_bad_input(
    game, cookies, monkeypatch, caplog
):
    def broken_make_move(**kwargs):
        # What a programming error inside the service looks like from outside.
        raise TypeError("unsupported operand type(s) for +: 'int' and 'str'")

    monkeypatch.setattr(services, "make_move", broken_make_move)
    comm, _ = await open_game(game.pk, cookies["alice"])
    with caplog.at_level("ERROR", logger="games.consumers"):
        await comm.send_json_to({"type": "move", "number": 1, "move": "e4"})
        error = await receive_until(comm, "error")
    assert (error["code"], error["action"]) == ("internal_error", "move")
    assert "invalid" not in error["message"].lower()
    logged = [r for r in caplog.records if r.name == "games.consumers"]
    assert len(logged) == 1 and logged[0].exc_info[0] is TypeError
    # The socket stays open and usable: the next message is answered.
    await comm.send_json_to({"type": "sync", "version": 0})
    assert (await receive_until(comm, "snapshot"))["version"] == game.version
    await comm.disconnect()


@pytest.mark.parametrize(
    "message",
    [
        {"type": "move", "number": "1", "move": "e4"},
        {"type": "move", "number": 1.5, "move": "e4"},
        {"type": "move", "number": True, "move": "e4"},
        {"type": "move", "number": 10**30, "move": "e4"},
        {"type": "move", "number": 1, "move": ["e4"]},
        {"type": "move", "number": 1, "move": "e4" * 50},
        {"type": "move", "number": 1, "move": None},
        {"type": "draw_answer", "accept": "yes"},
    ],
)
async def test_a_malformed_message_is_refused_before_any_service_call(
    game, cookies, monkeypatch, message
):
    called = []
    monkeypatch.setattr(services, "make_move", lambda **kw: called.append(kw))
    monkeypatch.setattr(services, "answer_draw", lambda **kw: called.append(kw))
    comm, _ = await open_game(game.pk, cookies["alice"])
    await comm.send_json_to(message)
    error = await receive_until(comm, "error")
    assert error["code"] == "invalid_message"
    assert called == []
    await comm.disconnect()


# --------------------------------------------------------------------------- one event, all sockets


async def test_what_an_event_says_is_computed_once_for_all_sockets(
    game, cookies, play, monkeypatch
):
    # A position where a draw may be claimable (8 reversible plies), so the claim must be
    # read: once for the event, not once per player socket.
    game = await sync_to_async(play)(game, "Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1")
    sockets = [await open_game(game.pk, cookies[name]) for name in ("alice", "bob")]
    sockets += [await open_game(game.pk, cookies["carol"]) for _ in range(10)]
    bob = await sync_to_async(User.objects.get)(username="bob")
    calls = {"destinations": 0, "window": 0}

    def counted(name, real):
        def wrapper(*args, **kwargs):
            calls[name] += 1
            return real(*args, **kwargs)

        return wrapper

    # Where the event's message looks it up (games.state.frames builds the message).
    monkeypatch.setattr(
        "games.state.frames.destinations", counted("destinations", state.destinations)
    )
    monkeypatch.setattr(
        selectors, "repetition_window", counted("window", selectors.repetition_window)
    )
    await sync_to_async(services.make_move)(game_id=game.pk, player=bob, move_number=8, move="Ng8")
    frames = [await receive_until(comm, "event") for comm, _ in sockets]

    # Twelve sockets, one computation: the move itself needs no window yet (fivefold
    # needs 16 reversible plies); the event reads it once to tell what can be claimed.
    assert calls == {"destinations": 1, "window": 1}
    assert [f["claimable"] for f in frames[:2]] == ["threefold_repetition"] * 2
    assert {f["claimable"] for f in frames[2:]} == {None}
    assert {f["version"] for f in frames} == {game.version + 1}
    assert all(f["dests"] == frames[0]["dests"] for f in frames)
    for comm, _ in sockets:
        await comm.disconnect()


# --------------------------------------------------------------------------- old sessions


def change_password_elsewhere(user, new_password: str = "a-new-password-42") -> None:
    """Change ``user``'s password from another browser, through the site's own page."""
    other, _ = logged_in(user)
    other.force_login(user)
    response = other.post(
        reverse("password_change"),
        {"old_password": PASSWORD, "new_password1": new_password, "new_password2": new_password},
    )
    assert response.status_code == 302, response.content


async def test_a_socket_of_a_session_from_before_a_password_change_is_closed(game, alice):
    _client, cookie = await sync_to_async(logged_in)(alice)
    white, _ = await open_game(game.pk, cookie)
    await sync_to_async(change_password_elsewhere)(alice)
    await white.send_json_to({"type": "move", "number": 1, "move": "e2e4"})
    await assert_closed_with(white, consumers.CLOSE_UNAUTHENTICATED)
    assert await move_count(game) == 0


def test_revoking_access_ends_the_accounts_sessions_for_good(alice, admin_user):
    client, _cookie = logged_in(alice)
    assert client.get(reverse("dashboard")).status_code == 200
    with TestCase.captureOnCommitCallbacks(execute=True):
        accounts_services.revoke_access(player=alice, by=admin_user)
    accounts_services.restore_access(player=alice, by=admin_user)
    # The cookie issued before the revocation does not log the reopened account in.
    response = client.get(reverse("dashboard"))
    assert response.status_code == 302 and reverse("login") in response["Location"]
    assert not Session.objects.filter(session_key=session_key_of(client)).exists()


async def test_relaying_an_event_costs_no_thread_hop_on_any_socket(
    game, cookies, alice, bob, monkeypatch
):
    # A hop to the database thread per socket and event (channels closes stale
    # connections before every handler) was most of a broadcast to a thousand watchers.
    sockets = [await open_game(game.pk, cookies[name]) for name in ("alice", "bob")]
    sockets += [await open_game(game.pk, cookies["carol"]) for _ in range(5)]
    dashboards = []
    for name in ("alice", "bob"):
        dashboard = communicator("/ws/player/", cookies[name])
        await dashboard.connect()
        assert (await dashboard.receive_json_from(timeout=5))["type"] == "hello"
        dashboards.append(dashboard)
    moved = await sync_to_async(services.make_move)(
        game_id=game.pk, player=alice, move_number=1, move="e4"
    )
    for comm, _ in sockets:
        await receive_until(comm, "event")
    for dashboard in dashboards:
        await receive_until(dashboard, "event")
    # The next event goes straight to the layer, so that only its delivery is counted.
    message = await sync_to_async(lambda: state.event_message(
        Game.objects.get(pk=moved.pk), "draw_offered"
    ))()
    hops = []
    real_call = SyncToAsync.__call__

    async def counted(self, *args, **kwargs):
        hops.append(getattr(self.func, "__name__", repr(self.func)))
        return await real_call(self, *args, **kwargs)

    monkeypatch.setattr(SyncToAsync, "__call__", counted)
    layer = get_channel_layer()
    groups = [game_players_group(game.pk), player_group(alice.pk), player_group(bob.pk)]
    for group in [*groups, game_group(game.pk)]:
        await layer.group_send(group, message)
    for comm, _ in sockets:
        assert (await receive_until(comm, "event"))["event"] == "draw_offered"
    for dashboard in dashboards:
        assert (await receive_until(dashboard, "event"))["event"] == "draw_offered"
    assert hops == []
    for comm, _ in sockets:
        await comm.disconnect()
    for dashboard in dashboards:
        await dashboard.disconnect()


def noting_event_frames(name: str, log: list[str]):
    """The project's application, noting in ``log`` each event frame a socket sends."""

    async def app(scope, receive, send):
        async def send_and_note(message):
            text = message.get("text")
            if message["type"] == "websocket.send" and text and json.loads(text)["type"] == "event":
                log.append(name)
            await send(message)

        await application(scope, receive, send_and_note)

    return app


async def test_the_players_pages_hear_an_event_before_any_watchers_page(game, cookies, alice):
    log: list[str] = []
    sockets = []
    # Watchers open their pages first: arrival follows who the event is for, not who
    # joined first.
    watcher, white, black = (
        ("watcher", cookies["carol"]), ("alice", cookies["alice"]), ("bob", cookies["bob"])
    )
    pages = [watcher, watcher, white, watcher, watcher, black]
    for name, cookie in pages:
        comm = WebsocketCommunicator(
            noting_event_frames(name, log),
            f"/ws/games/{game.pk}/",
            headers=[(b"host", b"localhost"), ORIGIN, (b"cookie", cookie)],
        )
        assert (await comm.connect())[0]
        assert (await comm.receive_json_from(timeout=5))["type"] == "snapshot"
        sockets.append(comm)
    await sync_to_async(services.make_move)(
        game_id=game.pk, player=alice, move_number=1, move="e4"
    )
    for comm in sockets:
        assert (await receive_until(comm, "event"))["version"] == game.version + 1
    # Each page once (a player's page is not also a watcher's), players first.
    assert sorted(log[:2]) == ["alice", "bob"]
    assert log[2:] == ["watcher"] * 4
    for comm in sockets:
        assert await nothing_but_spectator_counts(comm)
        await comm.disconnect()


async def test_each_kind_of_socket_sends_the_frame_the_read_model_made_for_it(
    game, cookies, play
):
    # A claimable draw after the move: players see it, watchers and dashboards do not.
    game = await sync_to_async(play)(game, "Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1")
    white, _ = await open_game(game.pk, cookies["alice"])
    watcher, _ = await open_game(game.pk, cookies["carol"])
    dashboard = communicator("/ws/player/", cookies["alice"])
    await dashboard.connect()
    await dashboard.receive_json_from(timeout=5)
    bob = await sync_to_async(User.objects.get)(username="bob")
    await sync_to_async(services.make_move)(game_id=game.pk, player=bob, move_number=8, move="Ng8")
    stored = await fresh(game)
    move = await sync_to_async(lambda: stored.moves.get(number=8))()
    content = {
        k: v
        for k, v in (await sync_to_async(state.event_message)(
            stored, "move", move=state.move_state(move), replied=False
        )).items()
        if k != "frames"
    }
    assert await receive_until(white, "event") == state.frame_for(content, is_player=True)
    assert await receive_until(watcher, "event") == state.frame_for(content, is_player=False)
    assert await receive_until(dashboard, "event") == state.dashboard_frame(content, kind="game")
    assert state.frame_for(content, is_player=True)["claimable"] == "threefold_repetition"
    assert state.frame_for(content, is_player=False)["claimable"] is None
    for comm in (white, watcher, dashboard):
        await comm.disconnect()
