"""The engine's web doors (games.analysis_views) and the socket's: asking for a game's
analysis, reading it, the analysis board and its positions, private notes. Fair play at
every one: nothing of the engine for a game in progress. Bad input gets a clear refusal
and changes nothing. The engine itself is not run here (tests/games/test_analysis.py
runs it): a queued analysis is all these doors make."""

from __future__ import annotations

import sys

import pytest
from asgiref.sync import sync_to_async
from django.test import Client
from django.urls import reverse

from games import services
from games.models import Game, GameAnalysis, PositionEvaluation, PrivateNote
from games.state import game_pgn
from tests.web.test_consumers import cookie_for, open_game, receive_until

JSON = {"HTTP_ACCEPT": "application/json"}
START_AFTER_E4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"


@pytest.fixture(autouse=True)
def engine_installed(settings):
    # Any program will do: these doors only check that the engine is there to queue for.
    settings.STOCKFISH_PATH = sys.executable


@pytest.fixture
def finished(game) -> Game:
    return services.resign(game_id=game.pk, player=game.black)


@pytest.fixture
def after_e4(game, play) -> Game:
    return play(game, "e4")


def analysis_url(game: Game) -> str:
    return reverse("game_analysis", args=[game.pk])


def note_url(game: Game) -> str:
    return reverse("game_note", args=[game.pk])


EVALUATION = reverse("position_evaluation")

# ----------------------------------------------------------------- a game's analysis


def test_anyone_who_sees_a_finished_game_may_ask_for_its_analysis(as_carol, finished):
    answer = as_carol.post(analysis_url(finished), **JSON)
    assert answer.status_code == 202, answer.content
    body = answer.json()
    assert (body["status"], body["queue_position"], body["evaluated"]) == ("queued", 0, 0)
    assert GameAnalysis.objects.get(game=finished).status == "queued"
    assert as_carol.get(analysis_url(finished)).json()["status"] == "queued"


def test_a_game_without_analysis_reads_as_none(as_carol, finished):
    body = as_carol.get(analysis_url(finished)).json()
    assert body["status"] is None and body["points"] == [] and body["allowed"] is True


@pytest.mark.parametrize("method", ["get", "post"])
def test_no_engine_for_a_game_in_progress_at_the_json_door(method, as_alice, as_carol, game):
    for client in (as_alice, as_carol):
        answer = getattr(client, method)(analysis_url(game), **JSON)
        assert answer.status_code == 403
        assert answer.json()["code"] == "engine_not_allowed"
    assert not GameAnalysis.objects.exists()


def test_a_form_post_for_a_game_in_progress_is_refused_with_a_message(as_alice, game):
    answer = as_alice.post(analysis_url(game), follow=True)
    assert "No engine while the game is in progress." in answer.content.decode()
    assert not GameAnalysis.objects.exists()


def test_a_form_post_without_scripts_goes_back_to_the_game(as_alice, finished):
    answer = as_alice.post(analysis_url(finished))
    assert answer.status_code == 302 and answer.url.endswith(f"/games/{finished.pk}/#analysis")
    assert GameAnalysis.objects.filter(game=finished).exists()


def test_analysis_requests_are_rate_limited(settings, as_alice, alice, bob, carol, start_game):
    settings.ANALYSIS_REQUESTS_PER_WINDOW = 1
    games = [services.resign(game_id=start_game(alice, p).pk, player=alice) for p in (bob, carol)]
    assert as_alice.post(analysis_url(games[0]), **JSON).status_code == 202
    refused = as_alice.post(analysis_url(games[1]), **JSON)
    assert refused.status_code == 429
    assert refused.json()["code"] == "analysis_rate_limited"
    assert int(refused["Retry-After"]) > 0
    assert not GameAnalysis.objects.filter(game=games[1]).exists()


def test_without_the_engine_the_request_says_so(settings, as_alice, finished):
    settings.STOCKFISH_PATH = "/nonexistent/stockfish"
    answer = as_alice.post(analysis_url(finished), **JSON)
    assert answer.status_code == 503 and answer.json()["code"] == "engine_unavailable"


def test_an_unknown_game_is_not_found(as_alice):
    assert as_alice.get(reverse("game_analysis", args=[999_999]), **JSON).status_code == 404
    assert as_alice.post(reverse("game_analysis", args=[999_999]), **JSON).status_code == 404


def test_the_doors_need_a_login_and_a_csrf_token(alice, finished):
    anonymous = Client()
    assert anonymous.post(analysis_url(finished)).status_code == 302
    assert anonymous.get(reverse("analysis_board")).status_code == 302
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(alice)
    for url in (analysis_url(finished), note_url(finished), EVALUATION):
        assert strict.post(url, {"text": "x", "fen": START_AFTER_E4}).status_code == 403
    assert not GameAnalysis.objects.exists() and not PrivateNote.objects.exists()


