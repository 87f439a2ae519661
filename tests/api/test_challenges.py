"""lichess's Challenges tag: made (correspondence only, the challenger's colour), listed,
accepted (the acceptor's pick where ESPOL's rule holds), declined, cancelled; and each
refused as lichess refuses it, with nothing changed."""

from __future__ import annotations

import json

import pytest

from games import services
from games.models import Challenge, Game


def post_json(client, path: str, body: object):
    return client.post(path, json.dumps(body), content_type="application/json")


def test_a_correspondence_challenge_is_made_with_the_challenger_s_colour(alice, bob, api):
    response = api(alice, "challenge:write").post(
        "/api/challenge/bob", {"days": "3", "color": "black", "rated": "true"}
    )

    assert response.status_code == 200
    body = response.json()
    made = Challenge.objects.get()
    assert body["id"] == made.short_id and body["status"] == "created"
    assert body["timeControl"] == {"type": "correspondence", "daysPerTurn": 3}
    assert (body["color"], body["finalColor"], body["rated"]) == ("black", "black", True)
    assert body["direction"] == "out" and body["destUser"]["id"] == "bob"
    assert (made.days_per_move, made.challenger_colour, made.rated) == (3, "black", True)


def test_berserk_s_json_body_with_nulls_makes_an_unlimited_unrated_random_challenge(
    alice, bob, api
):
    body = {"rated": False, "clock.limit": None, "clock.increment": None, "days": None,
            "color": None, "variant": None, "fen": None}

    response = post_json(api(alice, "board:play"), "/api/challenge/BOB", body)

    assert response.status_code == 200, response.json()
    assert response.json()["timeControl"] == {"type": "unlimited"}
    made = Challenge.objects.get()
    assert (made.days_per_move, made.rated, made.colour_choice) == (None, False, "random")
    assert made.challenger_colour in ("white", "black")


@pytest.mark.parametrize(
    "fields, words",
    [
        ({"clock.limit": "300", "clock.increment": "2"}, "correspondence"),
        ({"clock.limit": "60"}, "correspondence"),
        ({"days": "4"}, "days per move"),
        ({"days": "0"}, "days per move"),
        ({"days": "-1"}, "days"),
        ({"days": "three"}, "days"),
        ({"days": "9" * 50}, "days"),
        ({"color": "purple"}, "color"),
        ({"color": "WHITE"}, "color"),
        ({"rated": "maybe"}, "rated"),
        ({"variant": "chess960"}, "standard"),
        ({"fen": "8/8/8/8/8/8/8/K6k w - - 0 1"}, "position"),
        ({"acceptByToken": "lip_x"}, "acceptByToken"),
    ],
)
def test_a_challenge_this_service_cannot_play_is_refused_clearly(alice, bob, api, fields, words):
    response = api(alice, "challenge:write").post("/api/challenge/bob", fields)

    assert response.status_code == 400
    assert words in response.json()["error"]
    assert not Challenge.objects.exists()


@pytest.mark.parametrize(
    "body",
    [[1, 2], "days=3", 3, {"days": [3]}, {"days": {"n": 3}}, {"rated": {"x": 1}}],
)
def test_a_json_body_of_the_wrong_shape_is_refused(alice, bob, api, body):
    response = post_json(api(alice, "challenge:write"), "/api/challenge/bob", body)

    assert response.status_code == 400
    assert "error" in response.json()
    assert not Challenge.objects.exists()


def test_a_body_that_is_not_json_nor_a_form_is_refused(alice, bob, api):
    client = api(alice, "challenge:write")
    broken = client.post("/api/challenge/bob", b"{not json", content_type="application/json")
    xml = client.post("/api/challenge/bob", b"<days>3</days>", content_type="text/xml")
    bad_utf8 = client.post(
        "/api/challenge/bob", b'{"days": "\xff"}', content_type="application/json"
    )

    assert (broken.status_code, xml.status_code, bad_utf8.status_code) == (400, 415, 400)
    assert not Challenge.objects.exists()


def test_a_huge_body_is_refused_with_413(alice, bob, api):
    response = api(alice, "challenge:write").post(
        "/api/challenge/bob", {"days": "3", "padding": "x" * 20_000}
    )

    assert response.status_code == 413
    assert not Challenge.objects.exists()


@pytest.mark.parametrize("name", ["nobody", "x" * 500, "ñandú", "bob%00", "admin1"])
def test_a_challenge_to_no_player_is_404(alice, bob, make_player, api, name):
    make_player("admin1", is_staff=True)

    response = api(alice, "challenge:write").post(f"/api/challenge/{name}", {"days": "3"})

    assert response.status_code == 404
    assert not Challenge.objects.exists()


def test_domain_refusals_are_400_with_their_reason(alice, bob, api):
    client = api(alice, "challenge:write")
    assert client.post("/api/challenge/alice").json()["error"] == "You cannot challenge yourself."
    assert client.post("/api/challenge/bob").status_code == 200
    again = client.post("/api/challenge/bob")
    assert again.status_code == 400 and "already pending" in again.json()["error"]


def test_making_a_challenge_needs_a_writing_scope(alice, bob, api):
    response = api(alice, "challenge:read").post("/api/challenge/bob")

    assert response.status_code == 403
    assert not Challenge.objects.exists()


