"""Hypothesis sends what no honest client sends, through a real ESPOL gateway on a
loopback port and through the game socket of the real ASGI application.

Every ESPOL line gets exactly one reply with a code the protocol defines, never 401 (the
gateway's own failure), and no error is logged; every socket message gets its typed
answer, never ``internal_error``, and the socket goes on serving (a ``sync`` after it is
answered). Afterwards the game still replays from the start.

The normal run sends a few dozen cases through each door; ``pytest -m fuzz`` thousands.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from channels.testing import WebsocketCommunicator
from hypothesis import HealthCheck, given
from hypothesis import settings as runs
from hypothesis import strategies as st

from ajedrez.asgi import application
from games import consumers
from games.integrity import check_games
from games.models import Game
from legacy_tcp.espol.client import EspolClient
from legacy_tcp.espol.codec import KNOWN, Code
from tests.protocols.conftest import ServerThread
from tests.stress import session_cookie

pytestmark = pytest.mark.django_db(transaction=True)

FUZZ = {
    "deadline": None,
    "suppress_health_check": [HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
}
SHORT = runs(max_examples=40, **FUZZ)  # type: ignore[arg-type]
LONG = runs(max_examples=2500, **FUZZ)  # type: ignore[arg-type]

# Commands that would end the login or the connection the next case needs: their own
# tests are in tests/protocols.
SPARED = ("USER", "PASS", "QUIT", "UNSU")
CODES = {int(code) for code in Code}


def errors_logged(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]


# --------------------------------------------------------------------------- ESPOL


def espol_fields(game: Game) -> st.SearchStrategy[str]:
    """Field values: the game's real ones, numbers at the edges, and any text."""
    return st.one_of(
        st.sampled_from(
            [game.public_id, "alice", "bob", "carol", "S", "N", "B", "0", "1", "-1", "",
             "99999999999999999999", "P0000000", "e2e4", "1228", "0000", "--", "@@@@",
             "20240101000000", "9999-99-99"]
        ),
        st.integers(min_value=-(10**12), max_value=10**12).map(str),
        st.text(max_size=30),
    )


def espol_lines(game: Game) -> st.SearchStrategy[bytes]:
    structured = st.builds(
        lambda name, fields, sep: (name + sep + ":".join(fields)).encode("utf-8", "replace"),
        st.sampled_from([*sorted(KNOWN - set(SPARED)), "XYZW", "jgda", "Stat", ""]),
        st.lists(espol_fields(game), max_size=8),
        st.sampled_from([":", "", " :", "::"]),
    )
    raw = st.binary(max_size=120)
    lines = st.one_of(structured, structured, raw).map(
        lambda line: line.replace(b"\n", b"").replace(b"\r", b"")
    )
    return lines.filter(lambda line: not line.strip().upper().startswith(tuple(
        s.encode() for s in SPARED
    )))


def fuzz_espol(game: Game, caplog: pytest.LogCaptureFixture, run: runs) -> int:
    server = ServerThread(max_connections=50).start()
    client = EspolClient("127.0.0.1", server.port, timeout=15.0)
    assert client.send("USER:alice").code == 101
    assert client.send("PASS:correct-horse").code == 102
    sent = 0
    try:

        @run
        @given(lines=st.lists(espol_lines(game), min_size=1, max_size=5))
        def one_case(lines: list[bytes]) -> None:
            nonlocal sent
            for line in lines:
                client.send_raw(line + b"\r\n")
                reply = client.receive()
                assert reply is not None, f"closed after {line!r}"
                assert reply.code in CODES, (line, reply)
                assert reply.code != Code.E_SYSTEM, (line, reply)
                sent += 1
            # The login held: a command that needs it is still served.
            assert client.send("SRNK").code == 103

        one_case()
    finally:
        client.close()
        server.stop()
    assert errors_logged(caplog) == []
    return sent


def test_random_espol_lines_get_one_clean_reply_each_short_run(game, espol_settings, caplog):
    fuzz_espol(game, caplog, SHORT)
    assert [r.problems for r in check_games(Game.objects.all())] == [()]


@pytest.mark.fuzz
def test_random_espol_lines_get_one_clean_reply_each(game, espol_settings, caplog):
    sent = fuzz_espol(game, caplog, LONG)
    assert [r.problems for r in check_games(Game.objects.all())] == [()]
    print(f"\nFIGURES fuzz ESPOL: {sent} lines, no server error")


@pytest.fixture
def espol_settings(settings):
    settings.ESPOL_LOGIN_DELAY = 0.05
    settings.ESPOL_LOGIN_DELAY_MAX = 0.2
    settings.ESPOL_MAX_PER_ADDRESS = 0
    # SUBS lines hash a password each; the per-connection limit keeps that short.
    return settings


