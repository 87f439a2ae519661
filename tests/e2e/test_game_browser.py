"""Two players in two browsers, against Daphne: subscribing, approval, challenge, moves by
dragging pieces with the opponent's board following live, draws, resignation, promotion,
and a page that loses its socket and comes back without missing or doubling a move."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from django.conf import settings
from playwright.sync_api import Page, expect

from accounts import services as account_services
from accounts.models import SubscriptionRequest
from accounts.selectors import preferences_of
from games.models import Game
from tests.e2e.board import (
    drag,
    expect_moves,
    move_list,
    open_game,
    square_centre,
    type_move,
)

pytestmark = pytest.mark.e2e

PASSWORD = "tablero-de-1995"


# --------------------------------------------------------------------------- helpers


def play_by_dragging(
    white: Page, black: Page, moves: list[str], *, confirm: bool = False
) -> None:
    """Alternate drags (UCI ``e2e4``), each time waiting for the opponent's page to show
    the move without a reload; with ``confirm``, each move is confirmed after the drag."""
    played = len(move_list(white))
    for uci in moves:
        mover, other = (white, black) if played % 2 == 0 else (black, white)
        drag(mover, uci[:2], uci[2:4])
        if confirm:
            mover.locator("#btn-move-confirm").click()
        played += 1
        # The mover's page first: a drag that missed shows there, not as a slow socket.
        expect_moves(mover, played)
        expect_moves(other, played)


def subscribe(page: Page, username: str) -> None:
    page.goto("/accounts/subscribe/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password1]", PASSWORD)
    page.fill("input[name=password2]", PASSWORD)
    page.fill("input[name=comment]", f"{username.title()} Tester")
    page.locator("main form button[type=submit]").click()
    page.wait_for_url("**/subscribe/done/**")


def log_in(page: Page, username: str) -> None:
    page.goto("/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", PASSWORD)
    page.locator("main form button[type=submit]").click()
    page.wait_for_url(lambda url: "/accounts/login/" not in url)


# --------------------------------------------------------------------------- scenarios


def approve_all_in_the_admin(page: Page) -> None:
    """An administrator approves every pending request with the changelist's action."""
    page.goto("/admin/accounts/subscriptionrequest/?status__exact=pending")
    page.locator("#action-toggle").check()
    page.locator("select[name=action]").select_option("approve")
    page.locator("button[name=index]").click()
    expect(page.locator("ul.messagelist")).to_contain_text("Approved")


def test_subscribe_approve_challenge_and_mate_with_live_updates(
    new_page, make_player, screenshot
):
    admin = make_player("admin", is_staff=True, is_superuser=True)
    ana, beto = new_page(), new_page()
    subscribe(ana, "ana")
    subscribe(beto, "beto")
    approve_all_in_the_admin(new_page(admin))
    assert not SubscriptionRequest.objects.filter(status="pending").exists()
    log_in(ana, "ana")
    log_in(beto, "beto")

    beto.goto("/")
    ana.goto("/")
    ana.fill("#challenge-username", "beto")
    ana.locator("form.challenge-form button[type=submit]").click()
    # beto's dashboard hears the challenge on its socket and refreshes by itself.
    incoming = beto.locator("#incoming-challenges [data-challenge-id]")
    expect(incoming).to_have_count(1)
    screenshot(beto, "dashboard-challenge")
    incoming.get_by_role("button", name="Black").click()
    game = Game.objects.get(white__username="ana", black__username="beto")

    open_game(ana, game)
    open_game(beto, game)
    # New accounts confirm each move before it is sent (the default preference).
    play_by_dragging(ana, beto, ["f2f3", "e7e5"], confirm=True)
    screenshot(ana, "game-mid-game")
    play_by_dragging(ana, beto, ["g2g4", "d8h4"], confirm=True)
    for page in (ana, beto):
        expect(page.locator("#result-banner")).to_contain_text("0-1")
    assert move_list(ana) == ["f3", "e5", "g4", "Qh4#"]
    screenshot(ana, "game-finished-checkmate")
    assert Game.objects.get(pk=game.pk).termination == "checkmate"
    ana.goto("/")
    screenshot(ana, "dashboard")


def test_draw_offered_and_accepted(new_page, game, alice, bob, screenshot):
    white, black = open_game(new_page(alice), game), open_game(new_page(bob), game)
    play_by_dragging(white, black, ["e2e4", "e7e5"])
    white.locator("#btn-draw-offer").click()
    expect(white.locator("#draw-banner")).to_be_visible()
    accept = black.locator("#btn-draw-accept")
    expect(accept).to_be_visible()
    screenshot(black, "game-draw-offered")
    accept.click()
    for page in (white, black):
        expect(page.locator("#result-banner")).to_contain_text("½–½")
        expect(page.locator("#move-list .move-result")).to_have_text("½–½")
        expect(page.locator("#actions")).to_be_hidden()
    assert Game.objects.get(pk=game.pk).termination == "agreement"


