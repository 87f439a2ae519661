"""Data migrations fill new fields of the games already stored."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("games", "0003_game_last_move_at")]
AFTER = [("games", "0004_game_last_move_san")]


def migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


def test_last_move_san_is_filled_from_the_stored_moves():
    apps = migrate(BEFORE)
    User = apps.get_model("auth", "User")
    Game = apps.get_model("games", "Game")
    Move = apps.get_model("games", "Move")
    white = User.objects.create(username="white")
    black = User.objects.create(username="black")
    played = Game.objects.create(white=white, black=black, next_move_number=3)
    Move.objects.create(game=played, number=1, uci="e2e4", san="e4", fen_after="-")
    Move.objects.create(game=played, number=2, uci="g8f6", san="Nf6", fen_after="-")
    fresh = Game.objects.create(white=black, black=white, next_move_number=1, status="finished")
    try:
        apps = migrate(AFTER)
        Game = apps.get_model("games", "Game")
        assert Game.objects.get(pk=played.pk).last_move_san == "Nf6"
        assert Game.objects.get(pk=fresh.pk).last_move_san == ""
    finally:
        migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())
