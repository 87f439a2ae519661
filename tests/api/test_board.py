"""lichess's Board and Bot APIs: moves, draws, resigning, aborting, claims, the chat and
the bot upgrade; each refused as lichess refuses it (illegal, out of turn, a stranger's,
a bad id or move), with nothing changed."""

from __future__ import annotations

import datetime as dt
import json

import pytest
import time_machine
from django.test import Client
from django.utils import timezone

from accounts.models import BotAccount
from games import services
from games.models import ChatMessage, Game, Move


@pytest.fixture
def seats(alice, bob, api):
    """A game, alice white and bob black, and each one's Board API client."""
    made = services.challenge(challenger=alice, challenged=bob, colour="white", days_per_move=3)
    game = services.accept_challenge(challenge_id=made.pk, player=bob, colour=None)
    return game, api(alice, "board:play"), api(bob, "board:play")


def fresh(game: Game) -> Game:
    return Game.objects.get(pk=game.pk)


def test_moves_are_played_in_uci(seats):
    game, white, black = seats
    assert white.post(f"/api/board/game/{game.short_id}/move/e2e4").json() == {"ok": True}
    assert black.post(f"/api/board/game/{game.short_id}/move/e7e5").json() == {"ok": True}
    assert list(Move.objects.order_by("number").values_list("uci", flat=True)) == ["e2e4", "e7e5"]


def test_every_spelling_of_the_game_is_accepted(seats):
    game, white, _black = seats
    for game_id in (game.short_id + "whit", str(game.pk), game.public_id):
        response = white.post(f"/api/board/game/{game_id}/move/e2e4")
        if response.status_code == 200:
            break
    assert fresh(game).next_move_number == 2


@pytest.mark.parametrize(
    "move, words",
    [
        ("e2e5", "not legal"),
        ("e7e5", "not legal"),
        ("e4", "Invalid UCI"),
        ("E2E4", "Invalid UCI"),
        ("0000", "Invalid UCI"),
        ("e2e4x", "Invalid UCI"),
        ("e2e4qq", "Invalid UCI"),
        ("é2é4", "Invalid UCI"),
        ("x" * 300, "Invalid UCI"),
    ],
)
def test_an_illegal_or_unreadable_move_is_refused(seats, move, words):
    game, white, _black = seats

    response = white.post(f"/api/board/game/{game.short_id}/move/{move}")

    assert response.status_code == 400
    assert words in response.json()["error"]
    assert fresh(game).next_move_number == 1


def test_a_move_out_of_turn_is_refused(seats):
    game, _white, black = seats

    response = black.post(f"/api/board/game/{game.short_id}/move/e7e5")

    assert response.status_code == 400
    assert response.json() == {"error": "It is not your turn."}
    assert not Move.objects.exists()


def test_a_stranger_s_move_is_refused_as_not_their_game(seats, carol, api):
    game, _white, _black = seats

    response = api(carol, "board:play").post(f"/api/board/game/{game.short_id}/move/e2e4")

    assert response.status_code == 404
    assert not Move.objects.exists()


@pytest.mark.parametrize("game_id", ["zzzzzzzz", "0", "-1", "9" * 40, "P" + "9" * 40, "ñ"])
def test_a_move_in_no_game_is_404(seats, game_id):
    _game, white, _black = seats

    response = white.post(f"/api/board/game/{game_id}/move/e2e4")

    assert response.status_code == 404
    assert "error" in response.json()


def test_playing_needs_the_board_scope_and_a_post(seats, alice, api):
    game, white, _black = seats
    assert api(alice, "challenge:write").post(
        f"/api/board/game/{game.short_id}/move/e2e4"
    ).status_code == 403
    assert white.get(f"/api/board/game/{game.short_id}/move/e2e4").status_code == 405
    assert not Move.objects.exists()


def test_a_move_declines_the_opponent_s_draw_offer(seats, alice, bob):
    game, white, black = seats
    white.post(f"/api/board/game/{game.short_id}/move/e2e4")
    services.offer_draw(game_id=game.pk, player=alice)  # on black's turn

    response = black.post(f"/api/board/game/{game.short_id}/move/e7e5")

    assert response.json() == {"ok": True}
    assert fresh(game).draw_offer_by == ""


def test_a_move_offering_a_draw_offers_one_after_it(seats):
    game, white, _black = seats

    white.post(f"/api/board/game/{game.short_id}/move/e2e4?offeringDraw=true")

    assert (fresh(game).next_move_number, fresh(game).draw_offer_by) == (2, "white")


def test_offering_a_draw_while_the_opponent_offers_one_agrees_to_it(seats, alice):
    game, white, black = seats
    white.post(f"/api/board/game/{game.short_id}/move/e2e4")
    services.offer_draw(game_id=game.pk, player=alice)

    black.post(f"/api/board/game/{game.short_id}/move/e7e5?offeringDraw=true")

    assert (fresh(game).status, fresh(game).termination) == ("finished", "agreement")