def test_draw_offer_declined_lets_play_continue(new_page, game, alice, bob):
    white, black = open_game(new_page(alice), game), open_game(new_page(bob), game)
    white.locator("#btn-draw-offer").click()
    # The offer's banner shows above the board before it goes: dragging while it is
    # still to come would drop the piece on a board that moves under the mouse.
    expect(white.locator("#draw-banner")).to_be_visible()
    black.locator("#btn-draw-decline").click()
    expect(white.locator("#draw-banner")).to_be_hidden()
    play_by_dragging(white, black, ["d2d4"])
    assert Game.objects.get(pk=game.pk).status == Game.Status.ACTIVE


def test_resignation_needs_confirmation_and_ends_the_game(new_page, game, alice, bob):
    white, black = open_game(new_page(alice), game), open_game(new_page(bob), game)
    confirm = black.locator("#btn-resign-confirm")
    expect(confirm).to_be_hidden()
    black.locator("#resign summary").click()
    expect(confirm).to_be_visible()
    confirm.click()
    for page in (white, black):
        expect(page.locator("#result-banner")).to_contain_text("1-0")
    assert Game.objects.get(pk=game.pk).termination == "resignation"


def test_promotion_through_the_picker(new_page, game, alice, bob, play, screenshot):
    play(game, "a4", "b5", "axb5", "a6", "bxa6", "Nc6", "a7", "Rb8")
    white, black = open_game(new_page(alice), game), open_game(new_page(bob), game)
    drag(white, "a7", "a8")
    picker = white.locator("#promotion")
    expect(picker).to_be_visible()
    screenshot(white, "game-promotion-picker")
    picker.locator("[data-piece=n]").click()
    expect_moves(black, 9)
    assert move_list(black)[-1] == "a8=N"
    assert Game.objects.get(pk=game.pk).moves.get(number=9).uci == "a7a8n"


def test_live_update_closes_the_promotion_picker_and_puts_the_pawn_back(
    new_page, game, alice, bob, play
):
    play(game, "a4", "b5", "axb5", "a6", "bxa6", "Nc6", "a7", "Rb8")
    white, black = open_game(new_page(alice), game), open_game(new_page(bob), game)
    drag(white, "a7", "a8")
    picker = white.locator("#promotion")
    expect(picker).to_be_visible()
    # The picker is a dialog over the board: the replay keys wait until it is closed.
    white.keyboard.press("ArrowLeft")
    white.keyboard.press("Home")
    assert shown_ply(white) == 8
    expect(picker).to_be_visible()
    black.locator("#btn-draw-offer").click()
    expect(white.locator("#draw-banner")).to_be_visible()
    expect(picker).to_be_hidden()
    assert white.evaluate("window.ajedrezGame.boardFen()").startswith("1rbqkbnr/P1pppppp")
    assert Game.objects.get(pk=game.pk).next_move_number == 9


def test_promotion_cancelled_puts_the_pawn_back(new_page, game, alice, play):
    play(game, "a4", "b5", "axb5", "a6", "bxa6", "Nc6", "a7", "Rb8")
    white = open_game(new_page(alice), game)
    drag(white, "a7", "a8")
    white.locator("#promotion .promotion-cancel").click()
    expect(white.locator("#promotion")).to_be_hidden()
    assert white.evaluate("window.ajedrezGame.boardFen()").startswith("1rbqkbnr/P1pppppp")
    assert Game.objects.get(pk=game.pk).next_move_number == 9


def test_illegal_drop_snaps_back_without_a_request(new_page, game, alice):
    white = new_page(alice)
    sent: list[str] = []
    white.on("websocket", lambda ws: ws.on("framesent", lambda frame: sent.append(frame)))
    open_game(white, game)
    drag(white, "e2", "e5")
    white.wait_for_timeout(300)
    assert white.evaluate("window.ajedrezGame.boardFen()").startswith(
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/"
    )
    assert not any('"move"' in str(frame) for frame in sent)
    expect_moves(white, 0)
    assert not Game.objects.get(pk=game.pk).moves.exists()


ILLEGAL = "That move is not legal in this position."


def test_typed_illegal_move_keeps_the_text_shows_the_error_and_a_legal_one_is_played(
    new_page, game, alice
):
    white = open_game(new_page(alice), game)
    box = white.locator("#move-input")
    type_move(white, "e2e5")
    expect(white.locator("#game-error")).to_have_text(ILLEGAL)
    expect(white.locator("#move-input-error")).to_have_text(ILLEGAL)
    expect(box).to_have_attribute("aria-invalid", "true")
    expect(box).to_have_value("e2e5")
    expect_moves(white, 0)
    # Correcting the text clears the complaint; the accepted move empties the box.
    box.fill("")
    expect(white.locator("#move-input-error")).to_be_hidden()
    type_move(white, "Nf3")
    expect_moves(white, 1)
    expect(box).to_have_value("")
    assert Game.objects.get(pk=game.pk).moves.get().san == "Nf3"


def test_a_refused_typed_move_leaves_the_box_when_a_board_move_is_played(
    new_page, game, alice
):
    white = open_game(new_page(alice), game)
    box = white.locator("#move-input")
    type_move(white, "Qh5")
    expect(white.locator("#move-input-error")).to_have_text(ILLEGAL)
    drag(white, "e2", "e4")
    expect_moves(white, 1)
    expect(box).to_have_value("")
    expect(box).not_to_have_attribute("aria-invalid", "true")
    expect(white.locator("#move-input-error")).to_be_hidden()


