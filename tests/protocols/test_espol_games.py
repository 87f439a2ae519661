"""Whole games over ESPOL: from JUEG/ACEP to mate, draws, resignation, claims, sync."""

from __future__ import annotations

import struct

import pytest
from django.contrib.auth import get_user_model

from games.models import Game
from legacy_tcp.client import jgda

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


def test_a_response_over_65535_bytes_comes_in_several_frames(login, alice):
    User.objects.bulk_create(
        User(username=f"player{i:06d}", password="!", is_active=True) for i in range(6000)
    )
    client = login(alice)
    client.send_raw(b"JAUT:00000000000\r\n")
    raw = bytearray()
    headers = []
    while True:
        while len(raw) < 6:
            raw += client.sock.recv(65536)
        (length,) = struct.unpack(">H", raw[4:6])
        while len(raw) < 6 + length:
            raw += client.sock.recv(65536)
        headers.append((bytes(raw[:4]), length))
        data, raw = raw[6 : 6 + length], raw[6 + length :]
        headers[-1] += (bytes(data),)
        if headers[-1][0][3:4] == b"0":
            break
    assert [h[0] for h in headers] == [b"1031", b"1030"]
    assert headers[0][1] == 65535
    text = b"".join(h[2] for h in headers).decode()
    names = text.split(",")[1:]
    assert len(names) == 6000
    assert names[0] == "player000000" and names[-1] == "player005999"
