"""``manage.py run_espol_server`` and ``manage.py espol_client`` as people run them."""

from __future__ import annotations

import io
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import chess
import pytest
from django.core.management import call_command
from django.db import connection

from legacy_tcp.espol.client import EspolClient, coordinates_of
from tests.conftest import PASSWORD
from tests.protocols.conftest import make_certificate

pytestmark = pytest.mark.django_db(transaction=True)

ROOT = Path(__file__).resolve().parents[2]


def database_url() -> str:
    """The test database as a DATABASE_URL, for a child process."""
    db = connection.settings_dict
    if db["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{db['NAME']}"
    user = db["USER"] + (f":{db['PASSWORD']}" if db["PASSWORD"] else "")
    return f"postgresql://{user}@{db['HOST']}:{db['PORT'] or 5432}/{db['NAME']}"


def spawn_server(*options: str) -> tuple[subprocess.Popen, int]:
    """``manage.py run_espol_server`` in a child process on a free port; returns it and the port."""
    env = {**os.environ, "DATABASE_URL": database_url(), "PYTHONUNBUFFERED": "1"}
    env.pop("REDIS_URL", None)
    child = subprocess.Popen(
        [sys.executable, "manage.py", "run_espol_server", "--port", "0", *options],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    banner = child.stdout.readline()
    found = re.search(r":(\d+)", banner)
    if found is None:
        child.kill()
        pytest.fail(f"no address in the banner: {banner!r}")
    return child, int(found.group(1))


@pytest.mark.parametrize("stop_signal", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_run_espol_server_serves_and_stops_on_a_signal(alice, stop_signal):
    child, port = spawn_server()
    try:
        client = EspolClient("127.0.0.1", port)
        # USER proves the child reads the test database (its password hashers differ).
        assert client.send("USER:alice").code == 101
        child.send_signal(stop_signal)
        assert child.wait(timeout=20) == 0
        assert client.receive() is None
        client.close()
    finally:
        if child.poll() is None:
            child.kill()


def test_run_espol_server_speaks_tls_with_certfile_and_keyfile(alice, tmp_path):
    cert, key = make_certificate(tmp_path)
    child, port = spawn_server("--certfile", cert, "--keyfile", key)
    try:
        client = EspolClient("127.0.0.1", port, tls=True)
        assert client.send("USER:alice").code == 101
        client.close()
        # A client speaking plain text to the TLS port gets no ESPOL answer.
        plain = EspolClient("127.0.0.1", port, timeout=2)
        with pytest.raises((OSError, ValueError)):
            response = plain.send("USER:alice")
            if response is None:
                raise ConnectionResetError("closed")
        plain.close()
    finally:
        child.send_signal(signal.SIGTERM)
        child.wait(timeout=20)


def test_run_espol_server_refuses_a_certificate_without_its_key(db):
    from django.core.management.base import CommandError

    with pytest.raises(CommandError):
        call_command("run_espol_server", "--port", "0", "--certfile", "cert.pem")


def test_espol_client_prints_decoded_responses(server, alice):
    out = io.StringIO()
    call_command(
        "espol_client",
        "--port",
        str(server.port),
        "-c",
        "USER:alice",
        "-c",
        "JUEG:bob",
        "-c",
        "QUIT",
        stdout=out,
    )
    assert out.getvalue().splitlines() == [
        "> USER:alice",
        "101 [5 bytes] alice",
        "> JUEG:bob",
        "803 [30 bytes] login required: USER then PASS",
        "> QUIT",
        "(connection closed)",
    ]


def client_output(server, *lines: str) -> list[str]:
    out = io.StringIO()
    args = [arg for line in lines for arg in ("-c", line)]
    call_command("espol_client", "--port", str(server.port), *args, stdout=out)
    return out.getvalue().splitlines()


def test_espol_client_plays_typed_san_and_shows_the_board(server, game):
    lines = client_output(
        server, "USER:alice", f"PASS:{PASSWORD}", f"/move {game.public_id} e4"
    )
    assert lines[5] == "103 [5 bytes] 1:0:0"
    board = lines[6:]
    assert board[0] == f"{game.public_id}: alice (white) - bob (black)"
    # White's side: rank 8 on top, the pawn on e4, e2 empty.
    assert board[1] == "8  r n b q k b n r"
    assert board[5] == "4  . . . . P . . ."
    assert board[7] == "2  P P P P . P P P"
    assert board[9] == "   a b c d e f g h"
    assert board[10] == "1. e4"
    assert board[11] == "move 2, black to play (opponent's move)"
    game.refresh_from_db()
    assert game.moves.get(number=1).san == "e4"


def test_espol_client_shows_black_the_board_from_its_side(server, game, play):
    play(game, "e4")
    lines = client_output(server, "USER:bob", f"PASS:{PASSWORD}", f"/board {game.public_id}")
    board = lines[5:]
    assert board[1] == "1  R N B K Q B N R"
    assert board[4] == "4  . . . P . . . ."
    assert board[9] == "   h g f e d c b a"
    assert board[11] == "move 2, black to play (your move)"


def test_espol_client_move_in_uci_with_promotion_and_a_finished_game(server, game, play):
    play(game, "f4", "e5", "fxe5", "d6", "exd6", "Be7", "dxe7", "Kd7")
    lines = client_output(server, "USER:alice", f"PASS:{PASSWORD}", f"/move {game.public_id} e7d8n")
    assert lines[5] == "103 [5 bytes] 9:0:0"
    assert lines[-2] == "1. f4 e5 2. fxe5 d6 3. exd6 Be7 4. dxe7 Kd7 5. exd8=N"
    assert lines[-1] == "move 10, black to play (opponent's move)"
    game.refresh_from_db()
    assert game.moves.get(number=9).uci == "e7d8n"
    play(game, "Kxd8")
    lines = client_output(server, "USER:bob", f"PASS:{PASSWORD}", f"/board {game.public_id}")
    assert lines[-1] == "move 11, white to play (opponent's move)"


def test_espol_client_shows_a_finished_game(server, game, play):
    play(game, "f3", "e5", "g4", "Qh4#")
    lines = client_output(server, "USER:alice", f"PASS:{PASSWORD}", f"/board {game.public_id}")
    assert lines[-2] == "1. f3 e5 2. g4 Qh4#"
    assert lines[-1] == "finished: black won"


def test_espol_client_refuses_what_is_not_a_move_and_sends_nothing(server, game):
    lines = client_output(
        server, "USER:alice", f"PASS:{PASSWORD}", f"/move {game.public_id} Zz9"
    )
    assert lines[-1] == "not a move in SAN or UCI: Zz9"
    assert not game.moves.exists()


def test_espol_client_sends_an_illegal_san_move_for_the_server_to_judge(server, game):
    # Qh5 is SAN, illegal at the start (the queen is blocked): the server says so (822).
    lines = client_output(
        server, "USER:alice", f"PASS:{PASSWORD}", f"/move {game.public_id} Qh5"
    )
    assert lines[-1].startswith("822 ")
    assert "not a move in SAN or UCI" not in "\n".join(lines)
    assert not game.moves.exists()


def test_espol_client_reads_illegal_san_as_the_one_piece_it_names():
    board = chess.Board()
    assert coordinates_of(board, "Qh5") == "d1h5"
    assert coordinates_of(board, "e5") == "e2e5"
    assert coordinates_of(board, "O-O") == "e1g1"
    assert coordinates_of(board, "a8=Q") == "a2a8q"
    assert coordinates_of(board, "Nf3") == "g1f3"  # legal: python-chess reads it
    with pytest.raises(ValueError, match="no single piece"):
        coordinates_of(board, "Nd4")  # neither knight reaches d4 on an empty board
    with pytest.raises(ValueError, match="not a move in SAN or UCI"):
        coordinates_of(board, "Zz9")


def test_espol_client_passes_on_the_servers_refusals(server, game, carol):
    # An illegal UCI move is the server's to judge (822); a game not yours is 820.
    lines = client_output(
        server, "USER:alice", f"PASS:{PASSWORD}", f"/move {game.public_id} e2e5"
    )
    assert lines[-1].startswith("822 ")
    lines = client_output(
        server, "USER:carol", f"PASS:{PASSWORD}", f"/move {game.public_id} e2e4"
    )
    assert lines[-1].startswith("820 ")
    lines = client_output(server, f"/move {game.public_id} e4")
    assert lines[-1].startswith("803 ")
    assert not game.moves.exists()


def test_espol_client_unknown_local_command_prints_local_help(server, db):
    lines = client_output(server, "/moves P0000001", "/board")
    assert lines[1] == "local commands:"
    assert lines.count("local commands:") == 2


def test_espol_client_reads_lines_from_standard_input_until_an_empty_one(
    server, game, monkeypatch
):
    typed = f"USER:alice\nPASS:{PASSWORD}\n/move {game.public_id} d4\n\nHELP\n"
    monkeypatch.setattr("sys.stdin", io.StringIO(typed))
    out = io.StringIO()
    call_command("espol_client", "--port", str(server.port), stdout=out)
    lines = out.getvalue().splitlines()
    assert lines[:3] == ["101 [5 bytes] alice", "102 [5 bytes] alice", "103 [5 bytes] 1:0:0"]
    assert "1. d4" in lines
    # The empty line ended the session: HELP was never sent.
    assert not any(line.startswith("HELP") or "USER" in line for line in lines[3:])
    assert game.moves.get().san == "d4"


def test_espol_client_prints_each_frame_of_a_long_list_on_its_own_line():
    from legacy_tcp.espol.codec import FrameDecoder, record_frames
    from legacy_tcp.management.commands.espol_client import show

    names = [f",player{n:06d}" for n in range(6000)]
    (response,) = FrameDecoder().feed(record_frames(103, names, head="01795387085"))
    lines = show(response).splitlines()
    assert lines[0] == f"103 [{len(response.data)} bytes in 2 frames]"
    assert [line[:14] for line in lines[1:]] == ["  01795387085,", "  ,player00504"]
