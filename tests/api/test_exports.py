"""lichess's game export (``/game/export/{id}``, PGN or JSON by ``Accept``) and public
profiles (``/api/user/{username}``): any player's token reads any game, as every door
lets any player read any game."""

from __future__ import annotations

import pytest

from games import services


@pytest.fixture
def finished(alice, bob, play):
    made = services.challenge(challenger=alice, challenged=bob, colour="white", days_per_move=2)
    game = services.accept_challenge(challenge_id=made.pk, player=bob, colour=None)
    return play(game, "f2f3", "e7e5", "g2g4", "d8h4")


def test_a_game_is_exported_as_pgn_by_default(finished, carol, api):
    response = api(carol).get(f"/game/export/{finished.short_id}")

    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/x-chess-pgn")
    text = response.content.decode()
    assert '[White "alice"]' in text and "1. f3 e5 2. g4 Qh4# { checkmate } 0-1" in text


def test_a_game_is_exported_as_lichess_json_when_asked(finished, carol, api):
    response = api(carol).get(
        f"/game/export/{finished.short_id}?pgnInJson=true", HTTP_ACCEPT="application/json"
    )

    body = response.json()
    assert body["id"] == finished.short_id and body["status"] == "mate"
    assert (body["winner"], body["moves"], body["daysPerTurn"]) == ("black", "f3 e5 g4 Qh4#", 2)
    assert body["players"]["white"]["user"] == {"name": "alice", "id": "alice"}
    assert body["pgn"].startswith("[Event")
    assert isinstance(body["createdAt"], int) and isinstance(body["lastMoveAt"], int)


def test_the_json_export_leaves_the_moves_out_when_asked(finished, carol, api):
    body = api(carol).get(
        f"/game/export/{finished.short_id}?moves=false", HTTP_ACCEPT="application/json"
    ).json()
    assert "moves" not in body and "pgn" not in body


@pytest.mark.parametrize("query", ["moves=perhaps", "pgnInJson=2", "moves=%00"])
def test_an_export_option_that_is_not_a_boolean_is_refused(finished, carol, api, query):
    response = api(carol).get(f"/game/export/{finished.short_id}?{query}")
    assert response.status_code == 400
    assert "error" in response.json()


@pytest.mark.parametrize("game_id", ["zzzzzzzz", "0", "P" + "9" * 30, "é" * 8])
def test_exporting_no_game_is_404(db, carol, api, game_id):
    response = api(carol).get(f"/game/export/{game_id}")
    assert response.status_code == 404


def test_exports_need_a_token(finished, client):
    assert client.get(f"/game/export/{finished.short_id}").status_code == 401


def test_a_public_profile_is_read_by_any_case_of_the_name(alice, carol, api):
    body = api(carol).get("/api/user/ALICE").json()
    assert (body["id"], body["username"]) == ("alice", "alice")
    assert "email" not in body


@pytest.mark.parametrize("name", ["nobody", "x" * 300, "bob\u0000", "ñ"])
def test_the_profile_of_no_player_is_404(carol, api, name):
    assert api(carol).get(f"/api/user/{name}").status_code == 404
