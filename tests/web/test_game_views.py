"""The game page and its HTTP actions (the fallback when there is no WebSocket)."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts import services as account_services
from games import services, state
from games.models import Game
from ranking.models import PlayerRecord

JSON = {"HTTP_ACCEPT": "application/json"}
RUY_LOPEZ = (
    "e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O", "Be7",
    "Re1", "b5", "Bb3", "d6", "c3", "O-O", "h3", "Nb8", "d4", "Nbd7",
    "c4", "c6", "cxb5", "axb5", "Nc3", "Bb7", "Bg5", "b4", "Nb1", "h6",
    "Bh4", "c5", "dxe5", "Nxe4", "Bxe7", "Qxe7",
)


def page_data(response) -> dict:
    """The JSON the page's script reads (``json_script`` with id ``game-data``)."""
    html = response.content.decode()
    start = html.index('<script id="game-data" type="application/json">')
    start = html.index(">", start) + 1
    return json.loads(html[start : html.index("</script>", start)])


def url(name: str, game: Game) -> str:
    return reverse(name, args=[game.pk])


# --------------------------------------------------------------------------- the page


def test_player_sees_the_board_data_for_their_colour(as_alice, game, play):
    play(game, "e4", "e5")
    response = as_alice.get(url("game_detail", game))
    assert response.status_code == 200
    data = page_data(response)
    assert data["me"] == {"username": "alice", "colour": "white"}
    assert [m["san"] for m in data["moves"]] == ["e4", "e5"]
    assert data["version"] == Game.objects.get(pk=game.pk).version
    assert "g1" in data["dests"]
    assert data["urls"]["ws"] == f"/ws/games/{game.pk}/"
    assert 'id="move-form"' in response.content.decode()


def test_black_player_sees_the_board_from_black_by_default(as_bob, game):
    data = page_data(as_bob.get(url("game_detail", game)))
    assert data["prefs"]["orientation"] == "black"


def test_orientation_preference_is_honoured(as_bob, bob, game):
    account_services.save_preferences(
        player=bob, values={"orientation": "white", "show_coordinates": False}
    )
    data = page_data(as_bob.get(url("game_detail", game)))
    assert data["prefs"]["orientation"] == "white"
    assert data["prefs"]["coordinates"] is False


def test_non_player_may_watch_without_actions(as_carol, game):
    response = as_carol.get(url("game_detail", game))
    assert response.status_code == 200
    assert page_data(response)["me"]["colour"] is None
    assert 'id="actions"' not in response.content.decode()


def test_anonymous_visitor_is_sent_to_log_in(client, game):
    response = client.get(url("game_detail", game))
    assert response.status_code == 302
    assert reverse("login") in response["Location"]


def test_missing_game_is_404(as_alice, game):
    assert as_alice.get(reverse("game_detail", args=[game.pk + 999])).status_code == 404


def test_finished_game_shows_its_result(as_alice, game, play):
    play(game, "f3", "e5", "g4", "Qh4#")
    response = as_alice.get(url("game_detail", game))
    html = response.content.decode()
    assert "0-1" in html
    data = page_data(response)
    assert data["game"]["termination"] == "checkmate"
    assert data["dests"] == {}


def test_claimable_draw_is_offered_on_the_page(as_alice, game, play):
    play(game, "Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1", "Ng8")
    data = page_data(as_alice.get(url("game_detail", game)))
    assert data["claimable"] == "threefold_repetition"


def test_page_query_count_is_bounded_however_many_games_and_moves(
    as_alice, alice, bob, make_player, start_game, play, django_assert_max_num_queries
):
    game = start_game(alice, bob)
    play(game, *RUY_LOPEZ)
    for i in range(30):
        other = make_player(f"p{i}")
        play(start_game(alice, other), "e4", "c5")
    # A fixed number, whatever the games and moves: among them the next game waiting, the
    # bots among the players and the player's private note.
    with django_assert_max_num_queries(16):
        response = as_alice.get(url("game_detail", game))
    assert response.status_code == 200
    assert len(page_data(response)["moves"]) == len(RUY_LOPEZ)


# --------------------------------------------------------------------------- moves


def test_move_posted_as_json_is_played(as_alice, game):
    response = as_alice.post(url("game_move", game), {"number": 1, "move": "e2e4"}, **JSON)
    assert response.status_code == 200
    body = response.json()
    assert body["type"] == "snapshot"
    assert [m["san"] for m in body["moves"]] == ["e4"]
    assert body["game"]["turn"] == "black"
    assert Game.objects.get(pk=game.pk).next_move_number == 2


