"""One move, many watchers: how long a move takes to reach 1,000 spectators' sockets.

Starts a real Daphne (``ajedrez.asgi:application``) in a subprocess on a scratch
database, opens the game page's socket of both players (in this process) and of
``--spectators`` watchers (in ``--client-processes`` separate client processes), each
logged in with its own session cookie as a browser is. Then plays ``--warmup`` moves (not
counted: a fresh server's first move pays for what is loaded once) and ``--moves`` moves,
each sent over the mover's socket, and for each move takes the time from just before the
mover's socket sends it to the arrival of the ``event`` frame on the opponent's socket and
on every spectator's socket. The next move starts once every socket has the last one.

    python bench/fanout.py [--spectators 1000] [--moves 20] [--layer memory|redis] [--quick]
                           [--warmup 1] [--per-move] [--profile PATH]

Prints p50 / p99 / max for the spectators and the opponent, frames lost (not arrived
within ``--timeout``), the server's CPU time per socket per event over the moves and how
long its event loop waited for a CPU meanwhile (other work on the machine), the server's
RSS per 1,000 sockets (growth while the spectators connect), and the clients' own CPU, so
that a busy client or a busy machine can be told from a slow server.

The database is ``DATABASE_URL`` when set (it is flushed and filled: give it a scratch
database), else a temporary SQLite file. ``--layer redis`` uses ``REDIS_URL`` (default
``redis://127.0.0.1:6379/5``), whose database is flushed first; redis-py's socket timeout
is raised to 30 s in the URL when the URL does not set one, since its 5 s default equals
channels-redis's blocking pop and would break idle consumers (channels_redis#422).

Times on the two sides are ``time.monotonic_ns()``: one clock for every process of the
machine. A spectator reads only the version out of each frame (no JSON parsing), so its
per-frame work is what the WebSocket client itself costs.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import json
import math
import os
import random
import resource
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/5"
# Connections opened at once by one client process: Daphne's listen backlog and the
# handshake's database work stay reasonable.
CONNECT_CONCURRENCY = 50
CONNECT_ATTEMPTS = 5


# --------------------------------------------------------------------------- helpers


def frame_version(text: str) -> tuple[str, int]:
    """A frame's type and version, read without parsing the whole frame.

    Frames are ``json.dumps`` of dicts whose first keys are ``type`` then, for events,
    ``event`` and ``version``; anything else falls back to ``json.loads``.
    """
    if text.startswith('{"type": "event"'):
        at = text.find('"version": ')
        if at != -1:
            end = text.find(",", at)
            return "event", int(text[at + 11 : end])
    frame = json.loads(text)
    return frame.get("type", ""), int(frame.get("version") or 0)


def percentile(sorted_values: list[float], q: float) -> float:
    if not sorted_values:
        return math.nan
    index = min(len(sorted_values) - 1, max(0, math.ceil(q * len(sorted_values)) - 1))
    return sorted_values[index]


def process_cpu_seconds(pid: int) -> float:
    """User + system CPU time of process ``pid`` (all its threads)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


def runqueue_wait_seconds(pid: int) -> float:
    """How long the main thread of ``pid`` (the server's event loop) has waited, runnable,
    for a CPU: on a machine shared with other work, time no code of ours could shorten."""
    return int(Path(f"/proc/{pid}/schedstat").read_text().split()[1]) / 1e9


def process_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return math.nan


def own_cpu_seconds() -> float:
    times = os.times()
    return times.user + times.system


def raise_open_files_limit() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def cpu_reference_us() -> float:
    """Best of five timings of ``sum(range(10_000))``: compares machines and hours."""
    best = math.inf
    for _ in range(5):
        started = time.perf_counter()
        sum(range(10_000))
        best = min(best, time.perf_counter() - started)
    return best * 1e6


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# --------------------------------------------------------------------------- spectators


