"""The archive's PGN download against a real Daphne server: its time, its size, the
server's peak memory, and what it does to another player's requests meanwhile.

Seeds a scratch database with ``--games`` finished games of ``--plies`` half-moves for one
player (bulk inserts of precomputed legal lines), starts Daphne (``ajedrez.asgi``) on
loopback, and measures:

- the latency of another player's ``/games/<id>/state/`` (a game in progress between two
  other players) with no download running, as the baseline;
- one download of ``/players/<owner>/games.pgn``: time to the first byte, total time,
  bytes, and the server's peak RSS (``VmHWM`` of ``/proc/<pid>/status``, reset before each
  phase where the kernel allows it), with the other player's state latency meanwhile;
- ``--parallel`` downloads at once, each by a different player (one player may run only
  one at a time), with the same figures;
- two downloads at once by the same player: the statuses answered (200 and 429 when the
  per-player bound holds).

    python bench/pgn_download.py [--games 2000] [--plies 200] [--parallel 8]

The database is ``DATABASE_URL`` when set (it is flushed and filled: give it a scratch
database), else a temporary SQLite file.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.web_live import free_port, setup_django, start_daphne  # noqa: E402

OWNER = "owner"


def legal_line(rng: random.Random, plies: int) -> list[tuple[str, str, str]]:
    """``plies`` random legal moves from the standard position that never end the game
    (no mate, stalemate, dead position, fivefold or 75-move rule) and include a
    promotion when one comes up: (uci, san, fen after) each."""
    import chess

    while True:
        board = chess.Board()
        line = []
        while len(line) < plies:
            moves = list(board.legal_moves)
            rng.shuffle(moves)
            # Promotions and captures first: they keep the games varied and short of
            # the 75-move rule.
            moves.sort(key=lambda m: (m.promotion is None, not board.is_capture(m)))
            for move in moves:
                san = board.san(move)
                board.push(move)
                if not board.is_game_over():
                    line.append((move.uci(), san, board.fen()))
                    break
                board.pop()
            else:
                break
        if len(line) == plies:
            return line


def seed(games: int, plies: int, downloaders: int) -> dict:
    """Fill the database; return the cookies and the watched game's id."""
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import transaction
    from django.test import Client
    from django.utils import timezone

    from games import openings
    from games.models import Game, Move

    call_command("migrate", verbosity=0)
    call_command("flush", interactive=False, verbosity=0)
    User = get_user_model()
    owner = User.objects.create_user(OWNER, password=None)
    readers = [User.objects.create_user(f"reader{i}", password=None) for i in range(downloaders)]
    white = User.objects.create_user("watched_white", password=None)
    black = User.objects.create_user("watched_black", password=None)
    watched = Game.objects.create(white=white, black=black)

    rng = random.Random(20260525)
    lines = [legal_line(rng, plies) for _ in range(8)]
    named = []
    for line in lines:
        found = [openings.opening_at(fen, n) for n, (_, _, fen) in enumerate(line[:30], 1)]
        named.append(next((o for o in reversed(found) if o is not None), None))
    endings = [("1-0", "resignation"), ("0-1", "timeout"), ("1/2-1/2", "agreement")]
    now = timezone.now()
    batch = 250
    for start in range(0, games, batch):
        with transaction.atomic():
            created = Game.objects.bulk_create(
                [
                    Game(
                        white=owner if k % 2 == 0 else readers[k % len(readers)],
                        black=readers[k % len(readers)] if k % 2 == 0 else owner,
                        created_at=now,
                        updated_at=now,
                        status="finished",
                        result=endings[k % 3][0],
                        termination=endings[k % 3][1],
                        finished_at=now,
                        last_move_at=now,
                        last_move_san=lines[k % 8][-1][1],
                        fen=lines[k % 8][-1][2],
                        next_move_number=plies + 1,
                        version=plies + 1,
                        opening_eco=named[k % 8].eco if named[k % 8] else "",
                        opening_name=named[k % 8].name if named[k % 8] else "",
                    )
                    for k in range(start, min(games, start + batch))
                ]
            )
            Move.objects.bulk_create(
                [
                    Move(game=game, number=n, uci=uci, san=san, fen_after=fen, played_at=now)
                    for k, game in enumerate(created, start=start)
                    for n, (uci, san, fen) in enumerate(lines[k % 8], start=1)
                ],
                batch_size=5000,
            )

    def cookie(user) -> str:
        client = Client()
        client.force_login(user)
        name = settings.SESSION_COOKIE_NAME
        return f"{name}={client.cookies[name].value}"

    return {
        "watched": watched.pk,
        "watcher": cookie(white),
        "readers": [cookie(r) for r in readers],
    }


# --------------------------------------------------------------------------- measuring