def test_a_typed_move_being_edited_stays_when_a_board_move_is_played(new_page, game, alice):
    white = open_game(new_page(alice), game)
    box = white.locator("#move-input")
    type_move(white, "Qh5")
    expect(white.locator("#move-input-error")).to_have_text(ILLEGAL)
    box.press("End")
    box.press("Backspace")  # the player is correcting it: not ours to take away
    expect(box).to_have_value("Qh")
    drag(white, "e2", "e4")
    expect_moves(white, 1)
    expect(box).to_have_value("Qh")


def test_typed_move_stays_in_the_box_until_the_server_answers(new_page, game, alice):
    """The answer to the move is held back: until it comes, the text is still there."""
    white = new_page(alice)
    held: list = []

    def relay(ws):
        server = ws.connect_to_server()

        def to_page(message):
            if json.loads(message).get("type") == "ack":
                held.append(message)
                return
            ws.send(message)

        server.on_message(to_page)

    white.route_web_socket("**/ws/games/**", relay)
    open_game(white, game)
    type_move(white, "e4")
    expect_moves(white, 1)  # the move's event arrived; its ack is held
    white.wait_for_timeout(200)
    expect(white.locator("#move-input")).to_have_value("e4")
    assert len(held) == 1


def test_typed_illegal_move_over_http_keeps_the_text(new_page, game, alice):
    white = new_page(alice)
    white.add_init_script("delete window.WebSocket")
    white.goto(f"/games/{game.pk}/")
    expect(white.locator("#game")).to_have_attribute("data-connection", "offline")
    type_move(white, "Ke2")
    expect(white.locator("#move-input-error")).to_have_text(ILLEGAL)
    expect(white.locator("#move-input")).to_have_value("Ke2")
    white.locator("#move-input").fill("e4")
    white.locator("#move-form button[type=submit]").click()
    expect_moves(white, 1)
    expect(white.locator("#move-input")).to_have_value("")


def test_typed_illegal_move_without_scripts_keeps_the_text(new_page, game, alice, screenshot):
    white = new_page(alice, javascript=False)
    white.goto(f"/games/{game.pk}/")
    white.locator("#move-input").fill("e2e5")
    white.locator("#move-form button[type=submit]").click()
    expect(white.locator("#move-input")).to_have_value("e2e5")
    expect(white.locator("#move-input-error")).to_have_text(ILLEGAL)
    expect(white.locator("#board-noscript")).to_be_visible()  # not an empty board
    assert white.locator("#board-wrap").bounding_box()["height"] < 100
    screenshot(white, "game-no-script-illegal-move")
    assert not Game.objects.get(pk=game.pk).moves.exists()


def test_watcher_follows_live_without_controls(new_page, game, alice, bob, carol):
    white, black = open_game(new_page(alice), game), open_game(new_page(bob), game)
    watcher = open_game(new_page(carol), game)
    expect(watcher.locator("#actions")).to_have_count(0)
    play_by_dragging(white, black, ["e2e4", "c7c5"])
    expect_moves(watcher, 2)
    assert watcher.locator("#game").get_attribute("data-can-move") == "false"


class Outage:
    """Cuts a page off from the server on demand: while ``down``, each socket the page
    opens goes to a closed port (so it fails, as when the network is gone) and its
    polls of the state URL fail; set ``down`` back to False and the page's next attempt
    goes through. ``urls`` lists the addresses the page asked for, in order."""

    SCRIPT = """
    (() => {
      const Real = window.WebSocket;
      window.outage = { down: false, urls: [] };
      function CutWebSocket(url, protocols) {
        window.outage.urls.push(String(url));
        return new Real(window.outage.down ? "ws://127.0.0.1:9/" : url, protocols);
      }
      CutWebSocket.prototype = Real.prototype;
      for (const name of ["CONNECTING", "OPEN", "CLOSING", "CLOSED"]) {
        CutWebSocket[name] = Real[name];
      }
      window.WebSocket = CutWebSocket;
    })();
    """

    def __init__(self, page: Page) -> None:
        self.page = page
        self._down = False
        page.add_init_script(self.SCRIPT)
        page.route("**/games/*/state/**", self._poll)

    @property
    def down(self) -> bool:
        return self._down

    @down.setter
    def down(self, value: bool) -> None:
        self._down = value
        self.page.evaluate(f"window.outage.down = {'true' if value else 'false'}")

    def sockets_back(self) -> None:
        """The page's next socket goes through while its polls still fail: what it lacks
        can then come by that socket only."""
        self.page.evaluate("window.outage.down = false")

    @property
    def urls(self) -> list[str]:
        return self.page.evaluate("window.outage.urls")

    def _poll(self, route) -> None:
        if self._down:
            route.abort()
        else:
            route.continue_()


