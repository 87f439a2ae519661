"""The service layers are the only writers of game state.

Views, consumers, the admin, the ESPOL gateway and any later gateway must call
``games.services`` (and ``ranking.services`` for the table it keeps), never write games,
moves, challenges or ranking rows themselves. This reads the project's source and fails
on any write call whose receiver names one of those models or their instances.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ["accounts", "games", "ranking", "legacy_tcp", "ajedrez"]
WRITERS = {"games/services.py", "ranking/services.py", "accounts/services.py"}
WRITE_METHODS = {
    "save", "create", "bulk_create", "update", "bulk_update", "delete",
    "get_or_create", "update_or_create",
}
GAME_STATE = re.compile(
    r"\b(Game|Move|Challenge|PlayerRecord)\b|\b(game|move|challenge|record)s?\b"
)


def _sources() -> list[Path]:
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            if "/migrations/" not in relative and relative not in WRITERS:
                found.append(path)
    return found


def writes_to_game_state(source: str) -> list[str]:
    """The write calls in ``source`` whose receiver is a game-state model or instance."""
    hits = []
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in WRITE_METHODS
        ):
            receiver = ast.get_source_segment(source, node.func.value) or ""
            if GAME_STATE.search(receiver):
                hits.append(f"line {node.lineno}: {receiver}.{node.func.attr}(…)")
    return hits


@pytest.mark.parametrize(
    "path", _sources(), ids=lambda p: p.relative_to(ROOT).as_posix()
)
def test_only_the_services_write_game_state(path):
    assert writes_to_game_state(path.read_text()) == []


@pytest.mark.parametrize(
    "line",
    [
        "game.save()",
        "Game.objects.filter(pk=1).update(status='finished')",
        "Move.objects.create(game=g, number=1)",
        "self.challenge.delete()",
        "PlayerRecord.objects.filter(player=p).update(wins=1)",
        "games.delete()",
    ],
)
def test_the_check_sees_a_direct_write(line):
    # The guard above must be able to fail.
    assert writes_to_game_state(line) != []


def test_the_check_leaves_other_writes_alone():
    assert writes_to_game_state("form.save()\ndata.update(a=1)\nadmin.save()") == []