def test_the_finished_game_page_offers_the_analysis(as_carol, finished):
    page = as_carol.get(reverse("game_detail", args=[finished.pk])).content.decode()
    assert 'id="analysis"' in page and 'data-active="false"' in page
    assert "Request a computer analysis" in page
    assert 'id="analysis-request" class="mb-2">' in page  # shown, not hidden


def test_the_page_of_a_game_in_progress_has_no_engine(as_alice, game):
    page = as_alice.get(reverse("game_detail", args=[game.pk])).content.decode()
    assert 'data-active="true"' in page
    assert "No engine while the game is in progress." in page
    assert 'id="analysis-request" class="mb-2" hidden>' in page
    assert "Explore on the analysis board (no engine)" in page


# ----------------------------------------------------------------- the socket door


@pytest.mark.django_db(transaction=True)
async def test_no_engine_for_a_game_in_progress_at_the_socket_door(alice, carol, game):
    for player in (alice, carol):
        socket, _snapshot = await open_game(game.pk, await sync_to_async(cookie_for)(player))
        try:
            await socket.send_json_to({"type": "analysis"})
            frame = await receive_until(socket, "error")
            assert (frame["code"], frame["action"]) == ("engine_not_allowed", "analysis")
        finally:
            await socket.disconnect()
    assert not await sync_to_async(GameAnalysis.objects.exists)()


@pytest.mark.django_db(transaction=True)
async def test_a_finished_game_s_analysis_may_be_asked_over_the_socket(carol, finished):
    socket, _snapshot = await open_game(finished.pk, await sync_to_async(cookie_for)(carol))
    try:
        await socket.send_json_to({"type": "analysis", "extra": ["ignored"]})
        frame = await receive_until(socket, "analysis")
        assert (frame["status"], frame["game_id"]) == ("queued", finished.pk)
    finally:
        await socket.disconnect()


# ----------------------------------------------------------------- the analysis board


def test_the_board_opened_from_a_finished_game_has_the_engine(as_carol, finished, play):
    page = as_carol.get(reverse("analysis_board"), {"game": finished.pk, "ply": 0})
    assert page.status_code == 200
    text = page.content.decode()
    assert 'id="btn-evaluate"' in text and finished.public_id in text


def test_the_board_opened_from_a_game_in_progress_has_no_engine(as_alice, after_e4):
    text = as_alice.get(reverse("analysis_board"), {"game": after_e4.pk}).content.decode()
    assert 'id="btn-evaluate"' not in text
    assert "No engine on a board opened from a game in progress." in text
    data = as_alice.get(reverse("analysis_board"), {"game": after_e4.pk}).context["board_data"]
    assert data["engine"] is False and data["start"]["moves"] == [{"uci": "e2e4", "san": "e4"}]


@pytest.mark.parametrize(
    "query",
    [{"game": "abc"}, {"game": "-1"}, {"ply": "x", "game": "1"}, {"fen": "x" * 500},
     {"game": str(10**30)}],
)
def test_a_bad_start_for_the_board_opens_the_usual_position(as_alice, query):
    page = as_alice.get(reverse("analysis_board"), query)
    assert page.status_code == 200
    assert "could not be opened" in page.content.decode()


def test_the_board_of_an_unknown_game_is_not_found(as_alice):
    assert as_alice.get(reverse("analysis_board"), {"game": 999_999}).status_code == 404


def test_a_position_is_queued_and_read_back(as_carol, finished):
    answer = as_carol.post(EVALUATION, {"fen": START_AFTER_E4}, **JSON)
    assert answer.status_code == 202 and answer.json()["status"] == "queued"
    stored = PositionEvaluation.objects.get()
    assert stored.position == "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -"
    assert as_carol.get(EVALUATION, {"fen": START_AFTER_E4}).json()["status"] == "queued"


def test_the_position_of_a_game_in_progress_is_refused_to_anyone(as_carol, after_e4):
    for answer in (
        as_carol.post(EVALUATION, {"fen": after_e4.fen}, **JSON),
        as_carol.get(EVALUATION, {"fen": after_e4.fen}),
        # The same position, other counters: the same position.
        as_carol.post(EVALUATION, {"fen": after_e4.fen.rsplit(" ", 2)[0] + " 7 30"}, **JSON),
    ):
        assert answer.status_code == 403 and answer.json()["code"] == "engine_not_allowed"
    assert not PositionEvaluation.objects.exists()


def test_a_player_gets_no_engine_one_move_from_their_game(as_alice, as_bob, as_carol, after_e4):
    # 1. e4 e5: the reply bob is thinking about, and a position alice fears.
    after_e5 = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
    for client in (as_alice, as_bob):
        answer = client.post(EVALUATION, {"fen": after_e5}, **JSON)
        assert answer.status_code == 403, client
    # Someone who plays no game may study 1. e4 e5 (it is no game's position).
    assert as_carol.post(EVALUATION, {"fen": after_e5}, **JSON).status_code == 202


