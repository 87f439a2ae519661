"""The lichess API driven by lichess's own Python client, berserk, against a live
``manage.py serve`` (web and ESPOL) on loopback, on the test database: whole games from
challenge to their end through the Board API and berserk's bots client, a game with one
player on the API and the other on ESPOL, and the refusals a client meets.

Streams are read in threads (berserk's are blocking iterators); what a test waits for,
it waits for with a time-out, never for a time to pass."""

from __future__ import annotations

import queue
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import berserk
import pytest
import requests
from berserk.exceptions import ResponseError

from accounts import tokens
from games.models import Challenge, Game
from legacy_tcp.espol.client import EspolClient, jgda
from tests.conftest import PASSWORD, pbkdf2_hash
from tests.servers import (
    ServerProcess,
    database_url_for_servers,
    free_port,
    server_environment,
    wait_for_server_sessions_to_end,
)

TIMEOUT = 20.0
END = object()


class ApiServe(ServerProcess):
    """``manage.py serve`` with the web and ESPOL, on the test database; keep-alives
    every second, so that a stream whose token the test's teardown deleted ends soon."""

    name = "manage.py serve (web and ESPOL)"

    def __init__(self, database_url: str, log_path: Path) -> None:
        port, self.espol_port = free_port(), free_port()
        environment = {
            **server_environment(database_url),
            "API_STREAM_KEEPALIVE_SECONDS": "1",
            "CLOCK_SWEEP_SECONDS": "0",
            "TASK_WORKER_IN_SERVE": "false",
            "ESPOL_LOGIN_DELAY": "0",
            "ESPOL_MAX_PER_ADDRESS": "0",
            # No SITE_URL: serve takes its own address for the links it hands out.
        }
        super().__init__(
            [sys.executable, "manage.py", "serve", "--port", str(port),
             "--espol-port", str(self.espol_port), "--no-distribuido", "--no-chessirc",
             "--no-demo", "--no-migrate", "--no-collectstatic"],
            port, environment, log_path,
        )
        deadline = time.monotonic() + 30
        while "ESPOL gateway:" not in self.log():
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.kill()
                pytest.fail(f"{self.name} did not start ESPOL:\n{self.log()[-3000:]}")
            time.sleep(0.1)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


@pytest.fixture(scope="module")
def served(django_db_setup, django_db_blocker, tmp_path_factory) -> Iterator[ApiServe]:
    with django_db_blocker.unblock():
        database_url = database_url_for_servers()
    server = ApiServe(database_url, tmp_path_factory.mktemp("serve") / "serve.log")
    yield server
    server.stop()
    with django_db_blocker.unblock():
        wait_for_server_sessions_to_end()
    assert "Traceback" not in server.log(), server.log()[-3000:]


class RecordingSession(berserk.TokenSession):
    """berserk's session, keeping the streams it opens so that the test can close them:
    a client that leaves is a stream's normal end (a server stopped with streams open
    cancels them, and asyncio logs what their tasks left unread)."""

    def __init__(self, token: str, streams: list[requests.Response]) -> None:
        super().__init__(token)
        self.streams = streams

    def request(self, *args: Any, **kwargs: Any) -> requests.Response:
        response = super().request(*args, **kwargs)
        if kwargs.get("stream"):
            self.streams.append(response)
        return response


@pytest.fixture
def client_of(served, transactional_db) -> Iterator[Callable[..., berserk.Client]]:
    """``client_of(player, *scopes)``: berserk with a new token of ``player`` (every
    scope when none is named), on the served site. Its streams are closed at the end."""
    streams: list[requests.Response] = []

    def make(player, *scopes: str) -> berserk.Client:
        _token, text = tokens.create_token(
            player=player, description="berserk", scopes=scopes or list(tokens.SCOPES)
        )
        return berserk.Client(RecordingSession(text, streams), base_url=served.url)

    yield make
    for response in streams:
        response.close()


@pytest.fixture
def espol_player(make_player) -> Callable[[str], Any]:
    """A player whose password the server checks (its own hashers, not the tests')."""

    def make(name: str):
        player = make_player(name)
        player.password = pbkdf2_hash(PASSWORD)
        player.save()
        return player

    return make