def test_my_challenges_are_listed_both_ways(alice, bob, carol, api):
    services.challenge(challenger=bob, challenged=alice)
    services.challenge(challenger=alice, challenged=carol, colour="white")

    body = api(alice, "challenge:read").get("/api/challenge").json()

    assert [c["challenger"]["id"] for c in body["in"]] == ["bob"]
    assert body["in"][0]["color"] == "random" and "finalColor" not in body["in"][0]
    assert [c["destUser"]["id"] for c in body["out"]] == ["carol"]


def test_accepting_starts_the_game_with_the_challenge_s_id(alice, bob, api):
    made = services.challenge(challenger=alice, challenged=bob, colour="white")

    response = api(bob, "challenge:write").post(f"/api/challenge/{made.short_id}/accept")

    assert response.json() == {"ok": True}
    game = Game.objects.get()
    assert (game.short_id, game.white, game.black) == (made.short_id, alice, bob)


@pytest.mark.parametrize("colour", ["white", "black"])
def test_the_acceptor_picks_with_color_where_the_challenger_left_it(alice, bob, api, colour):
    made = services.challenge(challenger=alice, challenged=bob)  # as ESPOL's JUEG makes

    api(bob, "challenge:write").post(f"/api/challenge/{made.short_id}/accept?color={colour}")

    assert Game.objects.get().colour_of(bob.pk) == colour


@pytest.mark.parametrize("colour", ["random", "purple", "B", "\u00e9"])
def test_accepting_with_an_unknown_color_is_refused(alice, bob, api, colour):
    made = services.challenge(challenger=alice, challenged=bob)

    response = api(bob, "challenge:write").post(
        f"/api/challenge/{made.short_id}/accept", {"color": colour}
    )

    assert response.status_code == 400
    assert not Game.objects.exists()


def test_accepting_with_the_challenger_s_colour_is_refused(alice, bob, api):
    made = services.challenge(challenger=alice, challenged=bob, colour="white")

    response = api(bob, "challenge:write").post(
        f"/api/challenge/{made.short_id}/accept?color=white"
    )

    assert response.status_code == 400
    assert "you play black" in response.json()["error"]
    assert not Game.objects.exists()


@pytest.mark.parametrize("who", ["challenger", "stranger", "unknown id"])
def test_only_the_challenged_player_accepts(alice, bob, carol, api, who):
    made = services.challenge(challenger=alice, challenged=bob)
    player, challenge_id = {
        "challenger": (alice, made.short_id),
        "stranger": (carol, made.short_id),
        "unknown id": (bob, "zzzzzzzz"),
    }[who]

    response = api(player, "challenge:write").post(f"/api/challenge/{challenge_id}/accept")

    assert response.status_code == 404
    assert not Game.objects.exists()


@pytest.mark.parametrize("reason, key", [("tooSlow", "tooSlow"), ("toofast", "tooFast"), ("", "")])
def test_declining_keeps_lichess_s_reason(alice, bob, api, reason, key):
    made = services.challenge(challenger=alice, challenged=bob)

    response = post_json(
        api(bob, "challenge:write"), f"/api/challenge/{made.short_id}/decline", {"reason": reason}
    )

    assert response.json() == {"ok": True}
    made.refresh_from_db()
    assert (made.status, made.decline_reason) == ("declined", key)


@pytest.mark.parametrize("reason", ["because", "x" * 1000, "later;drop"])
def test_declining_with_an_unknown_reason_is_refused(alice, bob, api, reason):
    made = services.challenge(challenger=alice, challenged=bob)

    response = api(bob, "challenge:write").post(
        f"/api/challenge/{made.short_id}/decline", {"reason": reason}
    )

    assert response.status_code == 400
    made.refresh_from_db()
    assert made.status == "pending"


def test_cancelling_withdraws_my_challenge(alice, bob, api):
    made = services.challenge(challenger=alice, challenged=bob)

    response = api(alice, "challenge:write").post(f"/api/challenge/{made.short_id}/cancel")

    assert response.json() == {"ok": True}
    made.refresh_from_db()
    assert made.status == "withdrawn"


def test_cancelling_an_accepted_challenge_aborts_its_unplayed_game(alice, bob, api):
    made = services.challenge(challenger=alice, challenged=bob, colour="white")
    game = services.accept_challenge(challenge_id=made.pk, player=bob, colour=None)

    response = api(alice, "challenge:write").post(f"/api/challenge/{made.short_id}/cancel")

    assert response.json() == {"ok": True}
    game.refresh_from_db()
    assert (game.status, game.termination) == ("finished", "aborted")


def test_the_challenged_player_cannot_cancel_and_opponent_tokens_are_not_served(alice, bob, api):
    made = services.challenge(challenger=alice, challenged=bob)

    as_bob = api(bob, "challenge:write").post(f"/api/challenge/{made.short_id}/cancel")
    with_token = api(alice, "challenge:write").post(
        f"/api/challenge/{made.short_id}/cancel?opponentToken=lip_x"
    )

    assert as_bob.status_code == 404 and with_token.status_code == 400
    made.refresh_from_db()
    assert made.status == "pending"
