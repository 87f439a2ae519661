"""lichess's open challenge (``POST /api/challenge/open``) and correspondence seek
(``POST /api/board/seek``): each makes a seek in the site's lobby; bad input is a 400
with lichess's JSON error and stores nothing. berserk's own calls, against a served
site, are at the end: the maker's event stream gets ``gameStart`` when someone joins."""

from __future__ import annotations

import json
import re

import berserk
import pytest
import requests
from berserk.exceptions import ResponseError

from accounts import tokens
from games.models import Game, Seek
from tests.api.test_berserk import (  # noqa: F401
    Lines,
    client_of,
    espol_player,
    of_type,
    served,
)
from tests.conftest import PASSWORD


def post_json(client, path: str, body: object):
    return client.post(path, json.dumps(body), content_type="application/json")


# --------------------------------------------------------------------------- open


def test_an_open_challenge_answers_its_join_addresses(alice, api):
    response = api(alice, "challenge:write").post(
        "/api/challenge/open", {"days": "3", "rated": "true", "name": "Café"}
    )
    assert response.status_code == 200, response.json()
    body = response.json()
    made = Seek.objects.get()
    assert body["id"] == made.short_id and body["status"] == "created"
    assert body["timeControl"] == {"type": "correspondence", "daysPerTurn": 3}
    assert body["urlWhite"].endswith(f"/seeks/{made.short_id}/?color=white")
    assert body["urlBlack"].endswith(f"/seeks/{made.short_id}/?color=black")
    assert (body["name"], body["rated"], body["challenger"]["id"]) == ("Café", True, "alice")
    assert (made.days_per_move, made.rated, made.name, made.colour) == (3, True, "Café", "random")


def test_an_open_challenge_without_days_has_no_time_limit(alice, api):
    response = post_json(api(alice, "challenge:write"), "/api/challenge/open",
                         {"rated": None, "days": None, "name": None})
    assert response.status_code == 200, response.json()
    assert response.json()["timeControl"] == {"type": "unlimited"}
    assert Seek.objects.get().rated is False


@pytest.mark.parametrize(
    "fields, words",
    [
        ({"clock.limit": "300", "clock.increment": "2"}, "Real-time"),
        ({"days": "4"}, "days per move"),
        ({"days": "-1"}, "days"),
        ({"days": "tres"}, "days"),
        ({"days": "٣"}, "days"),
        ({"days": "9" * 40}, "days"),
        ({"rated": "maybe"}, "rated"),
        ({"name": "x" * 101}, "100 characters"),
        ({"variant": "chess960"}, "standard"),
        ({"fen": "8/8/8/8/8/8/8/K1k5 w - - 0 1"}, "position"),
        ({"users": "alice,bob"}, "users"),
    ],
)
def test_bad_open_challenges_are_refused(alice, api, fields, words):
    response = api(alice, "challenge:write").post("/api/challenge/open", fields)
    assert response.status_code == 400
    assert words in response.json()["error"]
    assert not Seek.objects.exists()


def test_an_open_challenge_s_body_of_the_wrong_type_is_refused(alice, api):
    response = post_json(api(alice, "challenge:write"), "/api/challenge/open", {"days": [3]})
    assert response.status_code == 400
    assert not Seek.objects.exists()


def test_an_open_challenge_needs_a_writing_scope(alice, api):
    response = api(alice, "challenge:read").post("/api/challenge/open", {"days": "3"})
    assert response.status_code in (401, 403)
    assert not Seek.objects.exists()


def test_the_maker_cancels_an_open_challenge_by_its_id(alice, api):
    client = api(alice, "challenge:write")
    made = client.post("/api/challenge/open", {"days": "3"}).json()
    assert client.post(f"/api/challenge/{made['id']}/cancel").json() == {"ok": True}
    assert Seek.objects.get().status == Seek.Status.CANCELLED


@pytest.mark.parametrize("seek_id", ["nope", "x" * 300, "ab\x00cdefg", "ñandú123"])
def test_cancelling_an_unknown_open_challenge_is_404(alice, api, seek_id):
    response = api(alice, "challenge:write").post(f"/api/challenge/{seek_id}/cancel")
    assert response.status_code == 404


def test_someone_else_cannot_cancel_an_open_challenge(alice, bob, api):
    made = api(alice, "challenge:write").post("/api/challenge/open", {"days": "3"}).json()
    response = api(bob, "challenge:write").post(f"/api/challenge/{made['id']}/cancel")
    assert response.status_code == 404
    assert Seek.objects.get().status == Seek.Status.OPEN


# --------------------------------------------------------------------------- seek


def test_a_correspondence_seek_answers_its_id_at_once(alice, api):
    response = api(alice, "board:play").post(
        "/api/board/seek",
        {"days": "7", "color": "white", "rated": "true", "ratingRange": "1500-1800"},
    )
    assert response.status_code == 200, response.json()
    made = Seek.objects.get()
    assert response.json() == {"id": made.short_id}
    assert (made.days_per_move, made.colour, made.rated) == (7, "white", True)
    assert (made.rating_min, made.rating_max) == (1500, 1800)


