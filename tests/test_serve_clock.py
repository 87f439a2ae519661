"""``manage.py serve`` runs the clock sweep: a game whose time ran out ends by itself,
in a real server process, without anyone opening it."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time

import pytest

from tests.test_serve import ROOT, served  # noqa: F401  (the fixture)

CREATE_OVERDUE_GAME = """
import datetime as dt
from django.contrib.auth import get_user_model
from django.utils import timezone
from games import services
from games.models import Game
User = get_user_model()
white = User.objects.create_user("clockwhite", password="x")
black = User.objects.create_user("clockblack", password="x")
made = services.challenge(challenger=black, challenged=white, days_per_move=1)
game = services.accept_challenge(challenge_id=made.pk, player=white, colour="white")
# Set-up only: the deadline has passed while nothing was running.
Game.objects.filter(pk=game.pk).update(deadline=timezone.now() - dt.timedelta(seconds=1))
print(game.pk)
"""


@pytest.fixture
def quick_sweep(monkeypatch):
    monkeypatch.setenv("CLOCK_SWEEP_SECONDS", "0.2")


def test_serve_ends_a_game_whose_time_ran_out(quick_sweep, served):  # noqa: F811
    process, _web, _espol, output, tmp_path = served
    assert "ESPOL gateway:" in output, output
    database = tmp_path / "serve.sqlite3"
    made = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", CREATE_OVERDUE_GAME],
        cwd=ROOT,
        env={**os.environ, "DATABASE_URL": f"sqlite:///{database}",
             "SECRET_KEY": "test-only-secret"},
        capture_output=True,
        text=True,
        check=True,
    )
    game_id = int(made.stdout.strip().splitlines()[-1])
    # Waiting for another process to act, not for time to pass: bounded, checked often.
    termination = ""
    give_up = time.monotonic() + 30
    while time.monotonic() < give_up and process.poll() is None:
        with sqlite3.connect(database, timeout=20) as db:
            row = db.execute(
                "SELECT status, result, termination FROM games_game WHERE id = ?", (game_id,)
            ).fetchone()
        termination = row[2]
        if row[0] == "finished":
            break
        time.sleep(0.1)
    # No move was made: the game is aborted, without a result.
    assert termination == "aborted", (row, output)
    assert row[1] == "*"
