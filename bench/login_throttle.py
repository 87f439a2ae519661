"""How long a player's right password takes over ESPOL while others guess at her name.

    .venv/bin/python bench/login_throttle.py [--guessers 8] [--guess-for 20]

Makes a throwaway SQLite database, serves the gateway on a free loopback port in this
process (its own thread and event loop, as ``run_espol_server`` runs it), and creates the
player alice with the project's own password hashers. It times alice's login from
127.0.0.2 once alone, then again after ``--guessers`` connections from 127.0.0.1 have sent
wrong passwords for her name, one after another on each connection, for ``--guess-for``
seconds (they keep guessing while she logs in). The login delays are the settings'
defaults (``ESPOL_LOGIN_DELAY``, ``ESPOL_LOGIN_DELAY_MAX``).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PASSWORD = "bench-password"
GUESSERS_ADDRESS = "127.0.0.1"
PLAYER_ADDRESS = "127.0.0.2"


def setup_django(database: Path) -> None:
    os.environ["DATABASE_URL"] = f"sqlite:///{database}"
    os.environ.pop("REDIS_URL", None)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ajedrez.settings")
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)
    get_user_model().objects.create_user(username="alice", password=PASSWORD)


def serve_in_thread() -> int:
    """Start the gateway on its own event loop in a daemon thread; return its port."""
    from django.conf import settings

    from legacy_tcp.espol.server import EspolServer

    ready = threading.Event()
    port: list[int] = []

    def run() -> None:
        loop = asyncio.new_event_loop()
        server = EspolServer(
            "127.0.0.1", 0, idle_timeout=settings.ESPOL_IDLE_TIMEOUT, max_connections=100
        )
        loop.run_until_complete(server.start())
        port.append(server.port)
        ready.set()
        loop.run_forever()

    threading.Thread(target=run, daemon=True).start()
    ready.wait(30)
    return port[0]


async def connect(port: int, address: str):
    from legacy_tcp.espol.client import AsyncEspolClient

    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(address, 0))
    return AsyncEspolClient(reader, writer)


async def timed_login(port: int) -> tuple[int, float]:
    """alice's USER then PASS from the player's address: PASS's code and seconds."""
    client = await connect(port, PLAYER_ADDRESS)
    await client.send("USER:alice")
    started = time.perf_counter()
    reply = await client.send(f"PASS:{PASSWORD}")
    seconds = time.perf_counter() - started
    await client.close()
    return reply.code, seconds


async def guess(port: int, until: float, answers: list[int]) -> None:
    client = await connect(port, GUESSERS_ADDRESS)
    await client.send("USER:alice")
    while time.monotonic() < until:
        answers.append((await client.send("PASS:wrong-guess")).code)
    await client.close()


async def measure(port: int, guessers: int, guess_for: float) -> None:
    code, alone = await timed_login(port)
    print(f"alice alone: {code} in {alone:.2f} s")
    answers: list[int] = []
    until = time.monotonic() + guess_for + 120
    tasks = [asyncio.create_task(guess(port, until, answers)) for _ in range(guessers)]
    await asyncio.sleep(guess_for)
    code, attacked = await timed_login(port)
    print(
        f"alice from {PLAYER_ADDRESS} after {guessers} guessers from {GUESSERS_ADDRESS} "
        f"guessed for {guess_for:.0f} s ({len(answers)} answers so far): "
        f"{code} in {attacked:.2f} s"
    )
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    print("guessers' answers by code:", {c: answers.count(c) for c in sorted(set(answers))})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--guessers", type=int, default=8)
    parser.add_argument("--guess-for", type=float, default=20.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        setup_django(Path(directory) / "bench.sqlite3")
        from django.conf import settings

        print(
            f"hasher {settings.PASSWORD_HASHERS[0].rsplit('.', 1)[-1]}, login delay "
            f"{settings.ESPOL_LOGIN_DELAY} s doubling to {settings.ESPOL_LOGIN_DELAY_MAX} s"
        )
        port = serve_in_thread()
        asyncio.run(measure(port, args.guessers, args.guess_for))


if __name__ == "__main__":
    main()
