"""Idle lichess-API streams held open by a real server: what they cost in memory, and
what they do to a move's trip to a board stream.

Seeds a scratch database with players, their API tokens (made directly) and games,
starts the server (Daphne serving ``ajedrez.asgi``, in a process of this script's own:
``--serve``, which also writes the process's open-stream count to a file, so the bench
can read it without the site having to publish it), and then:

1. plays ``--moves`` moves of one game through ``POST /api/board/game/{id}/move/{uci}``,
   each timed from just before its POST until the ``gameState`` carrying it arrives on
   the opponent's board stream (``GET /api/board/game/stream/{id}``): the baseline;
2. opens ``--events`` idle ``/api/stream/event`` streams (``EVENTS_PER_TOKEN`` per
   player, under ``API_STREAMS_PER_TOKEN``) and ``--boards`` idle board streams (both
   players of ``--boards`` / 2 games nobody moves in), and reads the server's RSS
   before and after (``VmRSS``; per 100 streams);
3. reads the server's CPU time over two keep-alive periods with the streams idle
   (each keep-alive checks its stream's token);
4. plays ``--moves`` moves of another game, timed the same way, with every idle stream
   open;
5. closes everything and checks that the server's open-stream count returns to 0.

    python bench/api_streams.py [--events 500] [--boards 200] [--moves 20] [--quick]

``--quick``: 100 event streams, 40 board streams, 10 moves. The database is
``DATABASE_URL`` when set (it is flushed and filled: give it a scratch database), else a
temporary SQLite file; the channel layer is Redis when ``REDIS_URL`` is set.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.pgn_download import memory_kb  # noqa: E402
from bench.web_live import LINE, free_port, setup_django  # noqa: E402

EVENTS_PER_TOKEN = 10
OPEN_CONCURRENCY = 50
TIMEOUT = 30.0


# --------------------------------------------------------------------------- server


def serve(port: int, count_file: Path) -> None:
    """``--serve``: Daphne in this process, and a thread writing how many API streams
    the process holds open (``games.api.streams.open_streams``) to ``count_file``."""
    from daphne.cli import CommandLineInterface

    def report() -> None:
        while True:
            streams = sys.modules.get("games.api.streams")
            if streams is not None:
                try:
                    count = sum(list(streams.open_streams.values()))
                except RuntimeError:  # changed while read: the next turn reads it
                    count = None
                if count is not None:
                    count_file.write_text(str(count))
            time.sleep(0.1)

    threading.Thread(target=report, daemon=True).start()
    CommandLineInterface().run(
        ["-b", "127.0.0.1", "-p", str(port), "ajedrez.asgi:application"]
    )


def start_server(port: int, count_file: Path, log: Path) -> subprocess.Popen:
    from django.conf import settings

    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "SECRET_KEY": settings.SECRET_KEY,
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "LOG_LEVEL": "WARNING",
        "TASK_WORKER_IN_SERVE": "false",
    }
    with open(log, "wb") as out:
        process = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "--serve", str(port),
             "--count-file", str(count_file)],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
        )
    deadline = time.monotonic() + 30
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return process
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"the server did not start:\n{log.read_text()[-3000:]}") from None
            time.sleep(0.1)


def cpu_seconds(pid: int) -> float:
    """The process's CPU time so far (user + system, ``/proc/<pid>/stat``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def open_count(count_file: Path) -> int:
    try:
        return int(count_file.read_text() or "-1")
    except (FileNotFoundError, ValueError):
        return -1


# --------------------------------------------------------------------------- seed