def test_move_answer_holds_only_moves_after_what_the_page_has(as_bob, game, play):
    play(game, "e4")
    response = as_bob.post(
        url("game_move", game), {"number": 2, "move": "c5", "after": 1}, **JSON
    )
    assert [m["number"] for m in response.json()["moves"]] == [2]


def test_confirm_moves_preference_reaches_the_page_on_by_default(as_alice, alice, game):
    assert page_data(as_alice.get(url("game_detail", game)))["prefs"]["confirmMoves"] is True
    account_services.save_preferences(player=alice, values={"confirm_moves": False})
    assert page_data(as_alice.get(url("game_detail", game)))["prefs"]["confirmMoves"] is False


def test_move_preview_reads_a_typed_move_and_plays_nothing(as_alice, game):
    response = as_alice.get(url("game_move_preview", game), {"number": 1, "move": "Nf3"})
    assert response.status_code == 200
    assert response.json() == {"type": "preview", "uci": "g1f3", "san": "Nf3"}
    game.refresh_from_db()
    assert game.next_move_number == 1
    assert game.version == 1
    assert not game.moves.exists()


def test_move_preview_reads_a_promotion_in_uci(as_alice, game, play):
    play(game, "a4", "b5", "axb5", "a6", "bxa6", "Nc6", "a7", "Rb8")
    response = as_alice.get(url("game_move_preview", game), {"number": 9, "move": "a7a8n"})
    assert response.json() == {"type": "preview", "uci": "a7a8n", "san": "a8=N"}


def test_move_preview_refuses_as_playing_would(as_alice, as_bob, game):
    illegal = as_alice.get(url("game_move_preview", game), {"number": 1, "move": "Qh5"})
    assert illegal.status_code == 422
    assert illegal.json()["code"] == "illegal_move"
    out_of_turn = as_bob.get(url("game_move_preview", game), {"number": 1, "move": "e5"})
    assert out_of_turn.status_code == 409
    assert out_of_turn.json()["code"] == "not_your_turn"
    stale = as_alice.get(url("game_move_preview", game), {"number": 3, "move": "e4"})
    assert stale.json()["code"] == "wrong_move_number"
    missing = as_alice.get(url("game_move_preview", game), {"number": 1})
    assert missing.status_code == 400


def test_move_preview_is_only_for_the_game_s_players(as_carol, game):
    response = as_carol.get(url("game_move_preview", game), {"number": 1, "move": "e4"})
    assert response.status_code == 403


def test_move_posted_from_the_plain_form_redirects_to_the_game(as_alice, game):
    response = as_alice.post(url("game_move", game), {"number": 1, "move": "Nf3"}, follow=True)
    assert response.redirect_chain[-1][0] == url("game_detail", game)
    assert [m["san"] for m in page_data(response)["moves"]] == ["Nf3"]


def test_illegal_move_is_refused_with_422_and_nothing_changes(as_alice, game):
    response = as_alice.post(url("game_move", game), {"number": 1, "move": "e2e5"}, **JSON)
    assert response.status_code == 422
    assert response.json()["code"] == "illegal_move"
    assert not game.moves.exists()


NULL_MOVES = ["--", "Z0", "0000", "@@@@"]


@pytest.mark.parametrize("text", NULL_MOVES)
def test_null_move_posted_for_json_is_no_move_and_nothing_changes(as_bob, game, play, text):
    play(game, "e4", "f5", "Qh5+")
    response = as_bob.post(url("game_move", game), {"number": 4, "move": text}, **JSON)
    assert response.status_code == 400
    assert response.json()["code"] == "invalid_move"
    assert game.moves.count() == 3


def test_text_naming_two_moves_is_refused_for_json_with_both_readings(as_alice, game):
    # A rook on b3 and a bishop on d3: "B3b5" reads as either one's move to b5.
    Game.objects.filter(pk=game.pk).update(fen="7k/8/8/8/8/1R1B4/8/7K w - - 0 1")
    response = as_alice.post(url("game_move", game), {"number": 1, "move": "B3b5"}, **JSON)
    assert response.status_code == 422
    assert (response.json()["code"], response.json()["readings"]) == (
        "illegal_move",
        ["Rb5", "Bb5"],
    )
    assert not game.moves.exists()