async def run_spectators(port: int, game_id: int, cookies: list[str], moves: int) -> None:
    """A client process: ``cookies`` spectators' sockets; commands on stdin, results on
    stdout (``ready <version>``, ``got <version>`` per complete move, ``result <json>``)."""
    from websockets.asyncio.client import connect
    from websockets.exceptions import InvalidHandshake

    url = f"ws://127.0.0.1:{port}/ws/games/{game_id}/"
    origin = f"http://127.0.0.1:{port}"
    count = len(cookies)
    sockets: list[Any] = [None] * count
    versions: list[int] = [0] * count
    gate = asyncio.Semaphore(CONNECT_CONCURRENCY)

    retries = 0

    async def open_one(index: int) -> None:
        nonlocal retries
        async with gate:
            for attempt in range(CONNECT_ATTEMPTS):
                try:
                    ws = await connect(
                        url,
                        additional_headers={"Cookie": cookies[index], "Origin": origin},
                        ping_interval=None,  # Daphne pings; the clients only answer
                        open_timeout=120,
                        max_queue=None,
                    )
                    break
                except (OSError, InvalidHandshake):
                    # A server slow to accept (Daphne drops a handshake its application
                    # has not answered in 5 s) is retried, as a page reconnects.
                    if attempt == CONNECT_ATTEMPTS - 1:
                        raise
                    retries += 1
                    await asyncio.sleep(1.0)
            kind, version = frame_version(await ws.recv())
            if kind != "snapshot":
                raise SystemExit(f"spectator {index}: first frame was {kind}")
            sockets[index], versions[index] = ws, version

    await asyncio.gather(*(open_one(i) for i in range(count)))
    base = versions[0]
    if any(v != base for v in versions):
        raise SystemExit("spectators saw different versions at the start")
    arrivals = [[0] * count for _ in range(moves)]
    remaining = [count] * moves
    write = sys.stdout.write

    async def listen(index: int, ws: Any) -> None:
        async for text in ws:
            arrived = time.monotonic_ns()
            kind, version = frame_version(text)
            step = version - base - 1
            if kind == "event" and 0 <= step < moves and not arrivals[step][index]:
                arrivals[step][index] = arrived
                remaining[step] -= 1
                if not remaining[step]:
                    write(f"got {version}\n")
                    sys.stdout.flush()

    listeners = [asyncio.create_task(listen(i, ws)) for i, ws in enumerate(sockets)]
    write(f"ready {base} {retries}\n")
    sys.stdout.flush()
    loop = asyncio.get_running_loop()
    cpu_start = cpu_end = own_cpu_seconds()
    while True:
        command = (await loop.run_in_executor(None, sys.stdin.readline)).strip()
        if command == "start":
            cpu_start = own_cpu_seconds()
        elif command in ("done", ""):
            cpu_end = own_cpu_seconds()
            break
    result = {"arrivals": arrivals, "cpu": cpu_end - cpu_start}
    write("result " + json.dumps(result) + "\n")
    sys.stdout.flush()
    for task in listeners:
        task.cancel()
    # No close handshakes: the server is stopped next, and 1,000 closes would only add
    # noise to a run that is over.
    os._exit(0)


# --------------------------------------------------------------------------- the server side


def setup_django(layer: str) -> str:
    """Point this process (and the server's environment) at a scratch database and the
    chosen layer; returns the Redis URL ("" for the in-memory layer)."""
    if "DATABASE_URL" not in os.environ:
        scratch = Path(tempfile.mkdtemp(prefix="ajedrez-fanout-")) / "bench.sqlite3"
        os.environ["DATABASE_URL"] = f"sqlite:///{scratch}"
    redis_url = ""
    if layer == "redis":
        redis_url = os.environ.get("REDIS_URL") or DEFAULT_REDIS_URL
        if "socket_timeout" not in redis_url:
            redis_url += ("&" if "?" in redis_url else "?") + "socket_timeout=30"
        os.environ["REDIS_URL"] = redis_url
        import redis

        redis.Redis.from_url(redis_url).flushdb()
    else:
        os.environ.pop("REDIS_URL", None)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ajedrez.settings")
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    import django

    django.setup()
    return redis_url


