"""Migration 0005: games stored with ESPOL's request flags keep their meaning."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("games", "0004_game_last_move_san")]
AFTER = [("games", "0005_draw_offer_and_ended_by")]


def migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


def test_request_flags_become_the_offer_and_who_ended_the_game(alice, bob, carol):
    apps = migrate(BEFORE)
    Game = apps.get_model("games", "Game")
    made = {}
    pairs = iter([(alice, bob), (bob, alice), (alice, carol), (carol, alice), (bob, carol)])

    def stored(name, status="active", termination="", result="*", white=0, black=0):
        w, b = next(pairs)
        made[name] = Game.objects.create(
            white_id=w.pk, black_id=b.pk, status=status, termination=termination,
            result=result, white_request=white, black_request=black,
        ).pk

    stored("offer pending", black=1)
    stored("agreed", "finished", "agreement", "1/2-1/2", white=1, black=2)
    stored("resigned", "finished", "resignation", "0-1", white=3)
    stored("abandoned", "finished", "abandonment", "1-0", black=3)
    stored("mate", "finished", "checkmate", "1-0")
    try:
        apps = migrate(AFTER)
        Game = apps.get_model("games", "Game")
        found = {
            name: tuple(Game.objects.filter(pk=pk).values_list("draw_offer_by", "ended_by")[0])
            for name, pk in made.items()
        }
        assert found == {
            "offer pending": ("black", ""),
            "agreed": ("", "black"),
            "resigned": ("", "white"),
            "abandoned": ("", "black"),
            "mate": ("", ""),
        }
        # And back: the reverse migration restores the flags it started from.
        apps = migrate(BEFORE)
        Game = apps.get_model("games", "Game")
        flags = dict(
            (pk, (white, black))
            for pk, white, black in Game.objects.values_list(
                "pk", "white_request", "black_request"
            )
        )
        assert [flags[made[name]] for name in made] == [(0, 1), (1, 2), (3, 0), (0, 3), (0, 0)]
    finally:
        migrate(executor_leaf())


def executor_leaf():
    executor = MigrationExecutor(connection)
    return executor.loader.graph.leaf_nodes()