def typed_move_box(response) -> tuple[str, str]:
    """The move box of a re-rendered page: its value and the error shown under it."""
    html = response.content.decode()
    box = re.search(r'<input id="move-input"[^>]*>', html)
    error = re.search(r'<div id="move-input-error"[^>]*>(.*?)</div>', html, re.S)
    assert box is not None and error is not None
    value = re.search(r'value="([^"]*)"', box.group(0))
    return (value.group(1) if value else ""), error.group(1).strip()


def test_illegal_move_from_the_plain_form_keeps_the_typed_text_and_says_why(as_alice, game):
    response = as_alice.post(url("game_move", game), {"number": 1, "move": "e2e5"})
    assert response.status_code == 422
    assert typed_move_box(response) == ("e2e5", "That move is not legal in this position.")
    assert 'aria-invalid="true"' in response.content.decode()
    assert not game.moves.exists()


@pytest.mark.parametrize("text", NULL_MOVES)
def test_null_move_from_the_plain_form_keeps_the_typed_text_and_says_why(
    as_bob, game, play, text
):
    play(game, "e4", "f5", "Qh5+")
    response = as_bob.post(url("game_move", game), {"number": 4, "move": text})
    assert response.status_code == 400
    assert typed_move_box(response) == (text, "That is not a move.")
    assert game.moves.count() == 3


def test_move_out_of_turn_from_the_plain_form_keeps_the_typed_text(as_bob, game):
    response = as_bob.post(url("game_move", game), {"number": 1, "move": "e7e5"})
    assert response.status_code == 409
    typed, error = typed_move_box(response)
    assert typed == "e7e5"
    assert error
    assert not game.moves.exists()


def test_stale_move_from_the_plain_form_keeps_the_text_with_the_current_number(
    as_alice, game, play
):
    play(game, "e4", "e5")
    response = as_alice.post(url("game_move", game), {"number": 1, "move": "Nf3"})
    assert response.status_code == 409
    assert typed_move_box(response)[0] == "Nf3"
    # Sent again as it stands, the box now carries the move number the game expects.
    assert '<input type="hidden" name="number" value="3">' in response.content.decode()
    assert game.moves.count() == 2


def test_typed_text_is_escaped_when_shown_again(as_alice, game):
    response = as_alice.post(url("game_move", game), {"number": 1, "move": '"><b>x'})
    assert response.status_code == 400
    assert typed_move_box(response)[0] == "&quot;&gt;&lt;b&gt;x"
    assert '"><b>x' not in response.content.decode()


def test_plain_form_move_on_a_missing_game_is_404(as_alice, game):
    missing = reverse("game_move", args=[game.pk + 999])
    response = as_alice.post(missing, {"number": 1, "move": "e4"})
    assert response.status_code == 404


def test_move_out_of_turn_is_refused(as_bob, game):
    response = as_bob.post(url("game_move", game), {"number": 1, "move": "e7e5"}, **JSON)
    assert response.status_code == 409
    assert response.json()["code"] == "not_your_turn"
    assert not game.moves.exists()


def test_stale_move_number_is_refused(as_alice, game, play):
    play(game, "e4", "e5")
    response = as_alice.post(url("game_move", game), {"number": 1, "move": "d2d4"}, **JSON)
    assert response.status_code == 409
    assert response.json() | {"message": ""} == {
        "type": "error",
        "code": "wrong_move_number",
        "message": "",
        "expected": 3,
    }
    assert game.moves.count() == 2


@pytest.mark.parametrize(
    "form",
    [
        {"move": "e2e4"},
        {"number": "one", "move": "e2e4"},
        {"number": 1},
        {"number": 1, "move": "x" * 11},
    ],
)
def test_malformed_move_form_is_refused_with_400(as_alice, game, form):
    response = as_alice.post(url("game_move", game), form, **JSON)
    assert response.status_code == 400
    assert response.json()["code"] == "invalid_form"
    assert not game.moves.exists()


def test_move_form_errors_name_the_field_by_its_label(as_alice, game):
    response = as_alice.post(url("game_move", game), {"number": "one", "move": "e2e4"})

    assert response.status_code == 400
    assert typed_move_box(response) == ("e2e4", "Move number: Enter a whole number.")
    assert not game.moves.exists()


def test_too_long_typed_move_from_the_plain_form_is_kept_and_refused(as_alice, game):
    response = as_alice.post(url("game_move", game), {"number": 1, "move": "e2e4" * 3})
    assert response.status_code == 400
    typed, error = typed_move_box(response)
    assert typed == "e2e4" * 3
    assert error.startswith("Move (SAN or UCI): ")