def test_socket_dropped_and_back_misses_and_doubles_nothing(new_page, game, alice, bob):
    black = new_page(bob)
    outage = Outage(black)
    white = open_game(new_page(alice), game)
    open_game(black, game)
    play_by_dragging(white, black, ["e2e4", "e7e5"])
    outage.down = True
    black.evaluate("window.ajedrezGame.socket.close()")
    expect(black.locator("#game")).to_have_attribute("data-connection", "offline")
    drag(white, "g1", "f3")
    expect_moves(white, 3)
    # The move is committed while black's page is cut off, and black has not seen it.
    assert Game.objects.get(pk=game.pk).moves.count() == 3
    black.wait_for_timeout(1500)  # reconnection attempts come and are refused
    assert move_list(black) == ["e4", "e5"]
    expect(black.locator("#game")).not_to_have_attribute("data-connection", "connected")
    attempts = len(outage.urls)
    # Back for the socket first: a poll let through could bring move 3 before the next
    # reconnection (on a loaded machine the back-off has grown to many seconds by now),
    # and the socket would then rightly ask for nothing.
    outage.sockets_back()
    # The back-off is at most 37.5 s (30 s and its jitter): wait for the attempt, however
    # late it comes.
    expect(black.locator("#game")).to_have_attribute(
        "data-connection", "connected", timeout=45_000
    )
    expect_moves(black, 3)
    outage.down = False
    assert attempts >= 2  # it did try, and was refused, while cut off
    assert outage.urls[-1].endswith("?after=2")  # asked only for what it lacked
    drag(black, "b8", "c6")
    expect_moves(white, 4)
    expect_moves(black, 4)
    assert move_list(black) == ["e4", "e5", "Nf3", "Nc6"]


# --------------------------------------------------------------------------- sound, status


def spy_on_sounds(page: Page) -> None:
    """Record each sound the page plays (``window.soundsPlayed``) instead of playing it."""
    page.add_init_script(
        """
        window.soundsPlayed = [];
        HTMLMediaElement.prototype.play = function () {
          window.soundsPlayed.push(this.src);
          return Promise.resolve();
        };
        """
    )


def sounds_played(page: Page) -> list[str]:
    return page.evaluate("window.soundsPlayed")


def white_and_listening_black(new_page, game, alice, bob) -> tuple[Page, Page]:
    """Both players' game pages, black's with its sounds recorded."""
    black = new_page(bob)
    spy_on_sounds(black)
    white = open_game(new_page(alice), game)
    open_game(black, game)
    return white, black


def test_opponents_move_plays_a_sound_and_my_own_does_not(new_page, game, alice, bob):
    assert preferences_of(bob).sound  # the default
    white, black = white_and_listening_black(new_page, game, alice, bob)
    drag(white, "e2", "e4")
    expect_moves(black, 1)
    black.wait_for_function("window.soundsPlayed.length === 1")
    assert re.search(r"/static/sounds/move\.[0-9a-f]{12}\.wav$", sounds_played(black)[0])
    drag(black, "e7", "e5")
    expect_moves(white, 2)
    black.wait_for_timeout(300)
    assert len(sounds_played(black)) == 1


def test_no_sound_when_the_preference_is_off(new_page, game, alice, bob):
    account_services.save_preferences(player=bob, values={"sound": False})
    white, black = white_and_listening_black(new_page, game, alice, bob)
    drag(white, "e2", "e4")
    expect_moves(black, 1)
    black.wait_for_timeout(300)
    assert sounds_played(black) == []


def test_status_bar_says_how_long_the_last_move_took(new_page, game, alice, bob, play):
    play(game, "e4", "e5")
    # Thought for three hours and five minutes over e5.
    game.moves.filter(number=2).update(think_seconds=3 * 3600 + 5 * 60)
    white, black = open_game(new_page(alice), game), open_game(new_page(bob), game)
    think = black.locator("#status-think")
    expect(think).to_have_text("last move took 3 h 5 min")
    drag(white, "g1", "f3")  # a move made at once, shown live in seconds
    # Seconds, however many a loaded machine took to open the pages: not the 3 h before.
    expect(think).to_have_text(re.compile(r"^last move took \d+ s$"))
    expect(black.locator("#status-move")).to_have_text("move 2")


def highlighted(page: Page, kind: str) -> list[str]:
    """The squares chessground marks with ``kind`` (``last-move``, ``check``). It keeps
    unused markers in the board hidden for reuse: only the visible ones count."""
    return page.locator(f"#board square.{kind}").evaluate_all(
        "squares => squares.filter(s => s.style.visibility !== 'hidden')"
        ".map(s => s.cgKey).sort()"
    )


def test_last_move_and_check_are_highlighted_on_the_board(new_page, game, alice, bob, play):
    play(game, "e4", "f5")
    white, black = open_game(new_page(alice), game), open_game(new_page(bob), game)
    assert highlighted(black, "last-move") == ["f5", "f7"]
    assert highlighted(black, "check") == []
    drag(white, "d1", "h5")  # Qh5+
    expect_moves(black, 3)
    expect(black.locator("#board square.check:visible")).to_have_count(1)
    assert highlighted(black, "check") == ["e8"]
    assert highlighted(black, "last-move") == ["d1", "h5"]
    # The mover's board shows the check once the move is acknowledged: waited for, as on
    # the other page (read at once, a loaded run read the board before the answer).
    expect(white.locator("#board square.check:visible")).to_have_count(1)
    assert highlighted(white, "check") == ["e8"]
    drag(black, "g7", "g6")  # out of check
    expect_moves(white, 4)
    expect(white.locator("#board square.check:visible")).to_have_count(0)
    assert highlighted(white, "last-move") == ["g6", "g7"]


