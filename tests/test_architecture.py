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


# --------------------------------------------------------------------------- app layers

# Each app may import only the apps below it (docs/architecture.md, "Apps and layers").
LAYERS = ["accounts", "ranking", "games", "legacy_tcp", "ajedrez"]


def imported_modules(source: str) -> list[tuple[int, str]]:
    """Every module ``source`` imports, at any depth (function-level imports included)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
            # ``from games import views`` imports the module games.views.
            found += [(node.lineno, f"{node.module}.{alias.name}") for alias in node.names]
    return found


def imports_against_the_layers(app: str, source: str, *, routes: bool = False) -> list[str]:
    """The imports in a module of ``app`` that reach an app above it, or a views module.

    Views are the pages' front door: they call the rest and nothing calls them, but the
    URL configuration (``routes``) that points at them.
    """
    allowed_below = set(LAYERS[: LAYERS.index(app)])
    problems = []
    for lineno, module in imported_modules(source):
        top = module.split(".")[0]
        if top not in LAYERS:
            continue
        if top != app and top not in allowed_below:
            problems.append(f"line {lineno}: {app} imports {module} (an app above it)")
        is_views = module.endswith(".views") or ".views." in module
        if is_views and not routes:
            problems.append(f"line {lineno}: imports {module} (nothing imports views)")
    return problems


def _app_sources() -> list[tuple[str, Path]]:
    return [
        (package, path)
        for package in LAYERS
        for path in sorted((ROOT / package).rglob("*.py"))
        if "/migrations/" not in path.as_posix()
    ]


@pytest.mark.parametrize(
    ("app", "path"), _app_sources(), ids=lambda v: v if isinstance(v, str) else v.name
)
def test_apps_import_only_the_apps_below_them(app, path):
    routes = path.name == "urls.py" or path.name.endswith("_urls.py")
    assert imports_against_the_layers(app, path.read_text(), routes=routes) == []


@pytest.mark.parametrize(
    ("app", "line"),
    [
        ("accounts", "from games import services"),
        ("accounts", "from ranking.models import PlayerRecord"),
        ("ranking", "import games.models"),
        ("games", "from legacy_tcp.protocols import espol"),
        ("games", "from ajedrez.settings import BASE_DIR"),
        ("legacy_tcp", "def f():\n    from ajedrez import demo"),
        ("games", "from games.views import snapshot"),
        ("legacy_tcp", "from games import views"),
    ],
)
def test_the_layer_check_sees_an_upward_import(app, line):
    # The guard above must be able to fail.
    assert imports_against_the_layers(app, line) != []


def test_the_layer_check_allows_imports_downward():
    assert imports_against_the_layers("games", "from accounts import selectors") == []
    assert imports_against_the_layers("legacy_tcp", "from games import services") == []
    assert imports_against_the_layers("games", "from games import views", routes=True) == []
    assert imports_against_the_layers("games", "from django.contrib.auth import views") == []
