"""A move's trip to the opponent's open page, against a real Daphne server on loopback.

Starts Daphne (``ajedrez.asgi`` with static files) in a subprocess on a scratch database,
opens both players' game sockets as their pages do (session cookie, same origin), and for
each move measures from the moment the mover's socket sends it (or, with ``--http``, the
mover's HTTP POST) to the moment the ``event`` frame carrying it arrives on the
opponent's socket. Prints p50 / p95 / max over ``--moves`` moves.

    python bench/web_live.py [--moves 200] [--http]

The database is ``DATABASE_URL`` when set (it is flushed and filled: give it a scratch
database), else a temporary SQLite file; the channel layer is Redis when ``REDIS_URL``
is set, else the in-memory one inside the Daphne process.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# Twenty plies of a quiet opening: no repetition, no early end; each game plays them all.
LINE = [
    "e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6", "b5a4", "g8f6", "e1g1", "f8e7",
    "f1e1", "b7b5", "a4b3", "d7d6", "c2c3", "e8g8", "h2h3", "c6b8", "d2d4", "b8d7",
]


def setup_django() -> None:
    if "DATABASE_URL" not in os.environ:
        scratch = Path(tempfile.mkdtemp(prefix="ajedrez-bench-")) / "bench.sqlite3"
        os.environ["DATABASE_URL"] = f"sqlite:///{scratch}"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ajedrez.settings")
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    import django

    django.setup()


def seed(games: int) -> list[tuple[int, str, str]]:
    """``games`` fresh games between distinct pairs: (game id, white cookie, black cookie)."""
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.test import Client

    from games import services

    call_command("migrate", verbosity=0)
    call_command("flush", interactive=False, verbosity=0)
    User = get_user_model()

    def cookie(user) -> str:
        client = Client()
        client.force_login(user)
        name = settings.SESSION_COOKIE_NAME
        return f"{name}={client.cookies[name].value}"

    seeded = []
    for i in range(games):
        white = User.objects.create_user(f"white{i}", password=None)
        black = User.objects.create_user(f"black{i}", password=None)
        challenge = services.challenge(challenger=black, challenged=white)
        game = services.accept_challenge(challenge_id=challenge.pk, player=white, colour="white")
        seeded.append((game.pk, cookie(white), cookie(black)))
    return seeded


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_daphne(port: int) -> subprocess.Popen:
    from django.conf import settings

    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "SECRET_KEY": settings.SECRET_KEY,
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        # Every watcher here comes from loopback: the caps on sockets per address and
        # per session (meant for one hostile client) would refuse the crowd measured.
        "SOCKETS_PER_ADDRESS": "0",
        "SOCKETS_PER_SESSION": "0",
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port),
         "ajedrez.asgi:application"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 30
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return process
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("daphne did not start") from None
            time.sleep(0.1)


def post_move(base: str, game_id: int, cookie: str, number: int, uci: str) -> None:
    """The page's HTTP fallback: CSRF cookie + header, form body, JSON answer."""
    token = "b" * 32
    request = urllib.request.Request(
        f"{base}/games/{game_id}/move/",
        data=urllib.parse.urlencode({"number": number, "move": uci}).encode(),
        headers={
            "Cookie": f"{cookie}; csrftoken={token}",
            "X-CSRFToken": token,
            "Accept": "application/json",
            "Referer": f"{base}/games/{game_id}/",
            "Origin": base,
        },
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        assert response.status == 200


async def play_game(
    base: str, game_id: int, cookies: tuple[str, str], use_http: bool, latencies: list[float]
) -> None:
    from websockets.asyncio.client import connect

    ws_url = base.replace("http://", "ws://") + f"/ws/games/{game_id}/"
    sockets = []
    for cookie in cookies:
        ws = await connect(ws_url, additional_headers={"Cookie": cookie, "Origin": base})
        snapshot = json.loads(await ws.recv())
        assert snapshot["type"] == "snapshot", snapshot
        sockets.append(ws)

    async def next_move_event(ws, number: int) -> None:
        while True:
            frame = json.loads(await ws.recv())
            if frame["type"] == "error":
                raise RuntimeError(frame)
            if frame["type"] == "event" and frame.get("move", {}).get("number") == number:
                return

    for number, uci in enumerate(LINE, start=1):
        mover = (number - 1) % 2
        opponent_ws = sockets[1 - mover]
        started = time.perf_counter()
        if use_http:
            await asyncio.to_thread(post_move, base, game_id, cookies[mover], number, uci)
        else:
            await sockets[mover].send(json.dumps({"type": "move", "number": number, "move": uci}))
        await next_move_event(opponent_ws, number)
        latencies.append((time.perf_counter() - started) * 1000)
        # The mover's own copy of the event (and its ack) before the next move.
        await next_move_event(sockets[mover], number)
    for ws in sockets:
        await ws.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=200)
    parser.add_argument("--http", action="store_true", help="post moves over HTTP")
    args = parser.parse_args()
    setup_django()
    from django.conf import settings

    games = max(1, -(-args.moves // len(LINE)))
    seeded = seed(games)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    process = start_daphne(port)
    latencies: list[float] = []
    try:
        for game_id, white, black in seeded:
            asyncio.run(play_game(base, game_id, (white, black), args.http, latencies))
    finally:
        process.terminate()
        process.wait(timeout=10)
    latencies = sorted(latencies[: args.moves])
    p95 = latencies[max(0, int(len(latencies) * 0.95) - 1)]
    layer = settings.CHANNEL_LAYERS["default"]["BACKEND"].rsplit(".", 1)[-1]
    database = settings.DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1]
    print(
        f"{len(latencies)} moves sent over {'HTTP POST' if args.http else 'WebSocket'} "
        f"({database}, {layer}): mover → opponent's socket "
        f"p50 {statistics.median(latencies):.1f} ms, p95 {p95:.1f} ms, "
        f"max {latencies[-1]:.1f} ms"
    )


if __name__ == "__main__":
    main()