def test_move_form_errors_over_json_name_the_field_by_its_label(as_alice, game):
    response = as_alice.post(url("game_move", game), {"number": 1}, **JSON)

    assert response.json()["message"] == "Move (SAN or UCI): This field is required."


def test_non_player_move_is_forbidden(as_carol, game):
    response = as_carol.post(url("game_move", game), {"number": 1, "move": "e2e4"}, **JSON)
    assert response.status_code == 403
    assert response.json()["code"] == "not_a_player"
    assert not game.moves.exists()


@pytest.mark.parametrize(
    "name, form",
    [
        ("game_draw_offer", {}),
        ("game_draw_answer", {"accept": "yes"}),
        ("game_resign", {}),
        ("game_claim_draw", {}),
    ],
)
def test_non_player_actions_are_forbidden(as_carol, game, name, form):
    response = as_carol.post(url(name, game), form, **JSON)
    assert response.status_code == 403
    assert Game.objects.get(pk=game.pk).version == game.version


def test_action_on_a_missing_game_is_404(as_alice, game):
    response = as_alice.post(reverse("game_resign", args=[game.pk + 999]), **JSON)
    assert response.status_code == 404


def test_actions_need_csrf(alice, game):
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    response = client.post(url("game_move", game), {"number": 1, "move": "e2e4"})
    assert response.status_code == 403
    assert not game.moves.exists()


def test_actions_refuse_get(as_alice, game):
    assert as_alice.get(url("game_resign", game)).status_code == 405
    assert Game.objects.get(pk=game.pk).status == Game.Status.ACTIVE


def test_actions_need_a_login(client, game):
    response = client.post(url("game_resign", game))
    assert response.status_code == 302
    assert Game.objects.get(pk=game.pk).status == Game.Status.ACTIVE


# --------------------------------------------------------------------------- draws, resign


def test_draw_offered_then_accepted_over_http(as_alice, as_bob, game):
    offered = as_alice.post(url("game_draw_offer", game), **JSON)
    assert offered.json()["game"]["draw_offer_by"] == "white"
    accepted = as_bob.post(url("game_draw_answer", game), {"accept": "yes"}, **JSON)
    assert accepted.status_code == 200
    assert accepted.json()["game"]["result"] == "1/2-1/2"
    assert accepted.json()["game"]["result_label"] == "½–½"


def test_a_drawn_games_page_shows_the_result_as_people_write_it(as_alice, as_bob, game):
    as_alice.post(url("game_draw_offer", game), **JSON)
    as_bob.post(url("game_draw_answer", game), {"accept": "yes"}, **JSON)

    page = as_alice.get(url("game_detail", game)).content.decode()

    banner = page[page.index('id="result-banner"'):page.index('id="draw-banner"')]
    assert "½–½ · Draw · Agreement · " in banner
    assert "1/2-1/2" not in banner


def test_draw_declined_over_http_keeps_the_game(as_alice, as_bob, game):
    as_alice.post(url("game_draw_offer", game), **JSON)
    declined = as_bob.post(url("game_draw_answer", game), {"accept": "no"}, **JSON)
    assert declined.json()["game"]["status"] == "active"
    assert declined.json()["game"]["draw_offer_by"] is None


def test_second_draw_offer_is_refused(as_alice, game):
    as_alice.post(url("game_draw_offer", game), **JSON)
    response = as_alice.post(url("game_draw_offer", game), **JSON)
    assert response.status_code == 409
    assert response.json()["code"] == "draw_offer_pending"


def test_draw_answer_without_an_offer_is_refused(as_bob, game):
    response = as_bob.post(url("game_draw_answer", game), {"accept": "yes"}, **JSON)
    assert response.status_code == 409
    assert response.json()["code"] == "no_draw_offer"
    assert Game.objects.get(pk=game.pk).status == Game.Status.ACTIVE


def test_draw_answer_must_be_yes_or_no(as_alice, as_bob, game):
    as_alice.post(url("game_draw_offer", game), **JSON)
    response = as_bob.post(url("game_draw_answer", game), {"accept": "maybe"}, **JSON)
    assert response.status_code == 400
    assert Game.objects.get(pk=game.pk).draw_offer_by == "white"


def test_resign_from_the_plain_form(as_bob, game):
    response = as_bob.post(url("game_resign", game), follow=True)
    assert response.status_code == 200
    assert Game.objects.get(pk=game.pk).result == "1-0"


def test_resign_twice_is_refused(as_bob, game):
    as_bob.post(url("game_resign", game), **JSON)
    response = as_bob.post(url("game_resign", game), **JSON)
    assert response.status_code == 409
    assert response.json()["code"] == "game_finished"