def test_offering_draw_must_be_a_boolean(seats):
    game, white, _black = seats
    response = white.post(f"/api/board/game/{game.short_id}/move/e2e4?offeringDraw=perhaps")
    assert response.status_code == 400
    assert not Move.objects.exists()


def test_draw_yes_offers_and_yes_again_from_the_other_side_agrees(seats):
    game, white, black = seats
    white.post(f"/api/board/game/{game.short_id}/move/e2e4")

    assert white.post(f"/api/board/game/{game.short_id}/draw/yes").json() == {"ok": True}
    assert fresh(game).draw_offer_by == "white"
    black.post(f"/api/board/game/{game.short_id}/draw/yes")

    assert (fresh(game).result, fresh(game).termination) == ("1/2-1/2", "agreement")


@pytest.mark.parametrize("no", ["no", "false", "0"])
def test_draw_no_declines_and_with_nothing_to_decline_changes_nothing(seats, alice, no):
    game, white, black = seats
    white.post(f"/api/board/game/{game.short_id}/move/e2e4")
    assert black.post(f"/api/board/game/{game.short_id}/draw/{no}").json() == {"ok": True}
    services.offer_draw(game_id=game.pk, player=alice)

    black.post(f"/api/board/game/{game.short_id}/draw/{no}")

    assert (fresh(game).draw_offer_by, fresh(game).status) == ("", "active")


@pytest.mark.parametrize("answer", ["maybe", "YESS", "2", "ñ"])
def test_a_draw_answer_that_is_not_yes_or_no_is_refused(seats, answer):
    game, white, _black = seats
    response = white.post(f"/api/board/game/{game.short_id}/draw/{answer}")
    assert response.status_code == 400
    assert fresh(game).draw_offer_by == ""


def test_a_second_offer_before_moving_is_refused_with_the_reason(seats):
    game, white, black = seats
    white.post(f"/api/board/game/{game.short_id}/move/e2e4")
    white.post(f"/api/board/game/{game.short_id}/draw/yes")
    black.post(f"/api/board/game/{game.short_id}/draw/no")

    response = white.post(f"/api/board/game/{game.short_id}/draw/yes")

    assert response.status_code == 400
    assert "make a move first" in response.json()["error"]


def test_resigning_ends_the_game(seats):
    game, white, _black = seats

    assert white.post(f"/api/board/game/{game.short_id}/resign").json() == {"ok": True}

    assert (fresh(game).result, fresh(game).termination) == ("0-1", "resignation")


def test_a_game_is_aborted_before_both_players_moved_and_not_after(seats):
    game, white, black = seats
    white.post(f"/api/board/game/{game.short_id}/move/e2e4")
    black.post(f"/api/board/game/{game.short_id}/move/e7e5")
    late = white.post(f"/api/board/game/{game.short_id}/abort")
    assert late.status_code == 400 and "no longer be aborted" in late.json()["error"]
    assert fresh(game).is_active


def test_aborting_an_unplayed_game(seats):
    game, _white, black = seats

    assert black.post(f"/api/board/game/{game.short_id}/abort").json() == {"ok": True}

    assert (fresh(game).termination, fresh(game).result) == ("aborted", "*")


def test_acting_on_a_finished_game_is_refused(seats):
    game, white, black = seats
    white.post(f"/api/board/game/{game.short_id}/resign")
    for path in ("move/e7e5", "resign", "abort", "draw/yes", "claim-victory"):
        response = black.post(f"/api/board/game/{game.short_id}/{path}")
        assert response.status_code == 400, path
    assert fresh(game).termination == "resignation"


def test_victory_is_claimed_once_the_opponent_s_time_has_run_out(seats):
    game, white, black = seats
    white.post(f"/api/board/game/{game.short_id}/move/e2e4")
    black.post(f"/api/board/game/{game.short_id}/move/e7e5")
    too_soon = black.post(f"/api/board/game/{game.short_id}/claim-victory")
    assert too_soon.status_code == 400 and fresh(game).is_active

    with time_machine.travel(timezone.now() + dt.timedelta(days=3, minutes=1)):
        own_clock = white.post(f"/api/board/game/{game.short_id}/claim-victory/")
        claimed = black.post(f"/api/board/game/{game.short_id}/claim-victory/")

    assert own_clock.status_code == 400
    assert claimed.json() == {"ok": True}
    assert (fresh(game).result, fresh(game).termination) == ("0-1", "timeout")


def test_takebacks_are_refused_clearly(seats):
    game, white, _black = seats
    response = white.post(f"/api/board/game/{game.short_id}/takeback/yes")
    assert response.status_code == 400
    assert "taken back" in response.json()["error"]


def test_claim_draw_without_a_repetition_is_refused(seats):
    game, white, _black = seats
    response = white.post(f"/api/board/game/{game.short_id}/claim-draw")
    assert response.status_code == 400
    assert fresh(game).is_active


# --------------------------------------------------------------------------- chat


