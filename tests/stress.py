"""Clients of every door for the stress tests: the web's JSON move, the game socket and
ESPOL, each answering a move with ``"applied"`` or the refusal's domain code, so that
the doors can be compared; and random games to play through them."""

from __future__ import annotations

import json
import random
import threading
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field

import chess
from django.conf import settings
from django.test import Client
from websockets.sync.client import ClientConnection
from websockets.sync.client import connect as ws_connect

from legacy_tcp.espol.client import EspolClient, jgda
from legacy_tcp.espol.codec import DOMAIN_ERROR_CODES

TIMEOUT = 30.0
APPLIED = "applied"
# ESPOL's codes back to the domain's (the codec maps several domain codes to one ESPOL
# code; these are the ones a move can meet).
ESPOL_MOVE_REFUSALS = {
    int(DOMAIN_ERROR_CODES[name]): name
    for name in ("not_your_turn", "wrong_move_number", "game_finished", "game_not_found")
}
CSRF_TOKEN = "s" * 32
# Loopback only: no proxy from the environment.
_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def random_game(seed: int, plies: int) -> list[str]:
    """``plies`` legal moves (UCI) of a game that is not over before its last one."""
    rng = random.Random(seed)
    while True:
        board = chess.Board()
        while len(board.move_stack) < plies and not board.is_game_over(claim_draw=False):
            board.push(rng.choice(sorted(board.legal_moves, key=chess.Move.uci)))
        if len(board.move_stack) == plies:
            return [move.uci() for move in board.move_stack]


def session_cookie(user) -> str:
    client = Client()
    client.force_login(user)
    name = settings.SESSION_COOKIE_NAME
    return f"{name}={client.cookies[name].value}"


def web_move(port: int, game_id: int, cookie: str, number: int, uci: str) -> str:
    """The page's HTTP fallback for a move, with its CSRF cookie and header."""
    base = f"http://127.0.0.1:{port}"
    request = urllib.request.Request(
        f"{base}/games/{game_id}/move/",
        data=urllib.parse.urlencode({"number": number, "move": uci}).encode(),
        headers={
            "Cookie": f"{cookie}; csrftoken={CSRF_TOKEN}",
            "X-CSRFToken": CSRF_TOKEN,
            "Accept": "application/json",
            "Origin": base,
        },
    )
    try:
        with _OPENER.open(request, timeout=TIMEOUT) as response:
            assert response.status == 200
            return APPLIED
    except urllib.error.HTTPError as refused:
        if refused.code >= 500:
            raise
        return json.loads(refused.read())["code"]


def open_socket(port: int, game_id: int, cookie: str) -> ClientConnection:
    ws = ws_connect(
        f"ws://127.0.0.1:{port}/ws/games/{game_id}/",
        origin=f"http://127.0.0.1:{port}",  # type: ignore[arg-type]
        additional_headers={"Cookie": cookie},
        open_timeout=TIMEOUT,
        proxy=None,
    )
    assert json.loads(ws.recv(timeout=TIMEOUT))["type"] == "snapshot"
    return ws


def socket_move(ws: ClientConnection, number: int, uci: str) -> str:
    ws.send(json.dumps({"type": "move", "number": number, "move": uci}))
    while True:
        frame = json.loads(ws.recv(timeout=TIMEOUT))
        if frame["type"] == "ack" and frame["action"] == "move":
            return APPLIED
        if frame["type"] == "error":
            return frame["code"]


def espol_login(port: int, username: str, password: str) -> EspolClient:
    client = EspolClient("127.0.0.1", port, timeout=TIMEOUT)
    assert client.send(f"USER:{username}").code == 101
    assert client.send(f"PASS:{password}").code == 102
    return client


def espol_move(client: EspolClient, public_id: str, number: int, uci: str) -> str:
    reply = client.send(jgda(public_id, number, uci))
    if reply is None:
        raise ConnectionError("the gateway closed the connection")
    if reply.code == 103:
        return APPLIED
    if reply.code in ESPOL_MOVE_REFUSALS:
        return ESPOL_MOVE_REFUSALS[reply.code]
    raise AssertionError(f"JGDA answered {reply.code} {reply.text}")


@dataclass
class Tally:
    """What clients running in threads report, under one lock."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    acknowledged: list[tuple[int, int, str]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    interrupted: int = 0

    def ack(self, game_id: int, number: int, uci: str) -> None:
        with self.lock:
            self.acknowledged.append((game_id, number, uci))

    def error(self, text: str) -> None:
        with self.lock:
            self.errors.append(text)