@pytest.mark.parametrize(
    "fields, words",
    [
        ({"time": "15", "increment": "15"}, "Real-time"),
        ({"time": "15", "increment": "15", "days": "3"}, "Real-time"),
        ({}, "days is required"),
        ({"days": ""}, "days is required"),
        ({"days": "6"}, "days per move"),
        ({"days": "3", "color": "green"}, "color"),
        ({"days": "3", "color": "WHITE"}, "color"),
        ({"days": "3", "rated": "2"}, "rated"),
        ({"days": "3", "ratingRange": "1500"}, "ratingRange"),
        ({"days": "3", "ratingRange": "1800-1500"}, "rating range"),
        ({"days": "3", "ratingRange": "1500-99999"}, "ratingRange"),
        ({"days": "3", "ratingRange": "-100-1500"}, "ratingRange"),
        ({"days": "3", "ratingRange": "١٥٠٠-١٨٠٠"}, "ratingRange"),
        ({"days": "3", "ratingRange": "1500-4500"}, "rating range"),
        ({"days": "3", "variant": "atomic"}, "standard"),
    ],
)
def test_bad_seeks_are_refused(alice, api, fields, words):
    response = api(alice, "board:play").post("/api/board/seek", fields)
    assert response.status_code == 400
    assert words in response.json()["error"]
    assert not Seek.objects.exists()


def test_a_seek_needs_the_board_scope(alice, api):
    response = api(alice, "challenge:write").post("/api/board/seek", {"days": "3"})
    assert response.status_code in (401, 403)
    assert not Seek.objects.exists()


def test_the_cap_on_open_seeks_holds_at_the_api(alice, api, settings):
    settings.SEEKS_PER_PLAYER = 1
    client = api(alice, "board:play")
    assert client.post("/api/board/seek", {"days": "3"}).status_code == 200
    refused = client.post("/api/board/seek", {"days": "3"})
    assert refused.status_code == 400 and "open challenge" in refused.json()["error"]


def test_a_seek_made_through_the_api_is_taken_on_the_web(alice, bob, api, client):
    made = api(alice, "board:play").post("/api/board/seek", {"days": "2", "color": "black"})
    seek_id = made.json()["id"]
    client.force_login(bob)
    assert seek_id in client.get("/seeks/").content.decode()
    response = client.post(f"/seeks/{seek_id}/accept/")
    game = Game.objects.get(short_id=seek_id)
    assert response.status_code == 302 and response["Location"].endswith(f"/games/{game.pk}/")
    assert (game.white, game.black) == (bob, alice)


# --------------------------------------------------------------------------- berserk


def join_in_the_browser(base: str, player, address: str) -> requests.Response:
    """``player`` logs in to the served site and takes the seek at ``address`` (its
    join page, as the API gave it) with the page's own form."""
    browser = requests.Session()
    token = "s" * 32
    browser.cookies.set("csrftoken", token)
    logged = browser.post(
        f"{base}/accounts/login/",
        data={"username": player.username, "password": PASSWORD, "csrfmiddlewaretoken": token},
        headers={"Origin": base, "Referer": f"{base}/accounts/login/"},
        timeout=10,
    )
    assert "sessionid" in browser.cookies, logged.status_code
    page = browser.get(address, timeout=10)
    form = re.search(r'<form method="post" action="([^"]+accept/)">', page.text)
    assert form is not None, page.text[:500]
    colour = re.search(r'name="colour" value="(\w+)"', page.text)
    # Logging in gave the session a new CSRF token: the page's form carries it.
    csrf = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text)
    assert csrf is not None
    return browser.post(
        base + form[1],
        data={"csrfmiddlewaretoken": csrf[1], "colour": colour[1] if colour else ""},
        headers={"Origin": base, "Referer": address},
        timeout=10,
    )


def test_berserk_s_open_challenge_then_a_player_joins(
    client_of, served, alice, espol_player  # noqa: F811
):
    bob = espol_player("bob")
    alice_api = client_of(alice)
    events = Lines(alice_api.board.stream_incoming_events())
    made = alice_api.challenges.create_open(rated=False, name="Friday")
    # The link reaches the server that gave it, on its own port.
    assert made["urlWhite"] == f"{served.url}/seeks/{made['id']}/?color=white"

    joined = join_in_the_browser(served.url, bob, made["urlWhite"])
    assert joined.url.endswith(f"/games/{Game.objects.get(short_id=made['id']).pk}/")

    start = events.until(of_type("gameStart"))["game"]
    assert (start["gameId"], start["color"]) == (made["id"], "black")


def test_berserk_s_correspondence_seek_then_a_player_joins(
    client_of, served, alice, espol_player  # noqa: F811
):
    bob = espol_player("bob")
    alice_api = client_of(alice)
    events = Lines(alice_api.board.stream_incoming_events())
    _token, text = tokens.create_token(player=alice, description="seek", scopes=["board:play"])
    session = berserk.TokenSession(text)
    answer = session.post(f"{served.url}/api/board/seek", data={"days": 3, "color": "white"})
    assert answer.status_code == 200
    seek_id = answer.json()["id"]

    join_in_the_browser(served.url, bob, f"{served.url}/seeks/{seek_id}/")

    start = events.until(of_type("gameStart"))["game"]
    assert (start["gameId"], start["color"]) == (seek_id, "white")


def test_berserk_s_real_time_seek_is_refused(client_of, alice):  # noqa: F811
    with pytest.raises(ResponseError) as refused:
        client_of(alice).board.seek(time=15, increment=15)
    assert refused.value.status_code == 400
    assert not Seek.objects.exists()