def seed(spectators: int) -> tuple[int, str, str, list[str]]:
    """A fresh game and logged-in sessions: (game id, white's cookie, black's cookie,
    the spectators' cookies), each spectator an account of its own."""
    from django.conf import settings
    from django.contrib.auth import (
        BACKEND_SESSION_KEY,
        HASH_SESSION_KEY,
        SESSION_KEY,
        get_user_model,
    )
    from django.contrib.sessions.backends.base import VALID_KEY_CHARS
    from django.contrib.sessions.backends.db import SessionStore
    from django.contrib.sessions.models import Session
    from django.core.management import call_command
    from django.utils import timezone
    from django.utils.crypto import get_random_string
    from django.utils.module_loading import import_string

    from games import services

    call_command("migrate", verbosity=0)
    call_command("flush", interactive=False, verbosity=0)
    User = get_user_model()
    white = User.objects.create_user("white", password=None)
    black = User.objects.create_user("black", password=None)
    User.objects.bulk_create(
        [User(username=f"spectator{i:05d}", password="!") for i in range(spectators)]
    )
    watchers = list(User.objects.filter(username__startswith="spectator").order_by("pk"))
    # The backend a login records, as django.contrib.auth's login() picks it: the first
    # one that can load users (django-axes' backend, listed first, only counts failures).
    backend = next(
        path for path in settings.AUTHENTICATION_BACKENDS
        if hasattr(import_string(path), "get_user")
    )
    store = SessionStore()
    expires = timezone.now() + datetime.timedelta(days=1)
    sessions = []
    for user in [white, black, *watchers]:
        data = {
            SESSION_KEY: str(user.pk),
            BACKEND_SESSION_KEY: backend,
            HASH_SESSION_KEY: user.get_session_auth_hash(),
        }
        key = get_random_string(32, VALID_KEY_CHARS)
        sessions.append(Session(session_key=key, session_data=store.encode(data),
                                expire_date=expires))
    Session.objects.bulk_create(sessions, batch_size=500)
    name = settings.SESSION_COOKIE_NAME
    cookies = [f"{name}={s.session_key}" for s in sessions]
    challenge = services.challenge(challenger=black, challenged=white)
    game = services.accept_challenge(challenge_id=challenge.pk, player=white, colour="white")
    return game.pk, cookies[0], cookies[1], cookies[2:]


def move_line(plies: int, seed: int = 2024) -> list[str]:
    """``plies`` legal moves (UCI) from the start that end no game: a seeded random walk,
    so every run plays the same line and the destinations stay those of real positions."""
    import chess

    board = chess.Board()
    rng = random.Random(seed)
    line: list[str] = []
    while len(line) < plies:
        candidates = list(board.legal_moves)
        rng.shuffle(candidates)
        for move in candidates:
            board.push(move)
            if not board.is_game_over(claim_draw=True):
                line.append(move.uci())
                break
            board.pop()
        else:
            raise SystemExit("the random walk ran out of moves; try fewer plies")
    return line


def start_daphne(port: int, log_path: Path) -> subprocess.Popen[bytes]:
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
    log = log_path.open("wb")
    process = subprocess.Popen(
        [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port),
         "ajedrez.asgi:application"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
    )
    deadline = time.monotonic() + 60
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return process
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"daphne did not start; see {log_path}") from None
            time.sleep(0.1)


class PlayerSocket:
    """A player's game page socket in this process: records when each event arrives."""

    def __init__(self, ws: Any, name: str) -> None:
        self.ws, self.name = ws, name
        self.arrivals: dict[int, int] = {}
        self.arrived: dict[int, asyncio.Event] = {}
        self.errors: list[str] = []
        self.task = asyncio.create_task(self.listen())

    def waiter(self, version: int) -> asyncio.Event:
        return self.arrived.setdefault(version, asyncio.Event())

    async def listen(self) -> None:
        async for text in self.ws:
            arrived = time.monotonic_ns()
            kind, version = frame_version(text)
            if kind == "event" and version not in self.arrivals:
                self.arrivals[version] = arrived
                self.waiter(version).set()
            elif kind == "error":
                self.errors.append(str(text))


