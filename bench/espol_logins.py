"""ESPOL logins at production strength: how many a second, and a move's time meanwhile.

    .venv/bin/python bench/espol_logins.py [--at-once 40] [--rounds 5] [--moves 200]

Makes a throwaway SQLite database whose players' passwords are hashed with the project's
own hashers (Argon2id, ``PASSWORD_HASHERS``), serves the ESPOL gateway in a child process
with the production settings (``PASSWORD_HASHES_AT_ONCE`` included), and from this
process:

1. times ``--moves`` moves (JGDA) between two logged-in players, alone;
2. logs ``--at-once`` players in at once (each a new connection: USER, PASS), ``--rounds``
   times, while the two players keep moving; prints the logins per second and each
   login's p50 / max, and the moves' p50 / p99 meanwhile against alone.

Goal (issue 23): at least 40 logins a second, a move's latency unchanged meanwhile.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.espol_bench import (  # noqa: E402
    percentile,
    raise_fd_limit,
    serve,
    setup_django,
    start_server,
    stop_server,
)

PASSWORD = "bench-password-2026"
SHUFFLE = ["g1f3", "g8f6", "f3g1", "f6g8"]


def make_players(count: int) -> None:
    from django.contrib.auth import get_user_model
    from django.contrib.auth.hashers import identify_hasher, make_password
    from django.core.management import call_command

    from accounts.models import Preferences
    from ranking.models import PlayerRecord

    call_command("migrate", verbosity=0, interactive=False)
    user_model = get_user_model()
    # The production hasher, once: every player's hash is a real one of its kind (a
    # salt shared by all of them changes nothing of a check's cost).
    hashed = make_password(PASSWORD)
    print(f"hasher: {identify_hasher(hashed).algorithm}")
    users = user_model.objects.bulk_create(
        user_model(username=f"l{i:05d}", password=hashed, is_active=True)
        for i in range(count + 2)
    )
    PlayerRecord.objects.bulk_create(PlayerRecord(player=u) for u in users)
    Preferences.objects.bulk_create(Preferences(player=u) for u in users)


class Movers:
    """Two logged-in players shuffling knights: 12 plies a game (a fivefold repetition
    would end it at 16), then a resignation and a new game."""

    def __init__(self, port: int, white: str, black: str) -> None:
        self.port, self.names = port, (white, black)

    async def open(self) -> None:
        from legacy_tcp.espol.client import AsyncEspolClient

        self.white = await AsyncEspolClient.open(self.port)
        self.black = await AsyncEspolClient.open(self.port)
        await self.white.login(self.names[0], PASSWORD)
        await self.black.login(self.names[1], PASSWORD)
        await self._new_game()

    async def _new_game(self) -> None:
        assert (await self.black.send(f"JUEG:{self.names[0]}")).code == 103
        self.game = (await self.white.send(f"ACEP:B:{self.names[1]}")).text.removesuffix(".PEN")
        self.number = 1

    async def move(self) -> float:
        from legacy_tcp.espol.client import jgda

        if self.number > 12:
            assert (await self.white.send(f"REND:{self.game}:{self.names[1]}")).code == 103
            await self._new_game()
        mover = self.white if self.number % 2 else self.black
        started = time.perf_counter()
        reply = await mover.send(jgda(self.game, self.number, SHUFFLE[(self.number - 1) % 4]))
        took = (time.perf_counter() - started) * 1000
        assert reply.code == 103, reply
        self.number += 1
        return took

    async def close(self) -> None:
        await asyncio.gather(self.white.close(), self.black.close())


async def login_rounds(port: int, at_once: int, rounds: int, movers: Movers) -> dict:
    from legacy_tcp.espol.client import AsyncEspolClient

    logins: list[float] = []
    during: list[float] = []
    elapsed = 0.0
    for _ in range(rounds):
        clients = await asyncio.gather(*(AsyncEspolClient.open(port) for _ in range(at_once)))

        async def one(client: AsyncEspolClient, name: str) -> None:
            started = time.perf_counter()
            await client.login(name, PASSWORD)
            logins.append((time.perf_counter() - started) * 1000)

        started = time.perf_counter()
        burst = asyncio.gather(*(one(c, f"l{i:05d}") for i, c in enumerate(clients)))
        while not burst.done():
            during.append(await movers.move())
        await burst
        elapsed += time.perf_counter() - started
        await asyncio.gather(*(c.close() for c in clients))
    return {"logins": logins, "elapsed": elapsed, "during": during}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--at-once", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--moves", type=int, default=200, help="moves timed alone")
    parser.add_argument("--metrics", metavar="PATH", help="also write the figures as JSON")
    parser.add_argument("--serve", nargs=2, metavar=("DATABASE", "PORT_FILE"), help="internal")
    args = parser.parse_args()
    if args.serve:
        serve(Path(args.serve[0]), Path(args.serve[1]), production_hashers=True)
        return

    raise_fd_limit()
    print(f"{os.cpu_count()} CPUs; load average at start: "
          "{:.1f} {:.1f} {:.1f}".format(*os.getloadavg()))
    with tempfile.TemporaryDirectory(prefix="espol-logins-") as tmp:
        database, port_file, log_file = (
            Path(tmp) / "bench.sqlite3", Path(tmp) / "port", Path(tmp) / "server.log"
        )
        setup_django(database, production_hashers=True)
        make_players(args.at_once)
        from django.conf import settings

        print(f"PASSWORD_HASHES_AT_ONCE = {settings.PASSWORD_HASHES_AT_ONCE}")
        child, port = start_server(__file__, database, port_file, log_file)
        try:

            async def run() -> tuple[list[float], dict]:
                movers = Movers(port, f"l{args.at_once:05d}", f"l{args.at_once + 1:05d}")
                await movers.open()
                for _ in range(20):  # warm up
                    await movers.move()
                alone = [await movers.move() for _ in range(args.moves)]
                burst = await login_rounds(port, args.at_once, args.rounds, movers)
                await movers.close()
                return alone, burst

            alone, burst = asyncio.run(run())
        finally:
            stop_server(child)
        errors = sum(1 for line in log_file.read_text().splitlines() if " ERROR " in line)

    logins, during = burst["logins"], burst["during"]
    rate = len(logins) / burst["elapsed"]
    figures = {
        "at_once": args.at_once,
        "logins": len(logins),
        "logins_per_second": rate,
        "login_p50_ms": statistics.median(logins),
        "login_max_ms": max(logins),
        "move_alone_p50_ms": statistics.median(alone),
        "move_alone_p99_ms": percentile(alone, 0.99),
        "move_during_p50_ms": statistics.median(during),
        "move_during_p99_ms": percentile(during, 0.99),
        "moves_during": len(during),
        "server_errors": errors,
    }
    print(f"{len(logins)} logins, {args.at_once} at once, {args.rounds} rounds: "
          f"{rate:.1f} logins/s (goal >= 40); a login p50 {figures['login_p50_ms']:.0f} ms, "
          f"max {figures['login_max_ms']:.0f} ms")
    print(f"a move (JGDA) alone: p50 {figures['move_alone_p50_ms']:.2f} ms, "
          f"p99 {figures['move_alone_p99_ms']:.2f} ms ({len(alone)} moves)")
    print(f"a move during the logins: p50 {figures['move_during_p50_ms']:.2f} ms, "
          f"p99 {figures['move_during_p99_ms']:.2f} ms ({len(during)} moves)")
    print(f"server log: {errors} ERROR lines; load average at end: "
          "{:.1f} {:.1f} {:.1f}".format(*os.getloadavg()))
    if args.metrics:
        Path(args.metrics).write_text(json.dumps(figures))


if __name__ == "__main__":
    main()