def test_claim_without_a_claimable_draw_is_refused(as_alice, game):
    response = as_alice.post(url("game_claim_draw", game), **JSON)
    assert response.status_code == 409
    assert response.json()["code"] == "nothing_to_claim"
    assert Game.objects.get(pk=game.pk).status == Game.Status.ACTIVE


def test_claim_after_threefold_repetition_draws(as_alice, game, play):
    play(game, "Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1", "Ng8")
    response = as_alice.post(url("game_claim_draw", game), **JSON)
    assert response.status_code == 200
    assert response.json()["game"]["termination"] == "threefold_repetition"


# --------------------------------------------------------------------------- state, PGN


def test_state_returns_moves_after_the_given_number(as_carol, game, play):
    play(game, "e4", "e5", "Nf3")
    body = as_carol.get(url("game_state", game), {"after": 2}).json()
    assert [m["san"] for m in body["moves"]] == ["Nf3"]
    assert body["claimable"] is None


def test_state_refuses_a_non_numeric_after(as_alice, game):
    response = as_alice.get(url("game_state", game), {"after": "x"})
    assert response.status_code == 400
    assert response.json()["code"] == "invalid_after"


def test_pgn_downloads_under_the_public_id(as_carol, game, play):
    play(game, "e4", "e5")
    response = as_carol.get(url("game_pgn", game))
    assert response.status_code == 200
    assert response["Content-Disposition"] == f'attachment; filename="{game.public_id}.pgn"'
    text = response.content.decode()
    assert '[White "alice"]' in text
    assert "1. e4 e5" in text


def test_pgn_of_a_missing_game_is_404(as_alice, game):
    assert as_alice.get(reverse("game_pgn", args=[game.pk + 999])).status_code == 404


def test_service_change_shows_on_the_next_page_load(as_bob, alice, game):
    services.make_move(game_id=game.pk, player=alice, move_number=1, move="c4")
    assert [m["san"] for m in page_data(as_bob.get(url("game_detail", game)))["moves"]] == ["c4"]


