"""Many ESPOL clients at once: every game played to the end, every game intact."""

from __future__ import annotations

import asyncio

import pytest

from games.models import Game, Move
from legacy_tcp.espol.client import AsyncEspolClient, jgda
from ranking.models import PlayerRecord
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db(transaction=True)

FOOLS_MATE = ["f2f3", "e7e5", "g2g4", "d8h4"]
PAIRS = 100


async def play_fools_mate(white: AsyncEspolClient, black: AsyncEspolClient, pair: int) -> str:
    """Black challenges, white accepts as white; each side reads the other's move first."""
    assert (await black.send(f"JUEG:w{pair:03d}")).code == 103
    accepted = await white.send(f"ACEP:B:b{pair:03d}")
    assert accepted.code == 103, accepted.text
    name = accepted.text.removesuffix(".PEN")
    last = None
    for number, uci in enumerate(FOOLS_MATE, start=1):
        mover = white if number % 2 else black
        if number > 1:
            seen = await mover.send(f"SPAR:{name}:{number - 2}")
            assert seen.text.startswith(f"{number - 1}:{FOOLS_MATE[number - 2]}:")
        last = await mover.send(jgda(name, number, uci))
        assert last.code == 103, (name, number, last.code, last.text)
    assert last.text == "4:2:2"
    return name


async def play_all(port: int, server_connections) -> tuple[list[str], int]:
    names = [f"w{i:03d}" for i in range(PAIRS)] + [f"b{i:03d}" for i in range(PAIRS)]
    clients = await asyncio.gather(*(AsyncEspolClient.open(port) for _ in names))
    await asyncio.gather(*(c.login(n, PASSWORD) for c, n in zip(clients, names, strict=True)))
    peak = server_connections()
    try:
        games = await asyncio.gather(
            *(play_fools_mate(clients[i], clients[PAIRS + i], i) for i in range(PAIRS))
        )
    finally:
        await asyncio.gather(*(c.close() for c in clients))
    return games, peak


def test_200_clients_play_100_games_to_mate_at_once(server, make_player):
    for i in range(PAIRS):
        make_player(f"w{i:03d}")
        make_player(f"b{i:03d}")
    games, peak = asyncio.run(
        asyncio.wait_for(play_all(server.port, lambda: server.connection_count), timeout=240)
    )
    assert peak == 2 * PAIRS
    assert len(set(games)) == PAIRS
    finished = Game.objects.filter(status="finished", result="0-1", termination="checkmate")
    assert finished.count() == PAIRS
    for game in Game.objects.select_related("white", "black"):
        assert game.white.username[1:] == game.black.username[1:]
        moves = Move.objects.filter(game=game).order_by("number").values_list("uci", flat=True)
        assert list(moves) == FOOLS_MATE
        assert game.next_move_number == 5
    assert PlayerRecord.objects.filter(player__username__startswith="b", wins=1).count() == PAIRS
    assert PlayerRecord.objects.filter(player__username__startswith="w", losses=1).count() == PAIRS
