"""Whole games over ESPOL: from JUEG/ACEP to mate, draws, resignation, claims, sync."""

from __future__ import annotations

import re
import struct

import pytest
from django.contrib.auth import get_user_model

from games import rules
from games.models import Game
from legacy_tcp.espol.client import jgda
from tests.games.knight_walks import knight_walk

pytestmark = pytest.mark.django_db(transaction=True)

User = get_user_model()


def start_over_tcp(challenger, challenged, colour: str = "B") -> str:
    """``challenger`` sends JUEG, ``challenged`` accepts with ACEP; returns the game name."""
    assert challenger.send(f"JUEG:{challenged.name}").code == 103
    reply = challenged.send(f"ACEP:{colour}:{challenger.name}")
    assert reply.code == 103 and reply.text.endswith(".PEN")
    return reply.text.removesuffix(".PEN")


@pytest.fixture
def pair(login, alice, bob):
    """Two logged-in clients, each tagged with its user name."""
    white, black = login(alice), login(bob)
    white.name, black.name = "alice", "bob"
    return white, black


def test_a_game_from_jueg_and_acep_to_mate(pair):
    white, black = pair
    name = start_over_tcp(black, white, colour="B")
    replies = [
        white.send(jgda(name, 1, "f2f3")),
        black.send(jgda(name, 2, "e7e5")),
        white.send(jgda(name, 3, "g2g4")),
        black.send(jgda(name, 4, "d8h4")),
    ]
    assert [r.text for r in replies] == ["1:0:0", "2:0:0", "3:0:0", "4:2:2"]
    status = white.send(f"STAT:{name}").text.split(":")
    assert status[4:6] == ["2", "2"]
    game = Game.objects.get(pk=int(name[1:]))
    assert (game.result, game.termination) == ("0-1", "checkmate")
    assert white.send(jgda(name, 5, "e2e4")).code == 824


def test_draw_offered_declined_then_offered_and_accepted(pair):
    white, black = pair
    name = start_over_tcp(black, white)
    assert white.send(f"TBLS:{name}:bob").code == 103
    assert black.send(f"RTBL:{name}:N:alice").code == 103
    assert white.send(f"STAT:{name}").text.split(":")[4:8] == ["0", "0", "0", "0"]
    assert white.send(jgda(name, 1, "e2e4")).code == 103
    assert black.send(f"TBLs:{name}:alice").code == 103
    assert white.send(f"RTBS:{name}:S:bob").code == 103
    assert white.send(f"STAT:{name}").text.split(":")[4:8] == ["2", "3", "2", "1"]


def test_a_resignation_ends_the_game_for_the_opponent(pair):
    white, black = pair
    name = start_over_tcp(black, white)
    white.send(jgda(name, 1, "e2e4"))
    assert black.send(f"REND:{name}:alice").code == 103
    assert white.send(f"STAT:{name}").text.split(":")[4:8] == ["2", "1", "0", "3"]
    assert white.send("SRNK").text.startswith("alice:1,")


def test_finp_claims_a_threefold_repetition(pair):
    white, black = pair
    name = start_over_tcp(black, white)
    shuffle = ["g1f3", "g8f6", "f3g1", "f6g8"] * 2
    for number, uci in enumerate(shuffle, start=1):
        player = white if number % 2 else black
        assert player.send(jgda(name, number, uci)).code == 103
    reply = black.send(f"FINP:{name}:alice")
    assert (reply.code, reply.text) == (103, "2:3")
    game = Game.objects.get(pk=int(name[1:]))
    assert game.termination == "threefold_repetition"


def test_finp_claims_the_fifty_move_rule(login, alice, bob, game, play):
    # A hundred quiet plies through the service layer, as the browsers would play them.
    game = play(game, "e4", "e5", *knight_walk(["e4", "e5"], 100))
    assert rules.halfmove_clock(game.fen) >= 100 and game.is_active
    reply = login(alice).send(f"FINP:{game.public_id}:bob")
    assert (reply.code, reply.text) == (103, "2:3")
    game.refresh_from_db()
    assert (game.result, game.termination) == ("1/2-1/2", "fifty_moves")