def test_missed_event_is_recovered_by_a_sync(new_page, game, alice, bob):
    """The socket loses one event on the way (intercepted): the next event shows a gap
    in the version, the page asks for a sync, and ends up with every move once."""
    black = new_page(bob)
    dropped: list[dict] = []
    synced: list[dict] = []

    def relay(ws):
        server = ws.connect_to_server()

        def to_page(message):
            frame = json.loads(message)
            if frame.get("type") == "event" and frame.get("move", {}).get("number") == 1:
                dropped.append(frame)
                return
            ws.send(message)

        def to_server(message):
            if json.loads(message).get("type") == "sync":
                synced.append(json.loads(message))
            server.send(message)

        server.on_message(to_page)
        ws.on_message(to_server)

    black.route_web_socket("**/ws/games/**", relay)
    open_game(black, game)
    white = open_game(new_page(alice), game)
    drag(white, "e2", "e4")
    expect_moves(white, 1)
    white.locator("#btn-draw-offer").click()  # the next event, one version further
    expect_moves(black, 1)
    expect(black.locator("#draw-banner")).to_be_visible()
    assert len(dropped) == 1
    assert synced and synced[0]["after"] == 0
    assert move_list(black) == ["e4"]


def test_only_the_new_move_is_announced(new_page, game, alice, bob):
    white, black = open_game(new_page(alice), game), open_game(new_page(bob), game)
    # The list is redrawn on every move: it must not be a live region, or a screen
    # reader would read the whole game again each time.
    assert black.locator("#move-list").get_attribute("aria-live") is None
    assert black.locator("[aria-live] #move-list, #move-list[aria-live]").count() == 0
    announcer = black.locator("#move-announcer")
    expect(announcer).to_have_attribute("aria-live", "polite")
    expect(announcer).to_have_text("")  # opening the page says nothing
    play_by_dragging(white, black, ["e2e4", "e7e5", "g1f3"])
    expect(announcer).to_have_text("2. Nf3")
    expect(white.locator("#move-announcer")).to_have_text("2. Nf3")
    drag(black, "b8", "c6")
    expect(white.locator("#move-announcer")).to_have_text("2… Nc6")


def test_move_list_replay_with_buttons_and_keys(new_page, game, alice, play):
    play(game, "e4", "e5", "Nf3")
    white = open_game(new_page(alice), game)
    fen = white.locator("#fen")
    white.locator("[data-step=first]").click()
    assert fen.input_value().startswith("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w")
    white.keyboard.press("ArrowRight")
    assert fen.input_value().startswith("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b")
    assert white.locator("#game").get_attribute("data-can-move") == "false"
    white.locator("[data-step=last]").click()
    expect(white.locator("#game")).to_have_attribute("data-can-move", "false")  # black to move
    assert white.locator("#move-list .move.current").inner_text() == "Nf3"


def shown_ply(page: Page) -> int:
    return page.evaluate("window.ajedrezGame.state.ply")


def test_replay_keys_step_back_to_the_start_and_forward_to_the_end(new_page, game, bob, play):
    play(game, "e4", "e5", "Nf3")
    black = open_game(new_page(bob), game)
    fen = black.locator("#fen")
    current = black.locator("#move-list .move.current")
    black.locator("#board").focus()
    black.keyboard.press("ArrowLeft")
    assert shown_ply(black) == 2
    expect(current).to_have_text("e5")
    assert fen.input_value().startswith("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w")
    expect(black.locator("#game")).to_have_attribute("data-can-move", "false")
    black.keyboard.press("Home")
    assert shown_ply(black) == 0
    expect(current).to_have_count(0)
    assert fen.input_value().startswith("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w")
    black.keyboard.press("End")
    assert shown_ply(black) == 3
    expect(current).to_have_text("Nf3")
    assert fen.input_value().startswith("rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b")
    expect(black.locator("#game")).to_have_attribute("data-can-move", "true")
    # A clicked move keeps the focus in the list, so the keys go on working there.
    black.locator("#move-list .move", has_text="e4").click()
    black.keyboard.press("End")
    assert shown_ply(black) == 3


def test_replay_keys_leave_fields_links_and_page_scrolling_alone(new_page, game, alice, play):
    play(game, "e4", "e5", "Nf3", "Nc6")
    white = open_game(new_page(alice), game)
    white.locator("#move-input").focus()
    white.keyboard.press("Home")
    white.keyboard.press("ArrowLeft")
    assert shown_ply(white) == 4
    white.get_by_role("link", name="Download PGN").focus()
    white.keyboard.press("Home")
    assert shown_ply(white) == 4
    # Nothing focused: the arrows step, Home and End are the page's own.
    white.evaluate("document.activeElement.blur()")
    white.keyboard.press("Home")
    assert shown_ply(white) == 4
    white.keyboard.press("ArrowLeft")
    assert shown_ply(white) == 3


def test_game_page_fits_a_phone_screen(new_page, game, alice, play, screenshot):
    play(game, "e4", "e5", "Nf3", "Nc6")
    phone = open_game(new_page(alice, width=390, height=844), game)
    board = phone.locator("#board cg-board").bounding_box()
    assert board is not None
    assert 300 <= board["width"] <= 390
    scroll_width = phone.evaluate("document.documentElement.scrollWidth")
    assert scroll_width <= 390
    screenshot(phone, "game-phone")


