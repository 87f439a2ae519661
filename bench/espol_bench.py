"""ESPOL gateway benchmark: idle sessions' memory, round-trip latency, many players at once.

    .venv/bin/python bench/espol_bench.py [--idle 10000] [--players 1000] [--samples 2000]

Makes a throwaway SQLite database in a temporary directory, starts the gateway in a child
process on a free loopback port (``manage.py``-free: this same file with ``--serve``),
drives it from this process with one asyncio client, prints the figures and stops.

Goals: 10,000 logged-in idle sessions in at most 300 MB of server RSS; a command round
trip p50 under 5 ms on loopback; 1,000 clients playing at once without an error.

Passwords are hashed with MD5 here (the test suite does the same): production PBKDF2 costs
0.25–0.5 s a login, which would measure the hasher, not the gateway. One
phase does use PBKDF2: a burst of logins at production strength while a logged-in player
keeps sending commands, to show that the hashing does not hold the command threads. The
server logs at INFO to a file, as in production.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PASSWORD = "bench-password"
FOOLS_MATE = ["f2f3", "e7e5", "g2g4", "d8h4"]
# MD5 for the bulk of the players; PBKDF2 (Django's default) for the login-burst phase.
HASHERS = [
    "django.contrib.auth.hashers.MD5PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2PasswordHasher",
]


def raise_fd_limit() -> int:
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return hard


def setup_django(database: Path, *, production_hashers: bool = False) -> None:
    os.environ["DATABASE_URL"] = f"sqlite:///{database}"
    os.environ.pop("REDIS_URL", None)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ajedrez.settings")
    import django
    from django.conf import settings

    django.setup()
    if not production_hashers:
        settings.PASSWORD_HASHERS = HASHERS


# --------------------------------------------------------------------------- server child


def serve(database: Path, port_file: Path, *, production_hashers: bool = False) -> None:
    raise_fd_limit()
    # Every simulated client comes from 127.0.0.1.
    os.environ["ESPOL_MAX_PER_ADDRESS"] = "0"
    setup_django(database, production_hashers=production_hashers)
    from django.conf import settings

    from legacy_tcp.espol.server import EspolServer

    async def main() -> None:
        server = EspolServer(
            "127.0.0.1",
            0,
            idle_timeout=settings.ESPOL_IDLE_TIMEOUT,
            max_connections=settings.ESPOL_MAX_CONNECTIONS,
        )
        await server.start()
        port_file.write_text(str(server.port))
        # Run until the parent closes our stdin.
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(None, sys.stdin.read)
        await server.stop(grace=5.0)

    asyncio.run(main())


def start_server(
    script: str, database: Path, port_file: Path, log_file: Path
) -> tuple[subprocess.Popen, int]:
    """``script --serve database port_file`` in a child process, logging to ``log_file``;
    the child and its port, once it listens. It runs until its stdin is closed
    (:func:`stop_server`)."""
    with open(log_file, "w") as log:
        child = subprocess.Popen(
            [sys.executable, script, "--serve", str(database), str(port_file)],
            stdin=subprocess.PIPE, stdout=log, stderr=log, cwd=ROOT,
        )
    deadline = time.monotonic() + 30
    while not port_file.exists() or not port_file.read_text():
        if time.monotonic() > deadline or child.poll() is not None:
            child.kill()
            raise SystemExit(f"the server did not start; see {log_file}")
        time.sleep(0.05)
    return child, int(port_file.read_text())


def stop_server(child: subprocess.Popen) -> None:
    assert child.stdin is not None
    child.stdin.close()
    try:
        child.wait(timeout=30)
    except subprocess.TimeoutExpired:
        child.kill()


# --------------------------------------------------------------------------- client side


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def make_players(count: int, burst: int) -> None:
    from django.contrib.auth import get_user_model
    from django.contrib.auth.hashers import make_password
    from django.core.management import call_command

    from accounts.models import Preferences
    from ranking.models import PlayerRecord

    call_command("migrate", verbosity=0, interactive=False)
    user_model = get_user_model()
    hashed = make_password(PASSWORD)
    users = user_model.objects.bulk_create(
        user_model(username=f"u{i:05d}", password=hashed, is_active=True) for i in range(count)
    )
    # bulk_create skips the signal that gives every account these rows.
    strong = make_password(PASSWORD, hasher="pbkdf2_sha256")
    users += user_model.objects.bulk_create(
        user_model(username=f"p{i:05d}", password=strong, is_active=True) for i in range(burst)
    )
    PlayerRecord.objects.bulk_create(PlayerRecord(player=u) for u in users)
    Preferences.objects.bulk_create(Preferences(player=u) for u in users)


async def hold_idle_sessions(port: int, count: int, batch: int = 500) -> list:
    from legacy_tcp.espol.client import AsyncEspolClient

    clients = []
    for start in range(0, count, batch):
        opened = await asyncio.gather(
            *(AsyncEspolClient.open(port) for _ in range(start, min(count, start + batch)))
        )
        await asyncio.gather(
            *(c.login(f"u{start + i:05d}", PASSWORD) for i, c in enumerate(opened))
        )
        clients.extend(opened)
    return clients


async def round_trips(port: int, samples: int) -> dict[str, list[float]]:
    from legacy_tcp.espol.client import AsyncEspolClient, jgda

    white = await AsyncEspolClient.open(port)
    black = await AsyncEspolClient.open(port)
    await white.login("u00000", PASSWORD)
    await black.login("u00001", PASSWORD)
    assert (await black.send("JUEG:u00000")).code == 103
    name = (await white.send("ACEP:B:u00001")).text.removesuffix(".PEN")
    commands = {
        "HELP (no database)": "HELP",
        "STAT (one read)": f"STAT:{name}",
        "SPAR (moves read)": f"SPAR:{name}:0",
    }
    timings: dict[str, list[float]] = {label: [] for label in commands}
    for label, line in commands.items():
        for _ in range(50):  # warm up
            await white.send(line)
        for _ in range(samples):
            started = time.perf_counter()
            reply = await white.send(line)
            timings[label].append((time.perf_counter() - started) * 1000)
            assert reply.code in (103, 840), reply
    # Moves: knight shuffles of 12 plies (fivefold repetition would end a game at 16),
    # then a resignation and a new game between the same two players.
    timings["JGDA (a move, write)"] = []
    shuffle = ["g1f3", "g8f6", "f3g1", "f6g8"]
    while len(timings["JGDA (a move, write)"]) < min(samples, 600):
        for number in range(1, 13):
            mover = white if number % 2 else black
            started = time.perf_counter()
            reply = await mover.send(jgda(name, number, shuffle[(number - 1) % 4]))
            timings["JGDA (a move, write)"].append((time.perf_counter() - started) * 1000)
            assert reply.code == 103, reply
        assert (await white.send(f"REND:{name}:u00001")).code == 103
        assert (await black.send("JUEG:u00000")).code == 103
        name = (await white.send("ACEP:B:u00001")).text.removesuffix(".PEN")
    await white.close()
    await black.close()
    return timings


async def play_at_once(port: int, players: int, offset: int) -> tuple[int, int, float]:
    from legacy_tcp.espol.client import AsyncEspolClient, jgda

    pairs = players // 2
    errors = 0

    async def one_game(white: AsyncEspolClient, black: AsyncEspolClient, w: str, b: str) -> bool:
        if (await black.send(f"JUEG:{w}")).code != 103:
            return False
        accepted = await white.send(f"ACEP:B:{b}")
        if accepted.code != 103:
            return False
        name = accepted.text.removesuffix(".PEN")
        for number, uci in enumerate(FOOLS_MATE, start=1):
            mover = white if number % 2 else black
            if number > 1 and (await mover.send(f"SPAR:{name}:{number - 2}")).code != 103:
                return False
            if (await mover.send(jgda(name, number, uci))).code != 103:
                return False
        return (await white.send(f"STAT:{name}")).text.split(":")[4:6] == ["2", "2"]

    names = [f"u{offset + i:05d}" for i in range(2 * pairs)]
    clients = await asyncio.gather(*(AsyncEspolClient.open(port) for _ in names))
    await asyncio.gather(*(c.login(n, PASSWORD) for c, n in zip(clients, names, strict=True)))
    started = time.perf_counter()
    results = await asyncio.gather(
        *(
            one_game(clients[i], clients[pairs + i], names[i], names[pairs + i])
            for i in range(pairs)
        ),
        return_exceptions=True,
    )
    elapsed = time.perf_counter() - started
    errors = sum(1 for r in results if r is not True)
    await asyncio.gather(*(c.close() for c in clients))
    return pairs, errors, elapsed


async def login_burst(port: int, burst: int) -> tuple[float, list[float]]:
    """Log ``burst`` PBKDF2 accounts in at once; time a logged-in player's SRNK meanwhile."""
    from legacy_tcp.espol.client import AsyncEspolClient

    player = await AsyncEspolClient.open(port)
    await player.login("u00000", PASSWORD)
    clients = await asyncio.gather(*(AsyncEspolClient.open(port) for _ in range(burst)))
    started = time.perf_counter()
    logins = asyncio.gather(
        *(c.login(f"p{i:05d}", PASSWORD) for i, c in enumerate(clients))
    )
    during: list[float] = []
    while not logins.done():
        sent = time.perf_counter()
        reply = await player.send("SRNK")
        during.append((time.perf_counter() - sent) * 1000)
        assert reply.code == 103, reply
    await logins
    elapsed = time.perf_counter() - started
    await asyncio.gather(player.close(), *(c.close() for c in clients))
    return elapsed, during


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--idle", type=int, default=10_000)
    parser.add_argument("--players", type=int, default=1_000)
    parser.add_argument("--samples", type=int, default=2_000)
    parser.add_argument("--burst", type=int, default=32, help="PBKDF2 logins at once")
    parser.add_argument("--idle-only", action="store_true",
                        help="stop after the idle sessions and round trips")
    parser.add_argument("--metrics", metavar="PATH", help="also write the figures as JSON")
    parser.add_argument("--serve", nargs=2, metavar=("DATABASE", "PORT_FILE"), help="internal")
    args = parser.parse_args()
    if args.serve:
        serve(Path(args.serve[0]), Path(args.serve[1]))
        return

    fd_limit = raise_fd_limit()
    with tempfile.TemporaryDirectory(prefix="espol-bench-") as tmp:
        database, port_file, log_file = (
            Path(tmp) / "bench.sqlite3",
            Path(tmp) / "port",
            Path(tmp) / "server.log",
        )
        setup_django(database)
        users = max(args.idle, args.players + 2)
        started = time.perf_counter()
        make_players(users, args.burst)
        print(f"setup: {users + args.burst} players in a throwaway SQLite database "
              f"({time.perf_counter() - started:.1f} s); fd limit {fd_limit}")

        child, port = start_server(__file__, database, port_file, log_file)
        try:
            base_rss = rss_mb(child.pid)
            print(f"server: pid {child.pid}, port {port}, RSS at start {base_rss:.1f} MB")

            async def idle_phase() -> None:
                t0 = time.perf_counter()
                clients = await hold_idle_sessions(port, args.idle)
                t1 = time.perf_counter()
                await asyncio.sleep(1.0)
                rss = rss_mb(child.pid)
                metrics.update(idle_sessions=len(clients), idle_rss_mb=rss,
                               start_rss_mb=base_rss)
                print(
                    f"idle: {len(clients)} sessions logged in ({t1 - t0:.1f} s); server RSS "
                    f"{rss:.1f} MB ({(rss - base_rss) * 1024 / max(1, len(clients)):.1f} KB "
                    f"a session above start); goal <= 300 MB: "
                    f"{'met' if rss <= 300 else 'NOT met'}"
                )
                timings = await round_trips(port, args.samples)
                print(f"round trips on loopback, with the {len(clients)} idle sessions held:")
                for label, values in timings.items():
                    print(
                        f"  {label:22} n={len(values):5d} p50={statistics.median(values):.2f} ms"
                        f" p95={percentile(values, 0.95):.2f} ms"
                        f" p99={percentile(values, 0.99):.2f} ms"
                    )
                await asyncio.gather(*(c.close() for c in clients))

            metrics: dict[str, float] = {}
            asyncio.run(idle_phase())
            if args.metrics:
                Path(args.metrics).write_text(json.dumps(metrics))
            if args.idle_only:
                return
            time.sleep(1.0)
            pairs, errors, elapsed = asyncio.run(play_at_once(port, args.players, offset=2))
            print(
                f"players: {2 * pairs} clients played {pairs} games to mate at once in "
                f"{elapsed:.1f} s; games with an error: {errors}"
            )
            elapsed, during = asyncio.run(login_burst(port, args.burst))
            print(
                f"login burst: {args.burst} PBKDF2 logins at once took {elapsed:.1f} s; a "
                f"logged-in player's SRNK meanwhile: n={len(during)} "
                f"p50={statistics.median(during):.2f} ms max={max(during):.2f} ms"
            )
            print(f"server RSS at the end: {rss_mb(child.pid):.1f} MB")
        finally:
            stop_server(child)
        errors_logged = sum(
            1 for line in log_file.read_text().splitlines() if " ERROR " in line
        )
        print(f"server log: {errors_logged} ERROR lines")


if __name__ == "__main__":
    main()