def seed(events: int, boards: int) -> dict[str, Any]:
    """Players with tokens: ``events`` / EVENTS_PER_TOKEN for the event streams,
    ``boards`` / 2 idle games (a token for each player), and two games to move in."""
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from accounts import tokens
    from games import services

    call_command("migrate", verbosity=0)
    call_command("flush", interactive=False, verbosity=0)
    User = get_user_model()

    def player_with_token(name: str) -> tuple[Any, str]:
        player = User.objects.create_user(name, password=None)
        scopes = ["board:play", "challenge:read"]
        return player, tokens.create_token(player=player, description="bench", scopes=scopes)[1]

    def game_between(white: Any, black: Any) -> str:
        challenge = services.challenge(challenger=black, challenged=white)
        return services.accept_challenge(
            challenge_id=challenge.pk, player=white, colour="white"
        ).short_id

    event_tokens = [player_with_token(f"listener{i}")[1]
                    for i in range(-(-events // EVENTS_PER_TOKEN))]
    idle_games = []
    for i in range(boards // 2):
        (white, white_token), (black, black_token) = (
            player_with_token(f"idlewhite{i}"), player_with_token(f"idleblack{i}")
        )
        idle_games.append((game_between(white, black), white_token, black_token))
    played = []
    for phase in ("alone", "loaded"):
        (white, white_token), (black, black_token) = (
            player_with_token(f"{phase}white"), player_with_token(f"{phase}black")
        )
        played.append((game_between(white, black), white_token, black_token))
    return {"event_tokens": event_tokens, "idle_games": idle_games, "played": played}


# --------------------------------------------------------------------------- client


class Stream:
    """One ndjson stream read raw over HTTP/1.1: its bytes accumulate in ``seen``."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.seen = bytearray()
        self.arrived = asyncio.Event()
        self.task = asyncio.create_task(self._pump())

    async def _pump(self) -> None:
        while chunk := await self.reader.read(65536):
            self.seen += chunk
            self.arrived.set()

    async def wait_for(self, text: bytes, since: int) -> None:
        while self.seen.find(text, since) == -1:
            self.arrived.clear()
            await asyncio.wait_for(self.arrived.wait(), TIMEOUT)

    async def close(self) -> None:
        self.task.cancel()
        self.writer.close()
        with contextlib.suppress(ConnectionError, OSError):
            await self.writer.wait_closed()


async def open_stream(port: int, path: str, token: str) -> Stream:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(
        f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        f"Authorization: Bearer {token}\r\nAccept: application/x-ndjson\r\n\r\n".encode()
    )
    await writer.drain()
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), TIMEOUT)
    status = head.split(b" ", 2)[1]
    if status != b"200":
        raise SystemExit(f"{path}: {head.decode(errors='replace')}")
    return Stream(reader, writer)


async def open_many(port: int, wanted: list[tuple[str, str]]) -> list[Stream]:
    gate = asyncio.Semaphore(OPEN_CONCURRENCY)

    async def one(path: str, token: str) -> Stream:
        async with gate:
            return await open_stream(port, path, token)

    return list(await asyncio.gather(*(one(path, token) for path, token in wanted)))


def post_move(port: int, game_id: str, token: str, uci: str) -> None:
    import urllib.request

    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/api/board/game/{game_id}/move/{uci}",
        data=b"", method="POST", headers={"Authorization": f"Bearer {token}"},
    )
    with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
        assert response.status == 200, response.status


async def play(port: int, game: tuple[str, str, str], moves: int) -> list[float]:
    """``moves`` plies of LINE in ``game``, each timed until the opponent's board
    stream shows it."""
    game_id, white_token, black_token = game
    streams = await open_many(port, [(f"/api/board/game/stream/{game_id}", white_token),
                                      (f"/api/board/game/stream/{game_id}", black_token)])
    for stream in streams:
        await stream.wait_for(b'"gameFull"', 0)
    latencies = []
    for number, uci in enumerate(LINE[:moves], start=1):
        mover = (number - 1) % 2
        opponent = streams[1 - mover]
        expected = f'"moves":"{" ".join(LINE[:number])}"'.encode()
        since = len(opponent.seen)
        started = time.perf_counter()
        await asyncio.to_thread(post_move, port, game_id, (white_token, black_token)[mover], uci)
        await opponent.wait_for(expected, since)
        latencies.append((time.perf_counter() - started) * 1000)
        await streams[mover].wait_for(expected, 0)
    for stream in streams:
        await stream.close()
    return latencies


def summary(latencies: list[float]) -> dict[str, float]:
    ordered = sorted(latencies)
    return {
        "p50_ms": statistics.median(ordered),
        "p95_ms": ordered[max(0, int(len(ordered) * 0.95 + 0.5) - 1)],
        "max_ms": ordered[-1],
    }


async def wait_count(count_file: Path, wanted: int, timeout: float = TIMEOUT) -> int:
    deadline = time.monotonic() + timeout
    while (count := open_count(count_file)) != wanted and time.monotonic() < deadline:
        await asyncio.sleep(0.1)
    return count


async def measure(port: int, pid: int, count_file: Path, seeded: dict[str, Any],
                  events: int, boards: int, moves: int, keepalive: float) -> dict[str, Any]:
    alone = await play(port, seeded["played"][0], moves)
    await wait_count(count_file, 0)
    rss_before = memory_kb(pid, "VmRSS")
    wanted = [("/api/stream/event", seeded["event_tokens"][i // EVENTS_PER_TOKEN])
              for i in range(events)]
    for game_id, white_token, black_token in seeded["idle_games"]:
        wanted += [(f"/api/board/game/stream/{game_id}", white_token),
                   (f"/api/board/game/stream/{game_id}", black_token)]
    started = time.monotonic()
    idle = await open_many(port, wanted)
    for stream in idle[events:]:
        await stream.wait_for(b'"gameFull"', 0)
    opened_seconds = time.monotonic() - started
    held = await wait_count(count_file, len(idle))
    await asyncio.sleep(1.0)  # what the opening left to settle
    rss_after = memory_kb(pid, "VmRSS")
    # What holding them costs: the server's CPU over two keep-alive periods, all idle.
    cpu_started, idle_started = cpu_seconds(pid), time.monotonic()
    await asyncio.sleep(2 * keepalive)
    idle_cpu = (cpu_seconds(pid) - cpu_started) / (time.monotonic() - idle_started)
    loaded = await play(port, seeded["played"][1], moves)
    for stream in idle:
        await stream.close()
    left = await wait_count(count_file, 0)
    streams = len(idle)
    return {
        "event_streams": events,
        "board_streams": boards,
        "streams_held": held,
        "open_seconds": opened_seconds,
        "rss_before_mb": rss_before / 1024,
        "rss_after_mb": rss_after / 1024,
        "rss_per_100_streams_mb": (rss_after - rss_before) / 1024 / streams * 100,
        "idle_cpu_share": idle_cpu,
        "moves": moves,
        "alone": summary(alone),
        "loaded": summary(loaded),
        "streams_left_open": left,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=500)
    parser.add_argument("--boards", type=int, default=200)
    parser.add_argument("--moves", type=int, default=20)
    parser.add_argument("--quick", action="store_true", help="100 + 40 streams, 10 moves")
    parser.add_argument("--metrics", type=Path, help="also write the figures as JSON here")
    parser.add_argument("--serve", type=int, metavar="PORT", help=argparse.SUPPRESS)
    parser.add_argument("--count-file", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve, args.count_file)
        return
    if args.quick:
        args.events, args.boards, args.moves = 100, 40, 10
    args.moves = min(args.moves, len(LINE))
    # Each stream is a socket on both sides.
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    setup_django()
    from django.conf import settings

    seeded = seed(args.events, args.boards)
    scratch = Path(tempfile.mkdtemp(prefix="ajedrez-bench-"))
    count_file, log = scratch / "open-streams", scratch / "server.log"
    port = free_port()
    process = start_server(port, count_file, log)
    try:
        figures = asyncio.run(measure(port, process.pid, count_file, seeded, args.events,
                                      args.boards, args.moves,
                                      settings.API_STREAM_KEEPALIVE_SECONDS))
    finally:
        process.terminate()
        process.wait(timeout=10)
    layer = settings.CHANNEL_LAYERS["default"]["BACKEND"].rsplit(".", 1)[-1]
    database = settings.DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1]
    figures.update(database=database, layer=layer)
    alone, loaded = figures["alone"], figures["loaded"]
    print(
        f"{database}, {layer}: {figures['event_streams']} event + {figures['board_streams']} "
        f"board streams opened in {figures['open_seconds']:.1f} s "
        f"(server held {figures['streams_held']}); server RSS "
        f"{figures['rss_before_mb']:.0f} → {figures['rss_after_mb']:.0f} MB, "
        f"{figures['rss_per_100_streams_mb']:.2f} MB per 100 streams; server CPU while they "
        f"idle {figures['idle_cpu_share']:.0%} of a core\n"
        f"move → opponent's board stream, {figures['moves']} moves: "
        f"alone p50 {alone['p50_ms']:.1f} / p95 {alone['p95_ms']:.1f} / max "
        f"{alone['max_ms']:.1f} ms; with the idle streams p50 {loaded['p50_ms']:.1f} / p95 "
        f"{loaded['p95_ms']:.1f} / max {loaded['max_ms']:.1f} ms\n"
        f"streams left open after closing: {figures['streams_left_open']}"
    )
    if args.metrics:
        args.metrics.write_text(json.dumps(figures, indent=2) + "\n")
    if figures["streams_left_open"] != 0 or figures["streams_held"] != (
        args.events + args.boards // 2 * 2
    ):
        raise SystemExit("the server's open-stream count did not come back to 0 "
                         "or did not reach the streams opened")


if __name__ == "__main__":
    main()