def test_pgn_downloads_with_the_public_id(new_page, game, alice, play):
    play(game, "e4", "e5")
    white = open_game(new_page(alice), game)
    with white.expect_download() as info:
        white.get_by_role("link", name="PGN").click()
    assert info.value.suggested_filename == f"{game.public_id}.pgn"


def test_page_plays_over_http_without_websocket(new_page, game, alice, bob):
    """A browser without WebSocket: moves go by HTTP POST and the opponent's moves
    arrive by polling the state URL."""
    white = new_page(alice)
    white.add_init_script("delete window.WebSocket")
    white.goto(f"/games/{game.pk}/")
    expect(white.locator("#game")).to_have_attribute("data-connection", "offline")
    black = open_game(new_page(bob), game)
    drag(white, "d2", "d4")
    expect_moves(white, 1)
    expect_moves(black, 1)
    drag(black, "d7", "d5")
    expect(white.locator("#move-list .move")).to_have_count(2, timeout=15_000)
    assert move_list(white) == ["d4", "d5"]


def test_click_click_move_and_flip(new_page, game, alice, bob):
    white, black = open_game(new_page(alice), game), open_game(new_page(bob), game)
    expect(white.locator("#game")).to_have_attribute("data-can-move", "true")
    white.mouse.click(*square_centre(white, "g1"))
    expect(white.locator("#board square.move-dest")).to_have_count(2)  # f3, h3
    white.mouse.click(*square_centre(white, "f3"))
    expect_moves(black, 1)
    assert move_list(black) == ["Nf3"]
    board = white.locator("#board")
    expect(board).to_have_class(re.compile(r"orientation-white"))
    white.locator("#flip").click()
    expect(board).to_have_class(re.compile(r"orientation-black"))


def test_coordinates_toggle_redraws_the_board_at_once(new_page, game, alice, bob):
    white, black = open_game(new_page(alice), game), open_game(new_page(bob), game)
    coords = white.locator("#board coords")
    toggle = white.locator("#toggle-coordinates")
    expect(coords).to_have_count(2)  # ranks and files
    toggle.click()
    expect(coords).to_have_count(0)
    expect(toggle).to_have_attribute("aria-pressed", "false")
    # The board still plays, and a move redraws it without bringing them back.
    drag(white, "e2", "e4")
    expect_moves(black, 1)
    expect(coords).to_have_count(0)
    toggle.click()
    expect(coords).to_have_count(2)
    expect(toggle).to_have_attribute("aria-pressed", "true")


def test_copy_fen_and_pgn(new_page, game, alice, play, server_url):
    play(game, "e4", "e5")
    white = open_game(new_page(alice), game)
    white.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server_url)
    feedback = white.locator("#export-feedback")
    white.locator("#copy-fen").click()
    expect(white.locator("#copy-fen")).to_have_attribute("data-copied", "true")
    expect(feedback).to_have_text("Copied.")
    expect(feedback).to_be_visible()
    assert feedback.get_attribute("aria-live") == "polite"
    fen = white.evaluate("navigator.clipboard.readText()")
    assert fen == "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
    white.locator("#copy-pgn").click()
    expect(white.locator("#copy-pgn")).to_have_attribute("data-copied", "true")
    pgn = white.evaluate("navigator.clipboard.readText()")
    assert '[White "alice"]' in pgn
    assert "1. e4 e5" in pgn


def test_copy_pgn_says_when_the_server_fails(new_page, game, alice, server_url):
    white = open_game(new_page(alice), game)
    white.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server_url)
    white.evaluate("navigator.clipboard.writeText('before')")
    white.route(f"**/games/{game.pk}/pgn/**", lambda route: route.fulfill(status=500, body="boom"))
    white.locator("#copy-pgn").click()
    expect(white.locator("#export-feedback")).to_have_text(
        "The server did not answer as expected: reload the page."
    )
    assert white.locator("#copy-pgn").get_attribute("data-copied") is None
    assert white.evaluate("navigator.clipboard.readText()") == "before"


def test_fen_of_the_shown_position_downloads_and_selects_whole(new_page, game, alice, play):
    play(game, "e4", "e5")
    white = open_game(new_page(alice), game)
    white.locator("[data-step=prev]").click()
    with white.expect_download() as info:
        white.locator("#download-fen").click()
    assert info.value.suggested_filename == f"{game.public_id}.fen"
    text = Path(info.value.path()).read_text(encoding="utf-8")
    assert text == "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\n"
    fen = white.locator("#fen")
    fen.click()
    selected = fen.evaluate("el => el.value.slice(el.selectionStart, el.selectionEnd)")
    assert selected == text.strip()


def test_board_theme_from_preferences(new_page, game, alice, screenshot):
    account_services.save_preferences(
        player=alice, values={"board_theme": "green", "show_coordinates": False}
    )
    white = open_game(new_page(alice), game)
    background = white.locator("#board cg-board").evaluate(
        "el => getComputedStyle(el).backgroundImage"
    )
    assert "conic-gradient" in background
    assert "rgb(134, 166, 102)" in background  # the green theme's dark squares
    expect(white.locator("#board coords")).to_have_count(0)
    screenshot(white, "game-green-no-coordinates")


