"""The conditional moves' JSON door on the game page, and who sees which lines."""

from __future__ import annotations

import json

import pytest
from django.test import Client
from django.urls import reverse

from games import services
from games.models import ConditionalLines, Game
from tests.web.test_game_views import page_data


def url(game: Game, name: str = "game_conditional") -> str:
    return reverse(name, args=[game.pk])


def post(client: Client, game: Game, body: object, **extra) -> object:
    data = body if isinstance(body, (bytes, str)) else json.dumps(body)
    return client.post(url(game), data=data, content_type="application/json", **extra)


@pytest.fixture
def after_e4(game, play) -> Game:
    return play(game, "e4")


def stored(game: Game) -> list | None:
    found = ConditionalLines.objects.filter(game=game).first()
    return None if found is None else found.lines


def test_the_owner_sets_reads_and_clears_their_lines(as_alice, after_e4):
    answer = post(as_alice, after_e4, {"move_number": 2, "lines": [["e5", "Nf3", "Nc6", "Bb5"]]})
    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert body["type"] == "conditional" and body["move_number"] == 2
    assert [[m["san"] for m in line] for line in body["lines"]] == [["e5", "Nf3", "Nc6", "Bb5"]]
    assert body["lines"][0][0]["uci"] == "e7e5"
    assert as_alice.get(url(after_e4)).json() == body
    cleared = as_alice.delete(url(after_e4))
    assert cleared.status_code == 200 and cleared.json()["lines"] == []
    assert stored(after_e4) is None


def test_the_reply_shows_in_the_owners_lines_afterwards(as_alice, after_e4, bob):
    post(as_alice, after_e4, {"move_number": 2, "lines": [["e5", "Nf3", "Nc6", "Bb5"]]})
    services.make_move(game_id=after_e4.pk, player=bob, move_number=2, move="e5")
    body = as_alice.get(url(after_e4)).json()
    assert body["move_number"] == 4
    assert [[m["san"] for m in line] for line in body["lines"]] == [["Nc6", "Bb5"]]


@pytest.mark.parametrize(
    ("body", "code", "status"),
    [
        (b"", "invalid_body", 400),
        (b"{not json", "invalid_body", 400),
        (b"[" * 8000 + b"]" * 8000, "invalid_body", 400),
        (b'{"move_number": 2, "lines": ' + b"[" * 8000 + b"]" * 8000 + b"}", "invalid_body", 400),
        (b"\xff\xfe\x00", "invalid_body", 400),
        ("[]", "invalid_body", 400),
        ("null", "invalid_body", 400),
        ('"e5 Nf3"', "invalid_body", 400),
        ({"lines": [["e5", "Nf3"]]}, "invalid_body", 400),
        ({"move_number": 2}, "invalid_body", 400),
        ({"move_number": 2, "lines": [], "extra": 1}, "invalid_body", 400),
        ({"move_number": "2", "lines": [["e5", "Nf3"]]}, "invalid_body", 400),
        ({"move_number": 2.0, "lines": [["e5", "Nf3"]]}, "invalid_body", 400),
        ({"move_number": True, "lines": [["e5", "Nf3"]]}, "invalid_body", 400),
        ({"move_number": 0, "lines": [["e5", "Nf3"]]}, "invalid_body", 400),
        ({"move_number": -2, "lines": [["e5", "Nf3"]]}, "invalid_body", 400),
        ({"move_number": None, "lines": [["e5", "Nf3"]]}, "invalid_body", 400),
        ({"move_number": 2, "lines": None}, "conditional_invalid", 422),
        ({"move_number": 2, "lines": {"e5": "Nf3"}}, "conditional_invalid", 422),
        ({"move_number": 2, "lines": [[["e5"], "Nf3"]]}, "conditional_invalid", 422),
        ({"move_number": 2, "lines": [[{"san": "e5"}, "Nf3"]]}, "conditional_invalid", 422),
        ({"move_number": 2, "lines": [["e5", "Nf4"]]}, "conditional_invalid", 422),
        ({"move_number": 2, "lines": [["e5"]]}, "conditional_invalid", 422),
        ({"move_number": 2, "lines": [["e5", "Nf3"], ["e5", "Nc3"]]}, "conditional_invalid", 422),
        ({"move_number": 2, "lines": [["é5", "Nf3"]]}, "conditional_invalid", 422),
        ({"move_number": 3, "lines": [["e5", "Nf3"]]}, "wrong_move_number", 409),
        ({"move_number": 10**30, "lines": [["e5", "Nf3"]]}, "wrong_move_number", 409),
        ({"move_number": 2, "lines": [["e5", "Nf3"]] * 5000}, "invalid_body", 400),
    ],
)
def test_every_malformed_request_is_refused_and_changes_nothing(
    as_alice, after_e4, body, code, status
):
    post(as_alice, after_e4, {"move_number": 2, "lines": [["d5", "exd5"]]})
    answer = post(as_alice, after_e4, body)
    assert answer.status_code == status, answer.content
    assert answer.json()["code"] == code
    assert answer.json()["message"]
    assert stored(after_e4) == [["d7d5", "e4d5"]]


