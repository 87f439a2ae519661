"""lichess's game export (``/game/export/{id}``, PGN or JSON by ``Accept``), public
profiles (``/api/user/{username}``), and the refusals of the export of a player's games
and of ``POST /api/import``: any player's token reads any game, as every door
lets any player read any game."""

from __future__ import annotations

import pytest

from games import pgn_export, services
from games.models import Game
from ranking import selectors as ranking_selectors


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


# --------------------------------------------------------------------------- a player's games


@pytest.mark.parametrize(
    "query",
    [
        "since=yesterday", "since=-5", "until=1e12", "since=" + "9" * 40, "until=%EF%BC%91",
        "max=-1", "max=0", "max=ten", "max=" + "9" * 30, "max=", "color=red", "color=WHITE",
        "sort=random", "rated=maybe", "evals=2", "finished=%00", "clocks=sí",
    ],
)
def test_a_bad_parameter_of_the_user_export_is_400(alice, carol, api, query):
    response = api(carol).get(f"/api/games/user/alice?{query}")
    if query == "max=":
        assert response.status_code == 200  # empty: absent, as lichess reads it
        return
    assert response.status_code == 400
    assert response.json()["error"]


@pytest.mark.parametrize("name", ["nobody", "x" * 300, "ñandú"])
def test_the_user_export_of_no_player_is_404(carol, api, name):
    assert api(carol).get(f"/api/games/user/{name}").status_code == 404


def test_the_user_export_needs_a_token(alice, client):
    assert client.get("/api/games/user/alice").status_code == 401


def test_exports_at_once_are_bounded_per_player(alice, carol, api, settings):
    settings.PGN_DOWNLOADS_PER_PLAYER = 1
    held = pgn_export.take_slot(carol.pk)
    assert held is not None
    try:
        response = api(carol).get("/api/games/user/alice")
        assert response.status_code == 429 and response["Retry-After"] == "60"
    finally:
        held.release()


# --------------------------------------------------------------------------- import

GAME = '[White "alice"]\n[Black "someone"]\n[Result "0-1"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n'


@pytest.mark.parametrize(
    ("pgn", "says"),
    [
        ("", "pgn field"),
        ("   ", "pgn field"),
        ("1. e4 e5 2. Ke3 1-0", "illegal"),
        ("1. e4 e5 2. Nf3 *", "no result"),
        ("1. e4 1-0", "a move by each side"),
        (GAME + "\n" + GAME, "more than one game"),
        ('[Variant "Atomic"]\n\n1. e4 e5 1-0', "standard chess"),
        ("héllo wörld ♞", "No game"),
        ("nul\x00byte", "pgn field"),
        ('[FEN "8/8/8/8/8/8/8/8 w - - 0 1"]\n\n1. e4 e5 1-0', "starting position"),
        ('[FEN "garbage"]\n\n1. e4 e5 1-0', "starting position"),
    ],
)
def test_a_pgn_that_cannot_be_imported_is_400_with_its_reason(alice, api, pgn, says):
    response = api(alice).post("/api/import", {"pgn": pgn})
    assert response.status_code == 400
    assert says.lower() in response.json()["error"].lower()


def test_an_import_without_the_pgn_field_or_with_null_is_400(alice, api):
    client = api(alice)
    assert client.post("/api/import", {}).status_code == 400
    answer = client.post("/api/import", {"pgn": None}, content_type="application/json")
    assert answer.status_code == 400
    number = client.post("/api/import", {"pgn": 5}, content_type="application/json")
    assert number.status_code == 400


def test_an_import_over_the_size_limit_is_413(alice, api, settings):
    body = GAME + " " * (settings.API_MAX_BODY_BYTES + 1)
    response = api(alice).post("/api/import", {"pgn": body})
    assert response.status_code == 413


def test_imports_are_rate_limited_per_token(alice, api, settings):
    settings.API_IMPORTS_PER_HOUR = 2
    client = api(alice)
    assert [client.post("/api/import", {"pgn": GAME}).status_code for _ in range(3)] == [
        200, 200, 429
    ]
    assert api(alice).post("/api/import", {"pgn": GAME}).status_code == 200  # another token


def test_an_import_by_someone_who_played_neither_side_is_an_imported_game(alice, carol, api):
    answer = api(carol).post("/api/import", {"pgn": GAME}).json()
    game = Game.objects.select_related("white", "black").get(short_id=answer["id"])
    # A PGN's name is never an account's: "alice" here is a guest of the import.
    assert (game.white.username, game.black.username) == ("alice@import", "someone@import")
    assert game.imported_by == carol and not game.rated
    assert (game.result, game.termination) == ("0-1", "checkmate")


def test_an_imported_game_counts_in_no_rating(alice, api):
    before = ranking_selectors.record_of(alice.pk)
    assert api(alice).post("/api/import", {"pgn": GAME}).status_code == 200
    after = ranking_selectors.record_of(alice.pk)
    assert (after.rating, after.total_games) == (before.rating, before.total_games)


def test_a_bad_pgn_is_answered_without_a_line_in_the_error_log(alice, api, caplog):
    response = api(alice).post("/api/import", {"pgn": "1. e4 e5 2. Ke3 1-0"})

    assert response.status_code == 400
    assert not [r for r in caplog.records if r.name.startswith("chess")]


def test_an_import_is_a_post(alice, api):
    assert api(alice).get("/api/import").status_code == 405