# --------------------------------------------------------------------------- socket


JSON_LEAVES = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False), st.text(max_size=20),
)
JSON_VALUES = st.recursive(
    JSON_LEAVES,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                 max_size=4),
    max_leaves=12,
)
MESSAGE_TYPES = ["move", "draw_offer", "draw_answer", "resign", "claim_draw", "sync",
                 "ping", "", "MOVE", "__class__"]


def socket_messages() -> st.SearchStrategy[str | bytes]:
    shaped = st.fixed_dictionaries(
        {"type": st.one_of(st.sampled_from(MESSAGE_TYPES), JSON_VALUES)},
        optional={
            "number": st.one_of(st.integers(min_value=-5, max_value=200_000), JSON_VALUES),
            "move": st.one_of(
                st.sampled_from(["e4", "e2e4", "--", "0000", "Z0", "@@@@", "Nf3", "e7e5", ""]),
                JSON_VALUES,
            ),
            "accept": JSON_VALUES,
            "version": JSON_VALUES,
            "after": JSON_VALUES,
        },
    ).map(json.dumps)
    return st.one_of(
        shaped, shaped, JSON_VALUES.map(json.dumps), st.text(max_size=200),
        st.binary(max_size=200),
    )


async def socket_case(
    game_id: int, cookie: bytes, messages: list[str | bytes], expected_snapshots: int
) -> list[dict]:
    comm = WebsocketCommunicator(
        application,
        f"/ws/games/{game_id}/",
        headers=[(b"host", b"localhost"), (b"origin", b"http://localhost"), (b"cookie", cookie)],
    )
    # Generous: under a loaded machine the handshake alone may pass the default second.
    connected, _ = await comm.connect(timeout=10)
    assert connected
    assert (await comm.receive_json_from(timeout=10))["type"] == "snapshot"
    frames: list[dict[str, Any]] = []
    try:
        for message in messages:
            # As the server receives it: the communicator's own send refuses empty frames.
            key = "bytes" if isinstance(message, bytes) else "text"
            await comm.send_input({"type": "websocket.receive", key: message})
        # Still serving: a sync after them all is answered with a snapshot.
        await comm.send_json_to({"type": "sync", "version": 0})
        snapshots = 0
        while snapshots < expected_snapshots:
            output = await comm.receive_output(timeout=10)
            assert output["type"] == "websocket.send", output
            frame = json.loads(output["text"])
            snapshots += frame["type"] == "snapshot"
            frames.append(frame)
    finally:
        await comm.disconnect()
    return frames


def fuzz_socket(game: Game, alice, caplog: pytest.LogCaptureFixture, run: runs) -> int:
    cookie = session_cookie(alice).encode()
    sent = 0

    @run
    @given(messages=st.lists(socket_messages(), min_size=1, max_size=4))
    def one_case(messages: list[str | bytes]) -> None:
        nonlocal sent
        syncs = sum(1 for m in messages if isinstance(m, str) and _is_sync(m))
        frames = async_to_sync(socket_case)(game.pk, cookie, messages, syncs + 1)
        codes = [f.get("code") for f in frames if f["type"] == "error"]
        assert "internal_error" not in codes, (messages, frames)
        # One answer each: an error, an ack, or a snapshot for a sync (and one for the
        # last sync); events of what was played come besides.
        answers = [f for f in frames if f["type"] in ("error", "ack", "snapshot")]
        assert len(answers) == len(messages) + 1, (messages, frames)
        sent += len(messages)

    one_case()
    assert errors_logged(caplog) == []
    return sent


def _is_sync(message: str) -> bool:
    try:
        decoded = json.loads(message)
    except ValueError:
        return False
    return isinstance(decoded, dict) and decoded.get("type") == "sync" and _valid_sync(decoded)


def _valid_sync(message: dict) -> bool:
    version, after = message.get("version"), message.get("after")

    def number(value: Any) -> bool:
        return isinstance(value, int) and not isinstance(value, bool) and (
            0 <= value <= consumers.MAX_NUMBER
        )

    return number(version) and (after is None or number(after))


def test_random_socket_messages_get_a_typed_answer_each_short_run(game, alice, caplog):
    fuzz_socket(game, alice, caplog, SHORT)
    assert [r.problems for r in check_games(Game.objects.all())] == [()]


@pytest.mark.fuzz
def test_random_socket_messages_get_a_typed_answer_each(game, alice, caplog):
    sent = fuzz_socket(game, alice, caplog, LONG)
    assert [r.problems for r in check_games(Game.objects.all())] == [()]
    print(f"\nFIGURES fuzz socket: {sent} messages, no internal error")