def memory_kb(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def reset_peak(pid: int) -> bool:
    """Reset the process's ``VmHWM`` to its current RSS (Linux ≥ 4.0, same user)."""
    try:
        Path(f"/proc/{pid}/clear_refs").write_text("5")
    except OSError:
        return False
    return True


def download(base: str, cookie: str, figures: dict) -> None:
    """One archive download; its status, bytes, first-byte and total seconds go to
    ``figures``."""
    started = time.perf_counter()
    request = urllib.request.Request(
        f"{base}/players/{OWNER}/games.pgn", headers={"Cookie": cookie}
    )
    try:
        with urllib.request.urlopen(request, timeout=600) as response:
            first = response.read(1)
            figures["first_byte_s"] = time.perf_counter() - started
            size = len(first)
            while chunk := response.read(65536):
                size += len(chunk)
            figures.update(status=response.status, bytes=size)
    except urllib.error.HTTPError as exc:
        figures.update(status=exc.code, bytes=len(exc.read()))
    figures["seconds"] = time.perf_counter() - started


def state_latencies(
    base: str, cookie: str, game_id: int, until: threading.Event, at_least: int = 5
) -> list[float]:
    """Another player's game state, requested one after another until ``until`` is set
    (and at least ``at_least`` times); the latency of each in ms."""
    request = urllib.request.Request(f"{base}/games/{game_id}/state/", headers={"Cookie": cookie})
    latencies = []
    while not until.is_set() or len(latencies) < at_least:
        started = time.perf_counter()
        with urllib.request.urlopen(request, timeout=600) as response:
            response.read()
            assert response.status == 200
        latencies.append((time.perf_counter() - started) * 1000)
        time.sleep(0.02)
    return latencies


def phase(base: str, pid: int, seeded: dict, cookies: list[str]) -> dict:
    """Downloads by ``cookies`` at once, with the other player's latency meanwhile."""
    reset_peak(pid)
    rss_before = memory_kb(pid, "VmRSS")
    done = threading.Event()
    results: list[dict] = [{} for _ in cookies]
    threads = [
        threading.Thread(target=download, args=(base, c, r))
        for c, r in zip(cookies, results, strict=True)
    ]
    latencies: list[float] = []
    watcher = threading.Thread(
        target=lambda: latencies.extend(
            state_latencies(base, seeded["watcher"], seeded["watched"], done)
        )
    )
    watcher.start()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    done.set()
    watcher.join()
    return {
        "downloads": results,
        "rss_before_mb": rss_before / 1024,
        "peak_rss_mb": memory_kb(pid, "VmHWM") / 1024,
        "state_p50_ms": statistics.median(latencies),
        "state_max_ms": max(latencies),
        "state_requests": len(latencies),
    }


def describe(name: str, figures: dict) -> str:
    ok = [d for d in figures["downloads"] if d.get("status") == 200]
    seconds = [d["seconds"] for d in ok]
    text = f"{name}: "
    if ok:
        text += (
            f"{len(ok)} downloads of {ok[0]['bytes'] / 1e6:.2f} MB, "
            f"{statistics.median(seconds):.1f} s each (max {max(seconds):.1f} s; "
            f"first byte after {statistics.median(d['first_byte_s'] for d in ok):.2f} s); "
        )
    return text + (
        f"server RSS {figures['rss_before_mb']:.0f} MB before, peak {figures['peak_rss_mb']:.0f} "
        f"MB; another player's state p50 {figures['state_p50_ms']:.0f} ms, max "
        f"{figures['state_max_ms']:.0f} ms over {figures['state_requests']} requests"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--plies", type=int, default=200)
    parser.add_argument("--parallel", type=int, default=8)
    parser.add_argument("--metrics", type=Path, help="also write the figures as JSON here")
    args = parser.parse_args()
    setup_django()
    from django.conf import settings

    started = time.perf_counter()
    seeded = seed(args.games, args.plies, max(2, args.parallel))
    print(
        f"seeded {args.games:,} games of {args.plies} plies in "
        f"{time.perf_counter() - started:.0f} s "
        f"({settings.DATABASES['default']['ENGINE'].rsplit('.', 1)[-1]}); "
        f"load {' '.join(f'{v:.2f}' for v in os.getloadavg())}"
    )
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    process = start_daphne(port)
    figures: dict = {}
    try:
        idle = threading.Event()
        idle.set()
        quiet = state_latencies(base, seeded["watcher"], seeded["watched"], idle, at_least=50)
        figures["idle_state_p50_ms"] = statistics.median(quiet)
        print(
            f"no download: another player's state p50 {statistics.median(quiet):.0f} ms, "
            f"max {max(quiet):.0f} ms over {len(quiet)} requests"
        )
        figures["one"] = phase(base, process.pid, seeded, seeded["readers"][:1])
        print(describe("1 download", figures["one"]))
        readers = seeded["readers"][: args.parallel]
        figures["parallel"] = phase(base, process.pid, seeded, readers)
        print(describe(f"{len(readers)} downloads by {len(readers)} players", figures["parallel"]))
        same = phase(base, process.pid, seeded, [seeded["readers"][0]] * 2)
        figures["same_player_statuses"] = sorted(d["status"] for d in same["downloads"])
        print(f"2 downloads at once by one player: statuses {figures['same_player_statuses']}")
    finally:
        process.terminate()
        process.wait(timeout=10)
    print(f"load at the end {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    if args.metrics:
        args.metrics.write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()