def test_the_players_chat_is_written_as_a_form_or_json_and_read(seats):
    game, white, black = seats
    assert white.post(
        f"/api/board/game/{game.short_id}/chat", {"room": "player", "text": "Hola ♟"}
    ).json() == {"ok": True}
    black.post(
        f"/api/board/game/{game.short_id}/chat",
        json.dumps({"room": "player", "text": "suerte"}),
        content_type="application/json",
    )

    lines = white.get(f"/api/board/game/{game.short_id}/chat").json()

    assert lines == [{"text": "Hola ♟", "user": "alice"}, {"text": "suerte", "user": "bob"}]


@pytest.mark.parametrize(
    "form, status",
    [
        ({"room": "player"}, 400),
        ({"text": "hi"}, 400),
        ({"room": "lobby", "text": "hi"}, 400),
        ({"room": "spectator", "text": "hi"}, 400),
        ({"room": "player", "text": ""}, 400),
        ({"room": "player", "text": "   "}, 400),
        ({"room": "player", "text": "x" * 301}, 400),
        ({"room": "player", "text": "bad\u202econtrol"}, 400),
        ({"room": "player", "text": "x" * 20_000}, 413),
    ],
)
def test_a_chat_line_that_cannot_be_written_is_refused(seats, form, status):
    game, white, _black = seats

    response = white.post(f"/api/board/game/{game.short_id}/chat", form)

    assert response.status_code == status
    assert not ChatMessage.objects.exists()


def test_a_stranger_reads_no_players_chat(seats, carol, api):
    game, white, _black = seats
    white.post(f"/api/board/game/{game.short_id}/chat", {"room": "player", "text": "secret"})

    response = api(carol, "board:play").get(f"/api/board/game/{game.short_id}/chat")

    assert response.status_code == 404


# --------------------------------------------------------------------------- bots


def test_an_account_that_never_played_becomes_a_bot_and_plays_with_the_bot_api(
    make_player, alice, api
):
    robot = make_player("robot")
    as_robot = api(robot, "bot:play", "board:play", "challenge:write")

    assert as_robot.post("/api/bot/account/upgrade").json() == {"ok": True}
    assert BotAccount.objects.filter(player=robot).exists()
    assert as_robot.get("/api/account").json()["title"] == "BOT"
    made = services.challenge(challenger=alice, challenged=robot, colour="black")
    as_robot.post(f"/api/challenge/{made.short_id}/accept")
    game = Game.objects.get()

    assert as_robot.post(f"/api/bot/game/{game.short_id}/move/e2e4").json() == {"ok": True}
    board = as_robot.post(f"/api/board/game/{game.short_id}/resign")
    assert board.status_code == 400 and "Bot account" in board.json()["error"]
    # berserk's bots client answers draws with 1 and 0.
    assert as_robot.post(f"/api/bot/game/{game.short_id}/draw/1").json() == {"ok": True}
    assert fresh(game).draw_offer_by == "white"
    assert as_robot.post(f"/api/bot/game/{game.short_id}/resign").json() == {"ok": True}
    assert fresh(game).result == "0-1"


def test_an_account_that_has_played_cannot_become_a_bot(seats, alice, api):
    response = api(alice, "bot:play").post("/api/bot/account/upgrade")

    assert response.status_code == 400
    assert "played a game" in response.json()["error"]
    assert not BotAccount.objects.exists()


def test_upgrading_twice_is_refused_and_needs_the_bot_scope(make_player, api):
    robot = make_player("robot")
    assert api(robot, "board:play").post("/api/bot/account/upgrade").status_code == 403
    as_robot = api(robot, "bot:play")
    as_robot.post("/api/bot/account/upgrade")
    assert as_robot.post("/api/bot/account/upgrade").status_code == 400


def test_the_bot_api_is_refused_to_a_player_who_is_no_bot(seats, alice, api):
    game, _white, _black = seats

    response = api(alice, "bot:play").post(f"/api/bot/game/{game.short_id}/move/e2e4")

    assert response.status_code == 400
    assert "Bot account" in response.json()["error"]
    assert not Move.objects.exists()


def test_a_bot_cannot_log_in_on_the_site(make_player, api):
    from tests.conftest import PASSWORD

    robot = make_player("robot")
    api(robot, "bot:play").post("/api/bot/account/upgrade")

    response = Client().post("/accounts/login/", {"username": "robot", "password": PASSWORD})

    assert response.status_code == 200
    assert "bot account" in response.content.decode()
    assert "_auth_user_id" not in Client().session


def test_a_bot_is_shown_as_a_bot_on_its_pages(make_player, alice, api):
    robot = make_player("robot")
    api(robot, "bot:play").post("/api/bot/account/upgrade")
    made = services.challenge(challenger=alice, challenged=robot)
    game = services.accept_challenge(challenge_id=made.pk, player=robot, colour="black")
    as_alice = Client()
    as_alice.force_login(alice)

    for page in ("/players/robot/", f"/games/{game.pk}/", "/players/"):
        html = as_alice.get(page).content.decode()
        assert 'class="badge text-bg-secondary bot-title">BOT' in html, page
    assert "bot-title" not in as_alice.get("/players/alice/").content.decode()
