"""The engine the analysis tests drive: Debian's Stockfish, at low limits.

Without it those tests skip with the reason; in CI (``CI`` set) they fail instead, since a
run that skipped them all would pass without the analysis ever being tested
(scripts/check_stockfish does the same before the suite)."""

from __future__ import annotations

import os
import sys
import textwrap
from collections.abc import Mapping
from pathlib import Path

import pytest

from games.engine import Limits
from tests.servers import in_ci

STOCKFISH = Path(os.environ.get("AJEDREZ_STOCKFISH", "/usr/games/stockfish"))

# Enough for a mate in one and a dead-drawn ending; a position takes a few milliseconds.
LOW_LIMITS = Limits(
    nodes=20_000, seconds=1.0, hash_mb=16, nice=0, idle_class=False, hang_seconds=3.0, attempts=3
)


def require_engine(path: Path, env: Mapping[str, str]) -> None:
    if path.exists() and os.access(path, os.X_OK):
        return
    reason = f"{path} is not installed: the analysis tests need Debian's stockfish"
    if in_ci(env):
        pytest.fail(f"{reason}, and CI is set: install it (apt-get install -y stockfish)",
                    pytrace=False)
    pytest.skip(reason)


def fake_engine(directory: Path, *, on_go: str) -> Path:
    """A UCI engine that answers the handshake, then on ``go`` does ``on_go``: ``"exit"``
    (it crashes) or ``"hang"`` (it never answers). For the failures Stockfish does not
    make on its own."""
    script = directory / f"fake-engine-{on_go}"
    script.write_text(
        f"#!{sys.executable}\n"
        + textwrap.dedent(
            f"""
            import sys, time
            for line in sys.stdin:
                word = line.split()[0] if line.split() else ""
                if word == "uci":
                    print("id name Fake", "uciok", sep="\\n", flush=True)
                elif word == "isready":
                    print("readyok", flush=True)
                elif word == "go":
                    if {on_go!r} == "exit":
                        sys.exit(3)
                    time.sleep(3600)
                elif word == "quit":
                    break
            """
        )
    )
    script.chmod(0o755)
    return script


def slow_first_start(directory: Path, engine: Path) -> Path:
    """A wrapper of ``engine`` whose first run never finishes starting (it says nothing,
    as an engine still loading on a loaded machine), its pid kept in
    ``directory/first-start/pid``; every later run is ``engine`` itself."""
    script = directory / "slow-first-start"
    marker = directory / "first-start"
    script.write_text(
        "#!/bin/sh\n"
        f"if mkdir '{marker}' 2>/dev/null; then\n"
        f"  echo $$ > '{marker}/pid'\n"
        "  exec sleep 3600\n"
        "fi\n"
        f"exec '{engine}'\n"
    )
    script.chmod(0o755)
    return script