def test_a_move_that_stalemates_ends_the_game_drawn(pair, game, play):
    white, black = pair
    # Sam Loyd's ten-move stalemate, all but its last move played beforehand.
    play(
        game,
        *["e3", "a5", "Qh5", "Ra6", "Qxa5", "h5", "h4", "Rah6", "Qxc7", "f6"],
        *["Qxd7+", "Kf7", "Qxb7", "Qd3", "Qxb8", "Qh7", "Qxc8", "Kg6"],
    )
    reply = white.send(jgda(game.public_id, 19, "c8e6"))
    assert (reply.code, reply.text) == (103, "19:2:3")  # finished, ganador 3: a draw
    assert white.send(f"STAT:{game.public_id}").text.split(":")[4:6] == ["2", "3"]
    game.refresh_from_db()
    assert (game.result, game.termination) == ("1/2-1/2", "stalemate")
    assert black.send(jgda(game.public_id, 20, "g6h6")).code == 824


def test_spar_syncs_incrementally(pair):
    white, black = pair
    name = start_over_tcp(black, white)
    assert black.send(f"SPAR:{name}:0").code == 840
    white.send(jgda(name, 1, "e2e4"))
    black.send(jgda(name, 2, "c7c5"))
    assert black.send(f"SPAR:{name}:0").text == "1:e2e4:0:1228:0,2:c7c5:0:5034:0,"
    white.send(jgda(name, 3, "g1f3"))
    black.send(jgda(name, 4, "d7d6"))
    assert black.send(f"SPAR:{name}:2").text == "3:g1f3:0:0621:0,4:d7d6:0:5143:0,"
    assert black.send(f"SPAR:{name}:4").code == 840


def read_frames(client) -> list[tuple[bytes, bytes]]:
    """The raw frames of one response: (code and flag, data) each."""
    raw = bytearray()
    frames = []
    while not frames or frames[-1][0][3:4] == b"1":
        while len(raw) < 6:
            raw += client.sock.recv(65536)
        (length,) = struct.unpack(">H", raw[4:6])
        while len(raw) < 6 + length:
            raw += client.sock.recv(65536)
        frames.append((bytes(raw[:4]), bytes(raw[6 : 6 + length])))
        del raw[: 6 + length]
    return frames


def test_jaut_over_65535_bytes_arrives_whole_with_frames_cut_between_names(login, alice):
    User.objects.bulk_create(
        User(username=f"player{i:06d}", password="!", is_active=True) for i in range(6000)
    )
    client = login(alice)
    client.send_raw(b"JAUT:00000000000\r\n")
    frames = read_frames(client)
    assert [head for head, _data in frames] == [b"1031", b"1030"]
    # The date once, then ",name" records; the second frame starts on a separator.
    assert [len(data) for _head, data in frames] == [11 + 5040 * 13, 960 * 13]
    assert frames[1][1].startswith(b",player")
    date, *names = b"".join(data for _head, data in frames).decode("utf-8").split(",")
    assert len(date) == 11 and date.isdigit()
    assert names == [f"player{i:06d}" for i in range(6000)]


def test_ppen_over_65535_bytes_is_cut_between_whole_records(login, alice):
    opponents = User.objects.bulk_create(
        User(username=f"player{i:06d}", password="!", is_active=True) for i in range(2600)
    )
    Game.objects.bulk_create(Game(white=alice, black=black) for black in opponents)
    client = login(alice)
    client.send_raw(b"PPEN:00000000000\r\n")
    frames = read_frames(client)
    assert [head for head, _data in frames] == [b"1031", b"1030"]
    records = []
    for _head, data in frames:
        text = data.decode("utf-8")
        assert len(data) <= 65535 and text.endswith(",")
        records += text.split(",")[:-1]
    assert len(records) == 2600
    assert all(re.fullmatch(r"P\d{7}:player\d{6}:N:0", record) for record in records)