def test_connection_state_shows_with_the_status_bar_hidden(new_page, game, alice):
    account_services.save_preferences(player=alice, values={"show_status_bar": False})
    white = open_game(new_page(alice), game)
    expect(white.locator("#status-bar")).to_be_hidden()
    indicator = white.locator("#status-connection")
    expect(indicator).to_be_visible()
    expect(indicator).to_have_text("connected")
    white.evaluate("window.ajedrezGame.socket.close()")
    expect(indicator).to_have_attribute("data-state", "offline")
    expect(indicator).to_be_visible()


# --------------------------------------------------------------------------- dashboard


def test_dashboard_moves_a_game_to_your_move_when_the_opponent_plays(
    new_page, game, alice, bob, screenshot
):
    dashboard = new_page(bob)
    dashboard.goto("/")
    indicator = dashboard.locator("#live-connection")
    expect(indicator).to_be_visible()
    expect(indicator).to_have_attribute("data-state", "connected")
    expect(indicator).to_have_text("connected")
    row = f'[data-game-id="{game.pk}"]'
    expect(dashboard.locator(f"#their-turn-games {row}")).to_have_count(1)
    expect(dashboard.locator(f"#my-turn-games {row}")).to_have_count(0)
    white = open_game(new_page(alice), game)
    drag(white, "e2", "e4")
    expect(dashboard.locator(f"#my-turn-games {row}")).to_have_count(1)
    expect(dashboard.locator(f"#their-turn-games {row}")).to_have_count(0)
    expect(dashboard.locator(f"#my-turn-games {row}")).to_contain_text("last move 1. e4")
    screenshot(dashboard, "dashboard-live-your-move")


def test_dashboard_reconnects_and_shows_what_changed_while_it_was_offline(
    new_page, game, alice, bob
):
    dashboard = new_page(bob)
    outage = Outage(dashboard)
    dashboard.goto("/")
    indicator = dashboard.locator("#live-connection")
    expect(indicator).to_have_attribute("data-state", "connected")
    row = f'[data-game-id="{game.pk}"]'
    outage.down = True
    dashboard.evaluate("window.ajedrezDashboardSocket.close()")
    expect(indicator).to_have_attribute("data-state", "offline")
    white = open_game(new_page(alice), game)
    drag(white, "e2", "e4")
    expect_moves(white, 1)
    assert Game.objects.get(pk=game.pk).moves.count() == 1
    dashboard.wait_for_timeout(1000)
    # Cut off, the dashboard has not heard of the move.
    expect(dashboard.locator(f"#their-turn-games {row}")).to_have_count(1)
    outage.down = False
    expect(indicator).to_have_attribute("data-state", "connected", timeout=15_000)
    expect(dashboard.locator(f"#my-turn-games {row}")).to_have_count(1)
    expect(dashboard.locator(f"#their-turn-games {row}")).to_have_count(0)
    assert len(outage.urls) >= 3  # the first socket, refused attempts, the one that took


def forget_the_session(page: Page) -> None:
    """The session cookie goes, as when the session expires; the CSRF cookie stays."""
    page.context.clear_cookies(name=settings.SESSION_COOKIE_NAME)


def test_dashboard_says_the_session_ended_instead_of_showing_the_login_page(
    new_page, game, alice, bob
):
    dashboard = new_page(bob)
    dashboard.goto("/")
    expect(dashboard.locator("#live-connection")).to_have_attribute("data-state", "connected")
    forget_the_session(dashboard)
    white = open_game(new_page(alice), game)
    drag(white, "e2", "e4")  # an event for bob's dashboard, which then refetches
    problem = dashboard.locator("#dashboard-error")
    expect(problem).to_be_visible()
    expect(problem).to_have_text("Your session has ended: reload the page to log in again.")
    expect(dashboard.locator("#dashboard-live input[name=password]")).to_have_count(0)
    expect(dashboard.locator(f'#their-turn-games [data-game-id="{game.pk}"]')).to_have_count(1)


def test_page_without_websocket_says_the_session_ended_not_offline(new_page, game, alice):
    white = new_page(alice)
    white.add_init_script("delete window.WebSocket")
    white.goto(f"/games/{game.pk}/")
    expect(white.locator("#game")).to_have_attribute("data-connection", "offline")
    forget_the_session(white)
    white.fill("#move-input", "e4")
    white.locator("#move-form button[type=submit]").click()
    error = white.locator("#game-error")
    expect(error).to_have_text("Your session has ended: reload the page to log in again.")
    white.wait_for_timeout(6500)  # longer than an ordinary error stays
    expect(error).to_be_visible()
    assert not Game.objects.get(pk=game.pk).moves.exists()


# --------------------------------------------------------------------------- ended sessions

SESSION_ENDED = "Your session has ended: reload the page to log in again."


def count_sockets(page: Page, path: str) -> list:
    """Every WebSocket to ``path`` (``/ws/games/``, ``/ws/player/``) the page opens from
    now on, in order. Every page of a player also keeps a player socket for the tab
    title's counter (awaiting.js; the dashboard shares its own)."""
    opened: list = []
    page.on("websocket", lambda ws: opened.append(ws) if path in ws.url else None)
    return opened