class Lines:
    """A berserk stream read in a thread: its items, waited for with a time-out."""

    def __init__(self, iterator: Iterator[dict[str, Any]]) -> None:
        self.items: queue.Queue[Any] = queue.Queue()
        threading.Thread(target=self._pump, args=(iterator,), daemon=True).start()

    def _pump(self, iterator: Iterator[dict[str, Any]]) -> None:
        try:
            for item in iterator:
                self.items.put(item)
        except Exception as exc:  # shown to the test that reads next
            self.items.put(exc)
        finally:
            self.items.put(END)

    def next(self, timeout: float = TIMEOUT) -> dict[str, Any]:
        item = self.items.get(timeout=timeout)
        if item is END:
            raise EOFError("the stream ended")
        if isinstance(item, Exception):
            raise item
        return item

    def until(self, wanted: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        """The first item ``wanted`` accepts, skipping the others."""
        deadline = time.monotonic() + TIMEOUT
        while True:
            item = self.next(timeout=max(0.1, deadline - time.monotonic()))
            if wanted(item):
                return item

    def ended(self, timeout: float = TIMEOUT) -> bool:
        """Whether the server ends the stream (after the items still to read)."""
        deadline = time.monotonic() + timeout
        while True:
            item = self.items.get(timeout=max(0.1, deadline - time.monotonic()))
            if item is END:
                return True


def of_type(kind: str) -> Callable[[dict[str, Any]], bool]:
    return lambda item: item.get("type") == kind


def status_is(status: str) -> Callable[[dict[str, Any]], bool]:
    return lambda item: item.get("type") == "gameState" and item["status"] == status


def moves_are(moves: str) -> Callable[[dict[str, Any]], bool]:
    return lambda item: item.get("type") == "gameState" and item["moves"] == moves


def start_board_game(alice_api, bob_api) -> tuple[str, Lines, Lines]:
    """alice challenges bob (she plays white), bob accepts; both game streams open."""
    bob_events = Lines(bob_api.board.stream_incoming_events())
    made = alice_api.challenges.create("bob", rated=False, days=3, color="white")
    assert bob_events.until(of_type("challenge"))["challenge"]["id"] == made["id"]
    bob_api.challenges.accept(made["id"])
    start = bob_events.until(of_type("gameStart"))["game"]
    assert (start["gameId"], start["color"]) == (made["id"], "black")
    white = Lines(alice_api.board.stream_game_state(made["id"]))
    black = Lines(bob_api.board.stream_game_state(made["id"]))
    for stream in (white, black):
        full = stream.next()
        assert full["type"] == "gameFull" and full["state"]["moves"] == ""
    return made["id"], white, black


def play(game_id: str, apis: tuple[Any, Any], moves: list[str], streams: list[Lines]) -> None:
    """Play ``moves`` alternately (white first), each seen by every stream."""
    played: list[str] = []
    for number, uci in enumerate(moves):
        apis[number % 2].board.make_move(game_id, uci)
        played.append(uci)
        for stream in streams:
            stream.until(moves_are(" ".join(played)))


# --------------------------------------------------------------------------- whole games


def test_a_game_from_challenge_to_mate(client_of, alice, bob):
    alice_api, bob_api = client_of(alice), client_of(bob)
    alice_events = Lines(alice_api.board.stream_incoming_events())
    game_id, white, black = start_board_game(alice_api, bob_api)
    assert alice_events.until(of_type("gameStart"))["game"]["isMyTurn"] is True

    play(game_id, (alice_api, bob_api), ["e2e4", "e7e5", "f1c4", "b8c6", "d1h5", "g8f6"],
         [white, black])
    alice_api.board.make_move(game_id, "h5f7")

    for stream in (white, black):
        assert stream.until(status_is("mate"))["winner"] == "white"
        assert stream.ended()
    finish = alice_events.until(of_type("gameFinish"))["game"]
    assert finish["status"]["name"] == "mate" and finish["winner"] == "white"
    assert Game.objects.get(short_id=game_id).termination == "checkmate"
    assert alice_api.games.get_ongoing() == []
    exported = bob_api.games.export(game_id)
    assert (exported["status"], exported["winner"]) == ("mate", "white")
    assert exported["moves"] == "e4 e5 Bc4 Nc6 Qh5 Nf6 Qxf7#"
    assert "1. e4 e5 2. Bc4 Nc6" in bob_api.games.export(game_id, as_pgn=True)
    assert bob_api.users.get_public_data("alice")["count"]["win"] == 0  # an unrated game


def test_a_draw_by_agreement(client_of, alice, bob):
    alice_api, bob_api = client_of(alice), client_of(bob)
    game_id, white, black = start_board_game(alice_api, bob_api)
    play(game_id, (alice_api, bob_api), ["d2d4", "d7d5"], [white, black])

    alice_api.board.offer_draw(game_id)
    assert black.until(of_type("gameState"))["wdraw"] is True
    bob_api.board.accept_draw(game_id)

    assert "winner" not in white.until(status_is("draw"))
    assert Game.objects.get(short_id=game_id).termination == "agreement"


def test_a_declined_draw_and_then_a_resignation(client_of, alice, bob):
    alice_api, bob_api = client_of(alice), client_of(bob)
    game_id, white, black = start_board_game(alice_api, bob_api)
    play(game_id, (alice_api, bob_api), ["e2e4"], [white, black])
    bob_api.board.offer_draw(game_id)
    assert white.until(of_type("gameState"))["bdraw"] is True
    alice_api.board.decline_draw(game_id)
    assert "bdraw" not in white.until(of_type("gameState"))

    bob_api.board.resign_game(game_id)

    assert white.until(status_is("resign"))["winner"] == "white"
    assert black.ended()


def test_an_abort(client_of, alice, bob):
    alice_api, bob_api = client_of(alice), client_of(bob)
    game_id, white, _black = start_board_game(alice_api, bob_api)

    bob_api.board.abort_game(game_id)

    white.until(status_is("aborted"))
    assert Game.objects.get(short_id=game_id).termination == "aborted"


def test_a_decline_reaches_the_challenger_with_its_reason(client_of, alice, bob):
    alice_api, bob_api = client_of(alice), client_of(bob)
    alice_events = Lines(alice_api.board.stream_incoming_events())
    made = alice_api.challenges.create("bob", rated=True, days=7)

    bob_api.challenges.decline(made["id"], reason="later")

    declined = alice_events.until(of_type("challengeDeclined"))["challenge"]
    assert (declined["id"], declined["declineReasonKey"]) == (made["id"], "later")
    assert Challenge.objects.get(short_id=made["id"]).status == "declined"


def test_a_withdrawn_challenge_reaches_the_challenged_player(client_of, alice, bob):
    alice_api, bob_api = client_of(alice), client_of(bob)
    bob_events = Lines(bob_api.board.stream_incoming_events())
    made = alice_api.challenges.create("bob", rated=False)
    assert bob_events.until(of_type("challenge"))["challenge"]["timeControl"] == {
        "type": "unlimited"
    }

    alice_api.challenges.cancel(made["id"])

    assert bob_events.until(of_type("challengeCanceled"))["challenge"]["id"] == made["id"]
    assert bob_api.challenges.get_mine() == {"in": [], "out": []}


def test_the_chat_between_the_players(client_of, alice, bob):
    alice_api, bob_api = client_of(alice), client_of(bob)
    game_id, _white, black = start_board_game(alice_api, bob_api)

    alice_api.board.post_message(game_id, "¡Buena suerte! ♞")

    line = black.until(of_type("chatLine"))
    assert (line["username"], line["text"], line["room"]) == ("alice", "¡Buena suerte! ♞", "player")
    assert bob_api.board.get_game_chat(game_id) == [{"text": "¡Buena suerte! ♞", "user": "alice"}]


# --------------------------------------------------------------------------- refusals


def refusal(call: Callable[[], Any]) -> tuple[int, str]:
    with pytest.raises(ResponseError) as refused:
        call()
    return refused.value.status_code, refused.value.cause["error"]


def test_illegal_out_of_turn_and_stranger_moves_are_refused(client_of, alice, bob, carol):
    alice_api, bob_api, carol_api = client_of(alice), client_of(bob), client_of(carol)
    game_id, white, black = start_board_game(alice_api, bob_api)

    assert refusal(lambda: alice_api.board.make_move(game_id, "e2e5")) == (
        400, "That move is not legal in this position.")
    assert refusal(lambda: bob_api.board.make_move(game_id, "e7e5")) == (
        400, "It is not your turn.")
    assert refusal(lambda: carol_api.board.make_move(game_id, "e2e4"))[0] == 404
    assert refusal(lambda: alice_api.board.make_move(game_id, "Nf3"))[1] == "Invalid UCI: Nf3"
    assert refusal(lambda: alice_api.board.make_move("zzzzzzzz", "e2e4"))[0] == 404
    assert refusal(lambda: alice_api.board.offer_takeback(game_id))[0] == 400
    assert refusal(lambda: alice_api.challenges.create("bob", rated=False, clock_limit=300,
                                                       clock_increment=2))[0] == 400
    assert refusal(lambda: alice_api.challenges.accept("zzzzzzzz"))[0] == 404
    assert Game.objects.get(short_id=game_id).next_move_number == 1
    play(game_id, (alice_api, bob_api), ["e2e4"], [white, black])


def test_token_scopes_and_revoked_tokens(client_of, alice, bob):
    reader = client_of(alice, "challenge:read")
    assert reader.challenges.get_mine() == {"in": [], "out": []}
    assert refusal(lambda: reader.challenges.create("bob", rated=False)) == (
        403, "Missing scope: challenge:write or bot:play or board:play")
    assert refusal(lambda: reader.board.make_move("zzzzzzzz", "e2e4"))[0] == 403
    _token, text = tokens.create_token(player=alice, description="x", scopes=["board:play"])
    revoked = berserk.Client(berserk.TokenSession(text), base_url=reader._r.base_url)
    assert revoked.account.get()["username"] == "alice"
    tokens.revoke_token(player=alice, token_id=tokens.use_token(text).token_id)
    assert refusal(lambda: revoked.account.get()) == (401, "No such token")


def test_bad_input_reaches_no_game(served, client_of, alice, bob):
    alice_api, bob_api = client_of(alice), client_of(bob)
    game_id, _white, _black = start_board_game(alice_api, bob_api)
    session = alice_api._r.session
    base = served.url

    huge = session.post(f"{base}/api/board/game/{game_id}/chat",
                        data={"room": "player", "text": "x" * 100_000})
    wrong_type = session.post(f"{base}/api/challenge/bob", json={"days": [1, 2]})
    not_json = session.post(f"{base}/api/challenge/bob", data=b"{",
                            headers={"Content-Type": "application/json"})
    unicode_id = session.post(f"{base}/api/board/game/\u00f1\u00f1\u00f1/resign")
    null_room = session.post(f"{base}/api/board/game/{game_id}/chat",
                             json={"room": None, "text": "hi"})

    assert (huge.status_code, wrong_type.status_code, not_json.status_code) == (413, 400, 400)
    assert (unicode_id.status_code, null_room.status_code) == (404, 400)
    for answer in (huge, wrong_type, not_json, unicode_id, null_room):
        assert "error" in answer.json()
    assert Game.objects.get(short_id=game_id).is_active
    assert bob_api.board.get_game_chat(game_id) == []


# --------------------------------------------------------------------------- bots


def test_a_bot_plays_a_game_through_berserk_s_bots_client(client_of, make_player, alice):
    robot = make_player("robot")
    robot_api, alice_api = client_of(robot), client_of(alice)
    robot_api.account.upgrade_to_bot()
    assert robot_api.account.get()["title"] == "BOT"
    events = Lines(robot_api.bots.stream_incoming_events())
    made = alice_api.challenges.create("robot", rated=False, days=1, color="black")
    robot_api.bots.accept_challenge(events.until(of_type("challenge"))["challenge"]["id"])
    assert events.until(of_type("gameStart"))["game"]["color"] == "white"
    game = Lines(robot_api.bots.stream_game_state(made["id"]))
    assert game.next()["white"]["title"] == "BOT"

    robot_api.bots.make_move(made["id"], "e2e4")
    game.until(moves_are("e2e4"))
    alice_api.board.make_move(made["id"], "e7e5")
    game.until(moves_are("e2e4 e7e5"))
    robot_api.bots.post_message(made["id"], "gg")
    assert game.until(of_type("chatLine"))["text"] == "gg"
    alice_api.board.offer_draw(made["id"])
    game.until(lambda item: item.get("bdraw") is True)
    # berserk 0.14's bots client has no draw call: the bot's move declines the offer,
    # as on lichess.
    robot_api.bots.make_move(made["id"], "g1f3")
    assert "bdraw" not in game.until(moves_are("e2e4 e7e5 g1f3"))
    robot_api.bots.resign_game(made["id"])

    assert game.until(status_is("resign"))["winner"] == "black"
    assert refusal(lambda: robot_api.board.make_move(made["id"], "d2d4"))[0] == 400


# --------------------------------------------------------------------------- ESPOL


def espol_login(served: ApiServe, name: str) -> EspolClient:
    client = EspolClient("127.0.0.1", served.espol_port, timeout=TIMEOUT)
    assert client.send(f"USER:{name}").code == 101
    assert client.send(f"PASS:{PASSWORD}").code == 102
    return client


def test_an_espol_challenge_accepted_and_played_through_the_api(served, client_of, espol_player):
    espol_side, api_side = espol_player("eve"), espol_player("frank")
    api = client_of(api_side)
    events = Lines(api.board.stream_incoming_events())
    eve = espol_login(served, "eve")

    assert eve.send("JUEG:frank").code == 103
    offered = events.until(of_type("challenge"))["challenge"]
    assert offered["color"] == "random" and "finalColor" not in offered  # the acceptor picks
    api.challenges.accept(offered["id"])
    start = events.until(of_type("gameStart"))["game"]
    game = Game.objects.get(short_id=start["gameId"])
    board = Lines(api.board.stream_game_state(game.short_id))
    board.next()
    moves = ["e2e4", "e7e5", "g1f3", "b8c6"]
    for number, uci in enumerate(moves, start=1):
        if (number % 2 == 1) == (start["color"] == "white"):
            api.board.make_move(game.short_id, uci)
        else:
            assert eve.send(jgda(game.public_id, number, uci)).code == 103
        board.until(moves_are(" ".join(moves[:number])))

    spar = eve.send(f"SPAR:{game.public_id}:0")
    assert [entry.split(":")[1] for entry in spar.text.rstrip(",").split(",")] == moves
    assert espol_side.pk in (game.white_id, game.black_id)
    eve.close()


def test_an_api_challenge_with_the_challenger_s_colour_accepted_over_espol(
    served, client_of, espol_player
):
    api_side, _espol_side = espol_player("gina"), espol_player("hugo")
    api = client_of(api_side)
    events = Lines(api.board.stream_incoming_events())
    made = api.challenges.create("hugo", rated=True, days=5, color="white")
    hugo = espol_login(served, "hugo")

    assert hugo.send("ACEP:B:gina").code == 802  # gina took white
    reply = hugo.send("ACEP:N:gina")

    game = Game.objects.get(short_id=made["id"])
    assert (reply.code, reply.text) == (103, f"{game.public_id}.PEN")
    assert events.until(of_type("gameStart"))["game"]["color"] == "white"
    board = Lines(api.board.stream_game_state(made["id"]))
    assert board.next()["daysPerTurn"] == 5
    api.board.make_move(made["id"], "d2d4")
    assert hugo.send(jgda(game.public_id, 2, "d7d5")).code == 103
    board.until(moves_are("d2d4 d7d5"))
    api.board.resign_game(made["id"])
    assert hugo.send(f"STAT:{game.public_id}").text.split(":")[4:6] == ["2", "2"]
    hugo.close()