def test_a_position_evaluated_before_is_refused_once_a_game_reaches_it(
    as_carol, alice, bob, start_game, play
):
    as_carol.post(EVALUATION, {"fen": START_AFTER_E4}, **JSON)
    PositionEvaluation.objects.update(status="done", cp=30, best="e7e5", depth=10)
    assert as_carol.get(EVALUATION, {"fen": START_AFTER_E4}).json()["label"] == "+0.30"
    play(start_game(alice, bob), "e4")
    assert as_carol.get(EVALUATION, {"fen": START_AFTER_E4}).status_code == 403


@pytest.mark.parametrize(
    "fen",
    ["", "   ", "not a fen", "8/8/8/8/8/8/8/8 w - - 0 1", "x" * 101, "♔♕♖ w - - 0 1",
     "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\x00"],
)
def test_a_bad_position_is_refused_clearly(as_carol, fen):
    for answer in (
        as_carol.post(EVALUATION, {"fen": fen}, **JSON),
        as_carol.get(EVALUATION, {"fen": fen}),
    ):
        assert answer.status_code == 400
        assert answer.json()["code"] == "invalid_position"
    assert not PositionEvaluation.objects.exists()


def test_a_missing_position_is_refused(as_carol):
    assert as_carol.post(EVALUATION, {}, **JSON).status_code == 400
    assert as_carol.post(EVALUATION, {"fen": ["a", "b"]}, **JSON).status_code == 400


def test_positions_are_rate_limited(settings, as_carol):
    settings.POSITION_EVALUATIONS_PER_WINDOW = 1
    assert as_carol.post(EVALUATION, {"fen": START_AFTER_E4}, **JSON).status_code == 202
    # The same position again is no new work: not counted.
    assert as_carol.post(EVALUATION, {"fen": START_AFTER_E4}, **JSON).status_code == 202
    other = "rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1"
    refused = as_carol.post(EVALUATION, {"fen": other}, **JSON)
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0


# ----------------------------------------------------------------- private notes


def test_a_player_writes_and_reads_their_note(as_alice, game):
    answer = as_alice.post(note_url(game), {"text": "  Watch the e-file. ¡Ojo! ♞  "}, **JSON)
    assert answer.status_code == 200
    assert answer.json() == {"type": "note", "text": "Watch the e-file. ¡Ojo! ♞"}
    assert as_alice.get(note_url(game)).json()["text"] == "Watch the e-file. ¡Ojo! ♞"


def test_a_note_is_seen_by_its_writer_alone(as_alice, as_bob, as_carol, alice, bob, carol, game):
    as_alice.post(note_url(game), {"text": "alice's secret plan"})
    assert as_bob.get(note_url(game)).json()["text"] == ""
    assert as_carol.get(note_url(game)).status_code == 403
    for client in (as_bob, as_carol):
        page = client.get(reverse("game_detail", args=[game.pk])).content.decode()
        assert "secret plan" not in page
    assert "secret plan" in as_alice.get(reverse("game_detail", args=[game.pk])).content.decode()
    finished = services.resign(game_id=game.pk, player=bob)
    assert "secret plan" in game_pgn(finished, viewer_id=alice.pk)
    for viewer in (bob.pk, carol.pk, None):
        assert "secret plan" not in game_pgn(finished, viewer_id=viewer)
    assert "secret plan" in as_alice.get(reverse("game_pgn", args=[game.pk])).content.decode()
    assert "secret plan" not in as_bob.get(reverse("game_pgn", args=[game.pk])).content.decode()


def test_a_watcher_cannot_write_a_note(as_carol, game):
    answer = as_carol.post(note_url(game), {"text": "hello"}, **JSON)
    assert answer.status_code == 403 and answer.json()["code"] == "not_a_player"
    assert not PrivateNote.objects.exists()


def test_an_empty_note_deletes_it(as_alice, game):
    as_alice.post(note_url(game), {"text": "first"})
    as_alice.post(note_url(game), {"text": "   "})
    assert not PrivateNote.objects.exists()


@pytest.mark.parametrize("text", ["x" * 5001, "nul\x00byte"])
def test_a_bad_note_is_refused_and_the_old_one_kept(as_alice, game, text):
    as_alice.post(note_url(game), {"text": "kept"})
    answer = as_alice.post(note_url(game), {"text": text}, **JSON)
    assert answer.status_code == 400 and answer.json()["code"] == "note_invalid"
    assert PrivateNote.objects.get().text == "kept"


def test_a_note_without_scripts_goes_back_to_the_game(as_alice, game):
    answer = as_alice.post(note_url(game), {"text": "plain form"})
    assert answer.status_code == 302 and answer.url.endswith("#note")
    assert PrivateNote.objects.get().text == "plain form"


def test_a_note_on_an_unknown_game_is_not_found(as_alice):
    answer = as_alice.post(reverse("game_note", args=[999_999]), {"text": "x"}, **JSON)
    assert answer.status_code == 404


def test_the_pgn_note_cannot_break_out_of_its_comment(as_alice, alice, game):
    as_alice.post(note_url(game), {"text": "a } 1. h4 { b"})
    text = game_pgn(game, viewer_id=alice.pk)
    assert "{ a ) 1. h4 ( b }" in text