def test_game_page_reconnecting_without_a_session_says_so_and_stops(new_page, game, alice):
    white = new_page(alice)
    opened = count_sockets(white, "/ws/games/")
    open_game(white, game)
    forget_the_session(white)
    white.evaluate("window.ajedrezGame.socket.close()")  # the network blinks
    error = white.locator("#game-error")
    expect(error).to_have_text(SESSION_ENDED)
    expect(white.locator("#game")).to_have_attribute("data-connection", "disconnected")
    expect(white.locator("#status-connection")).to_have_text("disconnected")
    expect(white.locator("#game")).to_have_attribute("data-can-move", "false")
    # The backoff would have tried again within 0.5, 1 and 2 s: it does not.
    white.wait_for_timeout(3500)
    assert len(opened) == 2
    expect(error).to_be_visible()


def test_dashboard_reconnecting_without_a_session_says_so_and_stops(new_page, bob):
    dashboard = new_page(bob)
    # The dashboard listens on the open challenges' socket (its player's events too).
    opened = count_sockets(dashboard, "/ws/seeks/")
    dashboard.goto("/")
    indicator = dashboard.locator("#live-connection")
    expect(indicator).to_have_attribute("data-state", "connected")
    forget_the_session(dashboard)
    dashboard.evaluate("window.ajedrezDashboardSocket.close()")
    expect(dashboard.locator("#dashboard-error")).to_have_text(SESSION_ENDED)
    expect(indicator).to_have_attribute("data-state", "disconnected")
    expect(indicator).to_have_text("disconnected")
    dashboard.wait_for_timeout(3500)
    assert len(opened) == 2


def test_logging_out_in_another_tab_ends_the_game_page_at_once(new_page, game, alice):
    white = open_game(new_page(alice), game)
    other_tab = white.context.new_page()
    other_tab.goto("/")
    other_tab.locator("form[action$='/accounts/logout/'] button").click()
    other_tab.wait_for_url("**/accounts/login/**")
    # Nothing done on the game page: the server closed its socket on the logout.
    expect(white.locator("#game-error")).to_have_text(SESSION_ENDED)
    expect(white.locator("#game")).to_have_attribute("data-connection", "disconnected")
    white.fill("#move-input", "e4")
    white.locator("#move-form button[type=submit]").click()
    white.wait_for_timeout(500)
    assert not Game.objects.get(pk=game.pk).moves.exists()


def test_game_deleted_while_open_says_so_and_stops(new_page, game, alice, bob):
    white = new_page(alice)
    opened = count_sockets(white, "/ws/games/")
    open_game(white, game)
    Game.objects.filter(pk=game.pk).delete()  # as the admin's purge of finished games
    white.evaluate("window.ajedrezGame.socket.close()")
    expect(white.locator("#game-error")).to_have_text("This game no longer exists.")
    expect(white.locator("#game")).to_have_attribute("data-connection", "disconnected")
    white.wait_for_timeout(3500)
    assert len(opened) == 2


def test_access_revoked_in_the_admin_ends_the_game_on_both_open_pages(
    new_page, game, alice, bob, make_player
):
    admin = make_player("admin", is_staff=True, is_superuser=True)
    white, black = open_game(new_page(alice), game), open_game(new_page(bob), game)
    play_by_dragging(white, black, ["e2e4", "e7e5"])
    admin_page = new_page(admin)
    admin_page.goto("/admin/auth/user/?q=bob")
    admin_page.locator(f"input[name=_selected_action][value='{bob.pk}']").check()
    admin_page.locator("select[name=action]").select_option("revoke_access")
    admin_page.locator("button[name=index]").click()
    expect(admin_page.locator("ul.messagelist")).to_contain_text("bob")
    # The opponent's page shows the end live, without a reload, and stays connected.
    expect(white.locator("#result-banner")).to_contain_text("1-0")
    expect(white.locator("#actions")).to_be_hidden()
    expect(white.locator("#game")).to_have_attribute("data-connection", "connected")
    # The revoked player's page sees the end too, then its socket is closed for good.
    expect(black.locator("#result-banner")).to_contain_text("1-0")
    expect(black.locator("#game-error")).to_have_text(SESSION_ENDED)
    expect(black.locator("#game")).to_have_attribute("data-connection", "disconnected")
    assert Game.objects.get(pk=game.pk).termination == "abandonment"


def test_a_game_begun_with_black_to_move_numbers_its_moves_as_chess_does(
    new_page, alice, bob, carol
):
    from games import services

    # chessirc may START a game from any position: here Black moves first, at move 12.
    fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 3 12"
    game = services.start_gateway_game(white=alice, black=bob, initial_fen=fen)
    services.make_move(game_id=game.pk, player=bob, move_number=1, move="Nf6")
    services.make_move(game_id=game.pk, player=alice, move_number=2, move="Nc3")
    page = open_game(new_page(carol), game)
    pairs = page.locator("#move-list .move-pair")
    expect(pairs).to_have_count(2)
    expect(pairs.nth(0)).to_have_text(re.compile(r"12\.\s*…\s*Nf6"))
    expect(pairs.nth(1)).to_have_text(re.compile(r"13\.\s*Nc3"))
