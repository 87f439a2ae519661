"""``python -m bench [--quick]``: every goal of the benchmarks in one run, one table.

Runs the scripts of ``bench/`` one after another, each in a process of its own (each
sets Django up on its own scratch database) with ``--metrics`` so that it also writes its
figures as JSON, then prints one table and writes ``bench/results/latest.json``::

    {"machine": {...}, "when": "...", "quick": bool,
     "metrics": [{"name", "value", "unit", "target", "met"}, ...]}

``target`` is the goal (``met`` whether the value reaches it); both are null for figures
given for context, and for a figure measured at a smaller size than its goal names (the
quick run's fan-out and idle sessions). Each script's own output goes to
``bench/results/<script>.log``. ``--quick`` takes smaller sizes (under two minutes on a
quiet 2-core machine); the full run takes the sizes the goals name (1,000,000 stored
games among them: about 7 GB of SQLite file while it runs).

The database is each script's default (a temporary SQLite file) unless ``DATABASE_URL``
is set; then it must be a scratch database, which the scripts flush and fill.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"


@dataclass
class Metric:
    name: str
    value: float
    unit: str
    target: float | None = None  # the goal: at most this (at least, with ``at_least``)
    met: bool | None = None
    at_least: bool = False

    def __post_init__(self) -> None:
        if self.target is not None:
            self.met = self.value >= self.target if self.at_least else self.value <= self.target


@dataclass
class Sizes:
    small_games: int
    large_games: int
    spectators: int
    fanout_moves: int
    writers: str
    writer_seconds: float
    dashboard_requests: int
    idle_sessions: int
    round_trips: int
    pgn_games: int  # finished games of 200 plies in the downloaded archive
    tournament_requests: int  # renders of a 100-player event's page at each step
    analysis_moves: int  # moves timed alone, then again while two analyses run
    api_event_streams: int  # idle /api/stream/event streams held open
    api_board_streams: int  # idle board streams held open
    login_rounds: int  # rounds of 40 ESPOL logins at once


FULL = Sizes(1_000, 1_000_000, 1_000, 20, "1,2,4,8", 10.0, 200, 10_000, 2_000, 2_000, 100, 400,
             500, 200, 10)
QUICK = Sizes(1_000, 10_000, 100, 5, "4", 3.0, 30, 1_000, 100, 200, 20, 100, 100, 40, 3)
# The ESPOL login goal: this many logins at once, at least LOGINS_PER_SECOND of them a second.
LOGINS_AT_ONCE = 40
LOGINS_PER_SECOND = 40.0
# The sizes the goals are set at (the issue's): a figure at another size has no target.
GOAL_SPECTATORS = 1_000
GOAL_IDLE_SESSIONS = 10_000
DASHBOARD_VIEWER_GAMES = 449


def run_script(script: str, *options: str) -> Any:
    """Run ``bench/<script>.py`` with ``options`` and ``--metrics``; return its figures."""
    RESULTS.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="ajedrez-bench-") as scratch:
        metrics = Path(scratch) / "metrics.json"
        log = RESULTS / f"{script}.log"
        started = time.monotonic()
        print(f"  {script} {' '.join(options)} ...", end="", flush=True)
        with open(log, "w") as out:
            result = subprocess.run(
                [sys.executable, str(ROOT / "bench" / f"{script}.py"), *options,
                 "--metrics", str(metrics)],
                cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, check=False,
            )
        print(f" {time.monotonic() - started:.0f} s", flush=True)
        if result.returncode != 0 or not metrics.exists():
            raise SystemExit(f"bench/{script}.py failed (exit {result.returncode}); see {log}")
        return json.loads(metrics.read_text())


def machine() -> dict[str, Any]:
    import timeit

    loop_us = min(timeit.repeat("sum(range(10_000))", number=200, repeat=5)) / 200 * 1e6
    return {
        "host": platform.node(),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpu_reference_us": round(loop_us, 1),
        "database": "PostgreSQL" if os.environ.get("DATABASE_URL", "").startswith("postgres")
        else "SQLite",
        "load_average_at_start": [round(v, 2) for v in os.getloadavg()],
    }


def measure(sizes: Sizes) -> list[Metric]:
    metrics: list[Metric] = []

    core = run_script("core_move", "--small", str(sizes.small_games),
                      "--large", str(sizes.large_games))
    ratio = core["small_p50_ms"] / core["limit_ms"]
    metrics += [
        Metric("move p50 / physical limit (INSERT+COMMIT + python-chess)", ratio, "x", 5.0),
        Metric("the same, the front doors' call (sync_to_async)",
               core["small_async_p50_ms"] / core["limit_ms"], "x", 5.0),
        Metric(f"move p50, {sizes.small_games:,} games stored", core["small_p50_ms"], "ms"),
        Metric("physical limit of a move", core["limit_ms"], "ms"),
        Metric(f"move p50, {sizes.large_games:,} / {sizes.small_games:,} games stored",
               core["large_p50_ms"] / core["small_p50_ms"], "ratio", 1.2),
    ]

    fanout = run_script("fanout", "--spectators", str(sizes.spectators),
                        "--moves", str(sizes.fanout_moves))
    at_goal = sizes.spectators == GOAL_SPECTATORS
    metrics += [
        Metric(f"fan-out: spectator p99 at {sizes.spectators:,}", fanout["spectator_p99_ms"],
               "ms", 250.0 if at_goal else None),
        Metric(f"fan-out: opponent p99 at {sizes.spectators:,} spectators",
               fanout["opponent_p99_ms"], "ms", 50.0 if at_goal else None),
        Metric(f"fan-out: frames lost at {sizes.spectators:,}", fanout["lost"], "frames", 0),
    ]

    writers = run_script("writers", "--writers", sizes.writers,
                         "--seconds", str(sizes.writer_seconds))
    for figures in writers:
        metrics.append(Metric(f"{figures['writers']} writers: move p99", figures["p99_ms"],
                              "ms", 20.0 if figures["writers"] == 4 else None))

    pages = run_script("web_pages", "--dashboard-series", str(DASHBOARD_VIEWER_GAMES),
                       "--requests", str(sizes.dashboard_requests))
    (dashboard,) = [p for p in pages if p["page"] == "dashboard"]
    metrics += [
        Metric(f"dashboard p50 at {DASHBOARD_VIEWER_GAMES} games", dashboard["p50_ms"], "ms",
               50.0),
        Metric(f"dashboard CPU p50 at {DASHBOARD_VIEWER_GAMES} games",
               dashboard["cpu_p50_ms"], "ms"),
    ]

    espol = run_script("espol_bench", "--idle", str(sizes.idle_sessions), "--idle-only",
                       "--samples", str(sizes.round_trips))
    metrics.append(Metric(f"ESPOL: server RSS with {espol['idle_sessions']:,} idle sessions",
                          espol["idle_rss_mb"], "MB",
                          300.0 if sizes.idle_sessions == GOAL_IDLE_SESSIONS else None))

    logins = run_script("espol_logins", "--at-once", str(LOGINS_AT_ONCE),
                        "--rounds", str(sizes.login_rounds))
    metrics += [
        Metric(f"ESPOL: logins a second, {LOGINS_AT_ONCE} at once (Argon2id)",
               logins["logins_per_second"], "/s", LOGINS_PER_SECOND, at_least=True),
        Metric("ESPOL: a move's p50 during the logins / alone",
               logins["move_during_p50_ms"] / logins["move_alone_p50_ms"], "x"),
        Metric("ESPOL: a move's p99 during the logins", logins["move_during_p99_ms"], "ms"),
    ]

    pgn = run_script("pgn_download", "--games", str(sizes.pgn_games))
    (one,) = pgn["one"]["downloads"]
    metrics += [
        Metric(f"archive PGN download, {sizes.pgn_games:,} games", one["seconds"], "s"),
        Metric("server peak RSS during 8 downloads by 8 players",
               pgn["parallel"]["peak_rss_mb"], "MB"),
        Metric("another player's state p50 during 8 downloads",
               pgn["parallel"]["state_p50_ms"], "ms"),
    ]
    event = run_script("tournament_start", "--requests", str(sizes.tournament_requests))
    first, last = event["pages"][0], event["pages"][-1]
    metrics += [
        Metric(f"tournament: start {event['players']} players, {event['games']} games",
               event["start_seconds"], "s"),
        Metric(f"tournament page CPU p50, {last['finished']} / {first['finished']} "
               "games finished", last["cpu_p50_ms"] / first["cpu_p50_ms"], "ratio", 1.2),
        Metric(f"tournament page queries, {last['finished']} − {first['finished']} "
               "games finished", last["queries"] - first["queries"], "queries", 0),
    ]

    analysis = run_script("engine_analysis", "--moves", str(sizes.analysis_moves))
    metrics += [
        Metric("analysis: positions per second at the default limits",
               analysis["positions_per_second"], "pos/s"),
        Metric("analysis: a 40-move game (81 positions)", analysis["game_seconds"], "s"),
        Metric("move p99 while two analyses run / alone", analysis["p99_ratio"], "x", 2.0),
    ]

    streams = run_script("api_streams", "--events", str(sizes.api_event_streams),
                         "--boards", str(sizes.api_board_streams))
    held = f"{streams['event_streams']}+{streams['board_streams']} streams"
    metrics += [
        Metric(f"API: server RSS per 100 idle streams ({held} held)",
               streams["rss_per_100_streams_mb"], "MB"),
        Metric(f"API: server CPU while {held} idle", streams["idle_cpu_share"] * 100,
               "% core"),
        Metric("API: move → board stream p95, no idle stream", streams["alone"]["p95_ms"],
               "ms"),
        Metric(f"API: move → board stream p95, {held} idle", streams["loaded"]["p95_ms"],
               "ms"),
        Metric("API: streams left open once all are closed",
               streams["streams_left_open"], "streams", 0),
    ]
    return metrics


def table(metrics: list[Metric]) -> str:
    lines = [f"{'metric':62} {'value':>10} {'unit':6} {'target':>8}  met"]
    for m in metrics:
        target = "" if m.target is None else f"{m.target:g}"
        met = "" if m.met is None else ("yes" if m.met else "NO")
        lines.append(f"{m.name:62} {m.value:10.2f} {m.unit:6} {target:>8}  {met}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes, under 2 minutes")
    args = parser.parse_args()
    sizes = QUICK if args.quick else FULL
    started = time.monotonic()
    when = datetime.now(UTC).isoformat(timespec="seconds")
    about = machine()
    print(f"python -m bench{' --quick' if args.quick else ''}: {about['cpus']} CPUs, load "
          f"{' '.join(map(str, about['load_average_at_start']))}, CPU reference "
          f"{about['cpu_reference_us']} µs, {about['database']}")
    metrics = measure(sizes)
    about["load_average_at_end"] = [round(v, 2) for v in os.getloadavg()]
    about["seconds"] = round(time.monotonic() - started, 1)
    print()
    print(table(metrics))
    print(f"\n{about['seconds']:.0f} s; load average at the end "
          f"{' '.join(map(str, about['load_average_at_end']))}")
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "latest.json").write_text(json.dumps(
        {"machine": about, "when": when, "quick": args.quick,
         "metrics": [asdict(m) for m in metrics]},
        indent=2,
    ) + "\n")
    print(f"written: {(RESULTS / 'latest.json').relative_to(ROOT)}")


if __name__ == "__main__":
    main()