async def drive(args: argparse.Namespace, port: int, game_id: int, white_cookie: str,
                black_cookie: str, spectator_cookies: list[str], server_pid: int,
                scratch: Path) -> dict[str, Any]:
    from websockets.asyncio.client import connect

    url = f"ws://127.0.0.1:{port}/ws/games/{game_id}/"
    origin = f"http://127.0.0.1:{port}"
    players = []
    base = 0
    for name, cookie in (("white", white_cookie), ("black", black_cookie)):
        ws = await connect(url, additional_headers={"Cookie": cookie, "Origin": origin},
                           ping_interval=None, max_queue=None)
        kind, base = frame_version(await ws.recv())
        if kind != "snapshot":
            raise SystemExit(f"{name}: first frame was {kind}")
        players.append(PlayerSocket(ws, name))
    await asyncio.sleep(0.5)
    rss_players = process_rss_mb(server_pid)

    # The spectators, split over the client processes.
    count = args.client_processes
    chunks = [spectator_cookies[i::count] for i in range(count)]
    clients = []
    for index, chunk in enumerate(c for c in chunks if c):
        cookie_file = scratch / f"cookies-{index}.json"
        cookie_file.write_text(json.dumps(chunk))
        process = await asyncio.create_subprocess_exec(
            sys.executable, __file__, "--role", "spectators", "--port", str(port),
            "--game", str(game_id), "--cookies", str(cookie_file),
            "--moves", str(args.warmup + args.moves),
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            limit=2**30,
        )
        clients.append(process)
    connect_started = time.monotonic()
    retries = 0
    for process in clients:
        assert process.stdout is not None
        line = (await process.stdout.readline()).decode().split()
        if not line or line[0] != "ready" or int(line[1]) != base:
            raise SystemExit(f"a client process did not get ready: {line}")
        retries += int(line[2])
    connect_seconds = time.monotonic() - connect_started
    await asyncio.sleep(1.0)  # let the server finish the handshakes' work
    rss_all = process_rss_mb(server_pid)

    warmup = args.warmup
    line = move_line(warmup + args.moves)
    sent: list[int] = []
    opponent_ms: list[float | None] = []

    async def play(step: int, uci: str) -> None:
        version = base + step + 1
        mover, opponent = (players[0], players[1]) if step % 2 == 0 else (players[1], players[0])
        message = json.dumps({"type": "move", "number": step + 1, "move": uci})
        t0 = time.monotonic_ns()
        await mover.ws.send(message)
        sent.append(t0)

        async def complete(process: Any) -> None:
            while True:
                words = (await process.stdout.readline()).decode().split()
                if not words:
                    raise SystemExit("a client process ended early")
                if words[0] == "got" and int(words[1]) >= version:
                    return

        waits = [complete(p) for p in clients]
        waits.append(opponent.waiter(version).wait())
        waits.append(mover.waiter(version).wait())
        try:
            await asyncio.wait_for(asyncio.gather(*waits), args.timeout)
        except TimeoutError:
            print(f"move {step + 1}: not every socket had it after {args.timeout} s",
                  file=sys.stderr)
        for player in players:
            if player.errors:
                raise SystemExit(f"{player.name} got an error: {player.errors}")
        arrived = opponent.arrivals.get(version)
        opponent_ms.append(None if arrived is None else (arrived - t0) / 1e6)
        if args.gap:
            await asyncio.sleep(args.gap)

    # The first moves of a fresh server pay for imports and caches filled once; they are
    # played but not counted.
    for step in range(warmup):
        await play(step, line[step])
    for process in clients:
        assert process.stdin is not None
        process.stdin.write(b"start\n")
        await process.stdin.drain()
    profiler = None
    if args.profile:
        # Sampled over the moves only; folded stacks (flamegraph.pl or speedscope read them).
        profiler = subprocess.Popen(
            ["py-spy", "record", "--pid", str(server_pid), "--format", "raw", "--rate", "250",
             "--nonblocking", "--output", args.profile],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        await asyncio.sleep(1.0)
    cpu_server = process_cpu_seconds(server_pid)
    waited = runqueue_wait_seconds(server_pid)
    cpu_driver = own_cpu_seconds()
    started = time.monotonic()
    for step in range(warmup, len(line)):
        await play(step, line[step])
    elapsed = time.monotonic() - started
    cpu_server = process_cpu_seconds(server_pid) - cpu_server
    waited = runqueue_wait_seconds(server_pid) - waited
    cpu_driver = own_cpu_seconds() - cpu_driver
    if profiler is not None:
        profiler.send_signal(signal.SIGINT)
        profiler.wait(timeout=60)

    per_move: list[list[float]] = [[] for _ in range(args.moves)]
    lost_spectators = 0
    cpu_clients = 0.0
    for process in clients:
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(b"done\n")
        await process.stdin.drain()
        while True:
            raw = await process.stdout.readline()
            if not raw:
                raise SystemExit("a client process ended without its result")
            if raw.startswith(b"result "):
                break
        result = json.loads(raw[len(b"result "):])
        cpu_clients += result["cpu"]
        for step, arrivals in enumerate(result["arrivals"][warmup:], start=warmup):
            for arrived in arrivals:
                if arrived:
                    per_move[step - warmup].append((arrived - sent[step]) / 1e6)
                else:
                    lost_spectators += 1
        await process.wait()
    for player in players:
        player.task.cancel()
    counted = opponent_ms[warmup:]
    return {
        "spectator_ms": sorted(ms for move in per_move for ms in move),
        "opponent_ms": sorted(ms for ms in counted if ms is not None),
        "per_move": [
            (sorted(move), opponent) for move, opponent in zip(per_move, counted, strict=True)
        ],
        "lost_spectators": lost_spectators,
        "lost_opponent": sum(ms is None for ms in counted),
        "cpu_server": cpu_server,
        "waited": waited,
        "cpu_clients": cpu_clients,
        "cpu_driver": cpu_driver,
        "elapsed": elapsed,
        "rss_players": rss_players,
        "rss_all": rss_all,
        "connect_seconds": connect_seconds,
        "connect_retries": retries,
    }


def report(args: argparse.Namespace, figures: dict[str, Any], layer_name: str,
           database: str, load: str, reference: float) -> None:
    n, moves = args.spectators, args.moves
    sockets = n + 2
    spectators, opponent = figures["spectator_ms"], figures["opponent_ms"]

    def line(values: list[float]) -> str:
        return (f"p50 {percentile(values, 0.5):7.1f} ms  p99 {percentile(values, 0.99):7.1f} ms"
                f"  max {values[-1] if values else math.nan:7.1f} ms")

    deliveries = moves * sockets
    rss_growth = figures["rss_all"] - figures["rss_players"]
    print(f"fanout: {n} spectators + 2 players, {moves} moves over the mover's socket "
          f"(after {args.warmup} not counted); {layer_name}, {database}")
    print(f"machine: load average {load}; CPU reference {reference:.0f} µs; "
          f"{n} spectators connected in {figures['connect_seconds']:.1f} s "
          f"({figures['connect_retries']} handshakes retried)")
    print(f"  spectators  {line(spectators)}  lost {figures['lost_spectators']} of {n * moves}")
    print(f"  opponent    {line(opponent)}  lost {figures['lost_opponent']} of {moves}")
    print(f"  server CPU  {figures['cpu_server']:.2f} s over {figures['elapsed']:.1f} s of moves"
          f" = {figures['cpu_server'] / deliveries * 1e6:.0f} µs per socket per event;"
          f" its loop waited {figures['waited']:.2f} s for a CPU")
    print(f"  server RSS  {figures['rss_players']:.1f} MB with the players' sockets, "
          f"{figures['rss_all']:.1f} MB with the spectators: "
          f"{rss_growth / max(n, 1) * 1000:.1f} MB per 1,000 sockets")
    if args.per_move:
        for number, (values, opponent_at) in enumerate(figures["per_move"], start=1):
            shown = "lost" if opponent_at is None else f"{opponent_at:.1f} ms"
            print(f"    move {number:3d}: spectators p50 {percentile(values, 0.5):7.1f} ms, "
                  f"max {values[-1] if values else math.nan:7.1f} ms; opponent {shown}")
    print(f"  client CPU  spectators' processes {figures['cpu_clients']:.2f} s "
          f"({figures['cpu_clients'] / max(n * moves, 1) * 1e6:.0f} µs per frame, "
          f"{figures['cpu_clients'] / figures['elapsed'] * 100:.0f} % of one core); "
          f"players' process {figures['cpu_driver']:.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spectators", type=int, default=1000)
    parser.add_argument("--moves", type=int, default=20)
    parser.add_argument("--layer", choices=["memory", "redis"], default="memory")
    parser.add_argument("--quick", action="store_true", help="100 spectators, 5 moves")
    parser.add_argument("--client-processes", type=int, default=1,
                        help="processes the spectators' sockets are split over")
    parser.add_argument("--warmup", type=int, default=1,
                        help="moves played first and not counted (a fresh server's first)")
    parser.add_argument("--per-move", action="store_true",
                        help="also print each move's figures")
    parser.add_argument("--gap", type=float, default=0.05,
                        help="seconds between a move's last arrival and the next move")
    parser.add_argument("--timeout", type=float, default=30.0,
                        help="seconds after which a frame not arrived counts as lost")
    parser.add_argument("--profile", metavar="PATH",
                        help="sample the server with py-spy (installed apart) into PATH")
    parser.add_argument("--metrics", metavar="PATH", help="also write the figures as JSON")
    parser.add_argument("--role", default="driver", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--game", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--cookies", help=argparse.SUPPRESS)
    args = parser.parse_args()
    raise_open_files_limit()
    if args.role == "spectators":
        cookies = json.loads(Path(args.cookies).read_text())
        asyncio.run(run_spectators(args.port, args.game, cookies, args.moves))
        return
    if args.quick:
        args.spectators, args.moves = 100, 5

    redis_url = setup_django(args.layer)
    from django.conf import settings

    load = " ".join(Path("/proc/loadavg").read_text().split()[:3])
    reference = cpu_reference_us()
    game_id, white, black, spectators = seed(args.spectators)
    scratch = Path(tempfile.mkdtemp(prefix="ajedrez-fanout-run-"))
    port = free_port()
    server = start_daphne(port, scratch / "daphne.log")
    try:
        figures = asyncio.run(
            drive(args, port, game_id, white, black, spectators, server.pid, scratch)
        )
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
    backend = settings.CHANNEL_LAYERS["default"]["BACKEND"]
    layer_name = backend.rsplit(".", 1)[-1] + (" (Redis)" if redis_url else "")
    database = settings.DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1]
    report(args, figures, layer_name, database, load, reference)
    if args.metrics:
        spectators, opponent = figures["spectator_ms"], figures["opponent_ms"]
        Path(args.metrics).write_text(json.dumps({
            "spectators": args.spectators, "moves": args.moves, "layer": layer_name,
            "spectator_p50_ms": percentile(spectators, 0.5),
            "spectator_p99_ms": percentile(spectators, 0.99),
            "opponent_p99_ms": percentile(opponent, 0.99),
            "lost": figures["lost_spectators"] + figures["lost_opponent"],
            "rss_mb_per_1000_sockets": (figures["rss_all"] - figures["rss_players"])
            / max(args.spectators, 1) * 1000,
        }))


if __name__ == "__main__":
    main()
