"""The ASGI entry point as a server process loads it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_server_process_freezes_what_it_loaded_and_collects_garbage_rarely():
    # A fresh interpreter, as Daphne's: this test process has imported the module already.
    code = "import gc, ajedrez.asgi; print(gc.get_threshold()[0], gc.get_freeze_count())"
    clean = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**clean, "SECRET_KEY": "test-only"},
        capture_output=True,
        text=True,
        check=True,
    )
    threshold, frozen = map(int, result.stdout.split())
    assert threshold == 50_000
    # Django, the project and its libraries: far more than a handful of objects.
    assert frozen > 10_000