def test_the_error_says_which_line_and_why(as_alice, after_e4):
    answer = post(as_alice, after_e4, {"move_number": 2, "lines": [["e5", "Nf3"], ["c5", "Ke3"]]})
    assert answer.json()["message"] == "Line 2: “Ke3” is not a legal move there."


def test_refused_on_the_owners_own_turn(as_alice, game):
    answer = post(as_alice, game, {"move_number": 1, "lines": [["e4", "e5"]]})
    assert (answer.status_code, answer.json()["code"]) == (409, "conditional_on_your_turn")


def test_refused_in_spanish_for_a_spanish_reader(as_alice, after_e4):
    answer = post(
        as_alice,
        after_e4,
        {"move_number": 2, "lines": [["e5", "Ke3"]]},
        HTTP_ACCEPT_LANGUAGE="es",
    )
    assert answer.json()["message"] == "Línea 1: «Ke3» no es una jugada legal ahí."


@pytest.mark.parametrize("method", ["get", "post", "delete"])
def test_a_watcher_is_refused_every_way(as_carol, after_e4, as_alice, method):
    post(as_alice, after_e4, {"move_number": 2, "lines": [["e5", "Nf3"]]})
    if method == "post":
        answer = post(as_carol, after_e4, {"move_number": 2, "lines": [["e5", "Nf3"]]})
    else:
        answer = getattr(as_carol, method)(url(after_e4))
    assert (answer.status_code, answer.json()["code"]) == (403, "not_a_player")
    assert "e7e5" not in answer.content.decode()
    assert stored(after_e4) == [["e7e5", "g1f3"]]


def test_the_opponent_reads_only_their_own_lines(as_alice, as_bob, after_e4):
    post(as_alice, after_e4, {"move_number": 2, "lines": [["e5", "Nf3"]]})
    answer = as_bob.get(url(after_e4))
    assert answer.status_code == 200 and answer.json()["lines"] == []
    # Bob clearing his (none) leaves alice's alone.
    assert as_bob.delete(url(after_e4)).status_code == 200
    assert stored(after_e4) == [["e7e5", "g1f3"]]


@pytest.mark.parametrize("method", ["post", "delete"])
def test_changes_need_the_csrf_token(alice, after_e4, as_alice, method):
    post(as_alice, after_e4, {"move_number": 2, "lines": [["e5", "Nf3"]]})
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    if method == "post":
        answer = post(client, after_e4, {"move_number": 2, "lines": [["e5", "Nc3"]]})
    else:
        answer = client.delete(url(after_e4))
    assert answer.status_code == 403
    assert stored(after_e4) == [["e7e5", "g1f3"]]


def test_other_methods_and_strangers(client, as_alice, after_e4):
    assert (
        as_alice.put(url(after_e4), data="{}", content_type="application/json").status_code == 405
    )
    assert client.get(url(after_e4)).status_code == 302  # to the login page
    missing = reverse("game_conditional", args=[after_e4.pk + 999])
    assert as_alice.get(missing).status_code == 404


def test_a_finished_game_has_no_lines_to_read_or_set(as_alice, after_e4, bob):
    post(as_alice, after_e4, {"move_number": 2, "lines": [["e5", "Nf3"]]})
    services.resign(game_id=after_e4.pk, player=bob)
    assert as_alice.get(url(after_e4)).json()["lines"] == []
    answer = post(as_alice, after_e4, {"move_number": 2, "lines": [["e5", "Nf3"]]})
    assert (answer.status_code, answer.json()["code"]) == (409, "game_finished")


# --------------------------------------------------------------------------- the page


def test_only_the_owners_page_and_state_carry_their_lines(as_alice, as_bob, as_carol, after_e4):
    post(as_alice, after_e4, {"move_number": 2, "lines": [["e5", "Nf3"]]})
    own = page_data(as_alice.get(reverse("game_detail", args=[after_e4.pk])))
    assert [m["san"] for m in own["conditional"]["lines"][0]] == ["e5", "Nf3"]
    assert own["urls"]["conditional"] == url(after_e4)
    for reader, expected in ((as_bob, {"lines": []}), (as_carol, None)):
        page = reader.get(reverse("game_detail", args=[after_e4.pk]))
        data = page_data(page)
        if expected is None:
            assert data["conditional"] is None
        else:
            assert data["conditional"]["lines"] == []
        assert "g1f3" not in page.content.decode()
        polled = reader.get(url(after_e4, "game_state"), HTTP_ACCEPT="application/json")
        assert "g1f3" not in polled.content.decode()
    polled = as_alice.get(url(after_e4, "game_state"))
    assert polled.json()["conditional"]["lines"][0][1]["uci"] == "g1f3"