def test_pending_offer_shows_the_answer_form_to_the_opponent_without_scripts(
    as_bob, alice, game
):
    services.offer_draw(game_id=game.pk, player=alice)
    html = as_bob.get(url("game_detail", game), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert 'id="draw-answer" class="d-flex gap-2"' in html
    assert "alice offers a draw." in html


def test_finished_game_offers_no_actions(as_alice, alice, game):
    services.resign(game_id=game.pk, player=alice)
    assert 'id="actions"' not in as_alice.get(url("game_detail", game)).content.decode()


def test_board_theme_preference_sets_the_board_class(as_alice, alice, game):
    account_services.save_preferences(player=alice, values={"board_theme": "blue"})
    html = as_alice.get(url("game_detail", game)).content.decode()
    assert 'class="board-wrap theme-blue pieces-cburnett"' in html


def test_status_bar_preference_hides_the_bar(as_alice, alice, game):
    account_services.save_preferences(player=alice, values={"show_status_bar": False})
    html = as_alice.get(url("game_detail", game)).content.decode()
    assert 'id="status-bar" class="status-bar small d-none"' in html


def status_bar(html: str) -> str:
    start = html.index('id="status-bar"')
    return html[start : html.index("</div>", start)]


@pytest.mark.parametrize(
    "moves, number", [((), 1), (("e4",), 1), (("e4", "e5"), 2), (("e4", "e5", "Nf3"), 2)]
)
def test_status_bar_move_number_counts_moves_not_plies(as_alice, game, play, moves, number):
    play(game, *moves)
    html = as_alice.get(url("game_detail", game)).content.decode()
    assert f">move {number}</span>" in status_bar(html)


def test_connection_state_stays_visible_when_the_status_bar_is_hidden(as_alice, alice, game):
    account_services.save_preferences(player=alice, values={"show_status_bar": False})
    html = as_alice.get(url("game_detail", game)).content.decode()
    assert 'id="status-connection"' not in status_bar(html)
    assert 'id="status-connection"' in html


def coordinates_toggle(client, game: Game) -> str:
    html = client.get(url("game_detail", game)).content.decode()
    start = html.index('id="toggle-coordinates"')
    return html[start : html.index(">", start)]


@pytest.mark.parametrize("shown", [True, False])
def test_coordinates_toggle_starts_from_the_preference(as_alice, alice, game, shown):
    account_services.save_preferences(player=alice, values={"show_coordinates": shown})
    assert f'aria-pressed="{str(shown).lower()}"' in coordinates_toggle(as_alice, game)


def test_export_has_a_live_region_for_copy_feedback(as_alice, game):
    html = as_alice.get(url("game_detail", game)).content.decode()
    assert 'id="export-feedback"' in html
    assert page_data(as_alice.get(url("game_detail", game)))["strings"]["copyFailed"]


# --------------------------------------------------------------------------- error boundary


@pytest.mark.parametrize("headers", [{}, JSON], ids=["form", "json"])
def test_a_bug_inside_a_service_is_logged_and_answered_as_a_server_error(
    alice, game, monkeypatch, server_error, headers
):
    def broken_make_move(**kwargs):
        # What a programming error inside the service looks like from outside.
        raise TypeError("unsupported operand type(s) for +: 'int' and 'str'")

    monkeypatch.setattr(services, "make_move", broken_make_move)
    status, logged = server_error(
        alice, "post", url("game_move", game), {"number": 1, "move": "e4"}, **headers
    )
    # Not the 400 of a bad form, nor a refused move: the server's fault, said as such.
    assert status == 500
    assert len(logged) == 1 and logged[0].exc_info[0] is TypeError


# --------------------------------------------------------------------------- ratings


def test_a_game_in_progress_shows_both_players_ratings_now(as_alice, alice, bob, game):
    PlayerRecord.objects.filter(player=bob).update(rating=1712.4, deviation=70,
                                                   rated_at=timezone.now())
    body = as_alice.get(url("game_state", game), **JSON).json()
    assert body["ratings"] == {
        "rated": False,
        "why_unrated": None,
        "white": {"rating": "1500?", "change": None},
        "black": {"rating": "1712", "change": None},
    }
    page = as_alice.get(url("game_detail", game)).content.decode()
    assert re.search(r'id="rating-black"[^>]*>1712<', page)
    assert re.search(r'id="rating-white"[^>]*>1500\?<', page)


def test_a_finished_rated_game_shows_each_change_in_the_header_and_the_banner(
    as_bob, alice, bob, game, play
):
    play(game, "f3", "e5", "g4", "Qh4#")

    body = as_bob.get(url("game_state", game), **JSON).json()
    assert body["ratings"]["rated"] is True
    assert body["ratings"]["black"] == {"rating": "1662?", "change": "+162"}
    assert body["ratings"]["white"] == {"rating": "1338?", "change": "−162"}
    page = as_bob.get(url("game_detail", game)).content.decode()
    banner = page[page.index('id="result-banner"'):page.index('id="draw-banner"')]
    assert "alice 1338? (−162), bob 1662? (+162)" in banner


def test_a_game_resigned_at_once_says_it_was_not_rated(as_alice, alice, game):
    services.resign(game_id=game.pk, player=alice)
    page = as_alice.get(url("game_detail", game)).content.decode()
    banner = page[page.index('id="result-banner"'):page.index('id="draw-banner"')]
    assert "not rated: the game ended before both players moved" in banner


def test_a_guest_game_says_why_it_was_not_rated_and_shows_no_ratings(as_carol, alice):
    from legacy_tcp import guests

    guest = guests.player_for(gateway="distribuido", name="gw", trusted=False)
    game = services.start_gateway_game(white=alice, black=guest)
    game = services.make_move(game_id=game.pk, player=alice, move_number=1, move="d4")
    game = services.make_move(game_id=game.pk, player=guest, move_number=2, move="d5")
    services.resign(game_id=game.pk, player=guest)
    body = as_carol.get(url("game_state", game), **JSON).json()
    assert body["ratings"] == {
        "rated": False,
        "why_unrated": "guest",
        "white": {"rating": "", "change": None},
        "black": {"rating": "", "change": None},
    }
    page = as_carol.get(url("game_detail", game)).content.decode()
    banner = page[page.index('id="result-banner"'):page.index('id="draw-banner"')]
    assert "not rated: a guest of a TCP gateway played" in banner
    assert "before both players moved" not in banner


def test_the_ending_event_carries_the_ratings_and_a_move_event_does_not(game, play):
    play(game, "f3", "e5", "g4")
    game.refresh_from_db()
    assert "ratings" not in state.event_message(game, "move")
    play(game, "Qh4#")
    ended = state.event_message(game, "move")
    assert ended["ratings"]["black"]["change"] == "+162"
    assert json.loads(ended["frames"][state.WATCHER])["ratings"]["rated"] is True
