"""Rules read from the project's source.

The service layers are the only writers of game state: views, consumers, the admin, the
ESPOL gateway and any later gateway must call ``games.services`` (and
``ranking.services`` for the table it keeps), never write games, moves, challenges or
ranking rows themselves. The first check fails on any write call whose receiver names one
of those models or their instances.

No slow work inside a write transaction: the second check fails on a password hash, a
mail or a network call made inside ``transaction.atomic`` (a decorated function or a
``with`` block), directly or through a project function that does one.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ["accounts", "games", "ranking", "legacy_tcp", "ajedrez"]
# The modules allowed to write; a path ending in "/" names every module under it.
WRITERS = {
    "games/services/", "games/notifications.py", "ranking/services.py", "accounts/services.py",
}
WRITE_METHODS = {
    "save", "create", "bulk_create", "update", "bulk_update", "delete",
    "get_or_create", "update_or_create",
}
GAME_STATE = re.compile(
    r"\b(Game|Move|Challenge|PlayerRecord)\b|\b(game|move|challenge|record)s?\b"
)


def is_writer(relative: str) -> bool:
    """Whether the module at ``relative`` (``games/services/moves.py``) may write."""
    return any(
        relative.startswith(writer) if writer.endswith("/") else relative == writer
        for writer in WRITERS
    )


def _sources() -> list[Path]:
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            if "/migrations/" not in relative and not is_writer(relative):
                found.append(path)
    return found


def test_every_module_of_the_service_package_may_write_and_nothing_else():
    services = sorted((ROOT / "games" / "services").glob("*.py"))
    assert len(services) > 1
    assert all(is_writer(path.relative_to(ROOT).as_posix()) for path in services)
    # The package's name alone opens no door to its neighbours.
    for neighbour in ("games/services.py", "games/services_extra.py", "games/selectors.py"):
        assert not is_writer(neighbour)
    checked = {path.relative_to(ROOT).as_posix() for path in _sources()}
    assert "games/selectors.py" in checked and "games/views.py" in checked


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

# Each app may import only the apps below it (docs/architecture.json's "apps", lowest
# first; the core, ``ajedrez.core``, is below every app though it sits in ``ajedrez/``).
LAYERS = json.loads((ROOT / "docs" / "architecture.json").read_text())["apps"]
CORE = "ajedrez.core"


def app_of(module: str) -> str:
    """The layer ``module`` belongs to: its top package, or the core."""
    return CORE if module == CORE or module.startswith(CORE + ".") else module.split(".")[0]


def module_name(path: Path) -> str:
    """``games/state.py`` → ``games.state``; ``games/__init__.py`` → ``games``."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_modules(source: str, module: str = "") -> list[tuple[int, str]]:
    """Every module ``source`` imports, at any depth (function-level imports included).

    Relative imports (``from . import views``) are resolved against ``module``, the
    dotted name of the module ``source`` is, so they are judged as the absolute ones.
    """
    package = module.split(".")[:-1]
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                target = ".".join([*base, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            if not target:
                continue
            found.append((node.lineno, target))
            # ``from games import views`` imports the module games.views.
            found += [(node.lineno, f"{target}.{alias.name}") for alias in node.names]
    return found


def _is_routes(path: Path) -> bool:
    return path.name == "urls.py" or path.name.endswith("_urls.py")


def _app_sources() -> list[tuple[str, Path]]:
    found = []
    for package in LAYERS:
        for path in sorted((ROOT / Path(*package.split("."))).rglob("*.py")):
            if "/migrations/" not in path.as_posix() and app_of(module_name(path)) == package:
                found.append((package, path))
    return found


def routed_modules() -> frozenset[str]:
    """The project's modules that a URL configuration imports: the pages' front doors
    (``games.views``, ``games.lobby``, …), whatever their file is called."""
    found = set()
    for _app, path in _app_sources():
        if _is_routes(path):
            for _lineno, imported in imported_modules(path.read_text(), module_name(path)):
                if app_of(imported) in LAYERS and (
                    ROOT / Path(*imported.split("."))
                ).with_suffix(".py").exists():
                    found.add(imported)
    return frozenset(found)


def imports_against_the_layers(
    app: str,
    source: str,
    *,
    routes: bool = False,
    module: str = "",
    views: frozenset[str] = frozenset(),
) -> list[str]:
    """The imports in a module of ``app`` that reach an app above it, or a views module.

    Views are the pages' front door: they call the rest and nothing calls them, but the
    URL configuration (``routes``) that points at them. A views module is one named
    ``views`` or one of ``views`` (the modules the URL configurations route to).
    """
    allowed_below = set(LAYERS[: LAYERS.index(app)])
    problems = []
    for lineno, imported in imported_modules(source, module or app):
        top = app_of(imported)
        if top not in LAYERS:
            continue
        if top != app and top not in allowed_below:
            problems.append(f"line {lineno}: {app} imports {imported} (an app above it)")
        is_views = (
            imported.endswith(".views") or ".views." in imported or imported in views
        )
        if is_views and not routes:
            problems.append(f"line {lineno}: imports {imported} (nothing imports views)")
    return problems


@pytest.fixture(scope="module")
def view_modules() -> frozenset[str]:
    return routed_modules()


@pytest.mark.parametrize(
    ("app", "path"), _app_sources(), ids=lambda v: v if isinstance(v, str) else v.name
)
def test_apps_import_only_the_apps_below_them(app, path, view_modules):
    assert imports_against_the_layers(
        app,
        path.read_text(),
        routes=_is_routes(path),
        module=module_name(path),
        views=view_modules,
    ) == []


def test_the_pages_routed_by_the_url_configurations_count_as_views(view_modules):
    # games.lobby holds pages without being called views: it is one all the same.
    assert {"games.views", "games.lobby", "accounts.views", "ranking.views"} <= view_modules
    assert "games.state" not in view_modules


@pytest.mark.parametrize(
    ("app", "line"),
    [
        ("accounts", "from games import services"),
        ("ajedrez.core", "from accounts import errors"),
        ("ajedrez.core", "from ajedrez import settings"),
        ("accounts", "from ranking.models import PlayerRecord"),
        ("ranking", "import games.models"),
        ("games", "from legacy_tcp.espol import codec"),
        ("games", "from ajedrez.settings import BASE_DIR"),
        ("legacy_tcp", "def f():\n    from ajedrez import demo"),
        ("games", "from games.views import snapshot"),
        ("legacy_tcp", "from games import views"),
    ],
)
def test_the_layer_check_sees_an_upward_import(app, line):
    # The guard above must be able to fail.
    assert imports_against_the_layers(app, line) != []


@pytest.mark.parametrize(
    ("module", "line"),
    [
        ("games.state", "from . import views"),
        ("games.consumers", "from .views import snapshot"),
        ("ranking.selectors", "from ..games import services"),
        ("accounts.selectors", "from ..games.errors import GameNotFound"),
        ("games.consumers", "from games.lobby import dashboard_context"),
        ("games.consumers", "from games import lobby"),
    ],
)
def test_the_layer_check_sees_relative_imports_and_views_by_any_name(module, line):
    app = module.split(".")[0]
    problems = imports_against_the_layers(
        app, line, module=module, views=frozenset({"games.lobby"})
    )
    assert problems != []


def test_the_layer_check_allows_imports_downward():
    assert imports_against_the_layers("games", "from accounts import selectors") == []
    assert imports_against_the_layers("legacy_tcp", "from games import services") == []
    assert imports_against_the_layers("games", "from games import views", routes=True) == []
    assert imports_against_the_layers("games", "from django.contrib.auth import views") == []
    assert imports_against_the_layers("games", "from . import rules", module="games.state") == []
    assert imports_against_the_layers(
        "games", "from games import lobby", routes=True, views=frozenset({"games.lobby"})
    ) == []


# --------------------------------------------------------------------------- gateways

# The TCP gateways translate: the rules are the service layer's, what a client sees of a
# game is the read model's (docs/architecture.md). Their transport and protocol folders
# import neither games.rules nor any models module.
GATEWAY_FOLDERS = ["transport", "espol", "distribuido", "chessirc"]


def gateway_imports_of_rules_or_models(source: str, module: str = "") -> list[str]:
    return [
        f"line {lineno}: imports {imported}"
        for lineno, imported in imported_modules(source, module)
        if imported == "games.rules"
        or imported.startswith("games.rules.")
        or "models" in imported.split(".")
    ]


@pytest.mark.parametrize(
    "path",
    sorted(
        path for folder in GATEWAY_FOLDERS for path in (ROOT / "legacy_tcp" / folder).rglob("*.py")
    ),
    ids=lambda path: path.relative_to(ROOT / "legacy_tcp").as_posix(),
)
def test_gateways_import_neither_the_rules_nor_the_models(path):
    assert gateway_imports_of_rules_or_models(path.read_text(), module_name(path)) == []


@pytest.mark.parametrize(
    "line",
    [
        "from games import rules",
        "from games.rules import colour_to_move",
        "from games.models import Game",
        "from legacy_tcp.models import Gateway",
        "def f():\n    import games.models",
    ],
)
def test_the_gateway_check_sees_rules_and_models(line):
    # The guard above must be able to fail.
    assert gateway_imports_of_rules_or_models(line) != []


# --------------------------------------------------------------------------- slow work

# Slow work must not run inside a write transaction: on SQLite a transaction holds the
# database's one write lock from its start (IMMEDIATE), so a password hash (PBKDF2, a
# quarter of a second), a mail or a network call inside one makes every move wait.
SLOW_CALLS = {
    # authenticate: a hash, and django-axes' writes of the failed-login counts.
    "make_password", "check_password", "set_password", "authenticate",
    "send_mail", "send_mass_mail", "mail_admins", "mail_managers", "send_messages",
    "urlopen", "create_connection", "SMTP", "SMTP_SSL",
}
NETWORK_MODULES = {"requests", "httpx", "urllib", "smtplib", "socket"}
MAIL_RECEIVER = re.compile(r"mail|message|msg", re.IGNORECASE)


def _is_atomic(node: ast.expr) -> bool:
    """``transaction.atomic``, ``atomic``, or either called (``atomic(using=...)``)."""
    if isinstance(node, ast.Call):
        node = node.func
    return (isinstance(node, ast.Attribute) and node.attr == "atomic") or (
        isinstance(node, ast.Name) and node.id == "atomic"
    )


def _called_name(call: ast.Call) -> str | None:
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return None


def _is_slow(call: ast.Call, source: str, slow_functions: set[str]) -> bool:
    name = _called_name(call)
    if name in SLOW_CALLS or name in slow_functions:
        return True
    func = call.func
    if isinstance(func, ast.Attribute):
        root = func.value
        while isinstance(root, ast.Attribute):
            root = root.value
        if isinstance(root, ast.Name) and root.id in NETWORK_MODULES:
            return True
        if func.attr == "send":
            # EmailMessage(...).send(), message.send(): a mail goes out.
            receiver = ast.get_source_segment(source, func.value) or ""
            return bool(MAIL_RECEIVER.search(receiver))
    return False


def _calls_run_here(body: list[ast.stmt]) -> list[ast.Call]:
    """The calls that run when ``body`` runs: not those of functions or lambdas it defines."""
    found: list[ast.Call] = []
    pending: list[ast.AST] = list(body)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
            continue
        if isinstance(node, ast.Call):
            found.append(node)
        pending.extend(ast.iter_child_nodes(node))
    return found


def _atomic_bodies(tree: ast.AST) -> list[tuple[str, list[ast.stmt]]]:
    """Each code block that runs inside ``transaction.atomic``: decorated functions, ``with``."""
    bodies = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and any(
            _is_atomic(d) for d in node.decorator_list
        ):
            bodies.append((f"{node.name}()", node.body))
        elif isinstance(node, ast.With | ast.AsyncWith) and any(
            _is_atomic(item.context_expr) for item in node.items
        ):
            bodies.append((f"the atomic block at line {node.lineno}", node.body))
    return bodies


def functions_doing_slow_work(sources: list[str]) -> set[str]:
    """Names of the module-level functions in ``sources`` that hash, mail or call the
    network, directly or through another such function.

    Calls are matched by name (``accounts.request_subscription(…)`` is a call of
    ``request_subscription``); methods are left out, as their generic names (``send``,
    ``save``) would match unrelated calls.
    """
    functions = [
        (node, source)
        for source in sources
        for node in ast.parse(source).body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    ]
    slow: set[str] = set()
    while True:
        grown = {
            node.name
            for node, source in functions
            if node.name not in slow
            and any(_is_slow(call, source, slow) for call in _calls_run_here(node.body))
        }
        if not grown:
            return slow
        slow |= grown


def slow_work_in_transactions(source: str, slow_functions: set[str] = frozenset()) -> list[str]:
    """The slow calls in ``source`` that run inside a transaction, as ``where: what``."""
    hits = []
    for where, body in _atomic_bodies(ast.parse(source)):
        for call in _calls_run_here(body):
            if _is_slow(call, source, set(slow_functions)):
                called = ast.get_source_segment(source, call.func) or "?"
                hits.append(f"{where}, line {call.lineno}: {called}(…)")
    return sorted(hits)


def _project_sources() -> list[Path]:
    return [
        path
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
        if "/migrations/" not in path.relative_to(ROOT).as_posix()
    ]


@pytest.fixture(scope="module")
def slow_functions() -> set[str]:
    return functions_doing_slow_work([path.read_text() for path in _project_sources()])


@pytest.mark.parametrize(
    "path", _project_sources(), ids=lambda p: p.relative_to(ROOT).as_posix()
)
def test_no_slow_work_inside_a_transaction(path, slow_functions):
    assert slow_work_in_transactions(path.read_text(), slow_functions) == []


def test_the_project_functions_that_hash_are_known_as_slow(slow_functions):
    # The guard above follows calls to these: it would be vacuous if it found none.
    assert {"request_subscription", "unsubscribe", "check_login", "password"} <= slow_functions


BAD_SNIPPETS = {
    "decorated": "@transaction.atomic\ndef f(p):\n    return make_password(p)\n",
    "decorated-with-args": "@transaction.atomic(using='x')\ndef f(u, p):\n    u.set_password(p)\n",
    "with-block": "def f(u, p):\n    with transaction.atomic():\n        u.check_password(p)\n",
    "authenticate": (
        "def f(r, n, p):\n    with transaction.atomic():\n        authenticate(r, n, p)\n"
    ),
    "bare-atomic": "def f(p):\n    with atomic():\n        hashers.make_password(p)\n",
    "nested-with": (
        "def f(p):\n    with transaction.atomic():\n        if p:\n"
        "            with lock:\n                make_password(p)\n"
    ),
    "send-mail": "@transaction.atomic\ndef f():\n    send_mail('s', 'b', 'a', ['b'])\n",
    "mass-mail": "def f(m):\n    with transaction.atomic():\n        send_mass_mail(m)\n",
    "email-message": "def f():\n    with transaction.atomic():\n        EmailMessage('s').send()\n",
    "message-send": "def f(message):\n    with transaction.atomic():\n        message.send()\n",
    "network": "def f(u):\n    with transaction.atomic():\n        requests.post(u)\n",
    "urlopen": "def f(u):\n    with transaction.atomic():\n        urllib.request.urlopen(u)\n",
}


@pytest.mark.parametrize("snippet", BAD_SNIPPETS.values(), ids=BAD_SNIPPETS.keys())
def test_the_slow_work_check_sees_a_slow_call_in_a_transaction(snippet):
    # The guard above must be able to fail.
    assert len(slow_work_in_transactions(snippet)) == 1


def test_the_slow_work_check_follows_calls_to_slow_functions():
    sources = [
        "def request(p):\n    return make_password(p)\n",
        "def seed(p):\n    request(p)\n",
        "@transaction.atomic\ndef seed_all(p):\n    seed(p)\n",
    ]
    slow = functions_doing_slow_work(sources)
    assert {"request", "seed", "seed_all"} <= slow
    assert slow_work_in_transactions(sources[2], slow) == ["seed_all(), line 3: seed(…)"]


GOOD_SNIPPETS = {
    "hash-first": (
        "def f(p):\n    h = make_password(p)\n    with transaction.atomic():\n"
        "        save(h)\n"
    ),
    "after-commit": (
        "def f(m):\n    with transaction.atomic():\n"
        "        transaction.on_commit(lambda: send_mail(m))\n"
    ),
    "nested-def": (
        "@transaction.atomic\ndef f(p):\n    def later():\n        return make_password(p)\n"
        "    return later\n"
    ),
    "other-send": "def f(layer):\n    with transaction.atomic():\n        layer.send('x')\n",
    "not-atomic": "def f(p):\n    with open(p):\n        make_password(p)\n",
}


@pytest.mark.parametrize("snippet", GOOD_SNIPPETS.values(), ids=GOOD_SNIPPETS.keys())
def test_the_slow_work_check_leaves_other_code_alone(snippet):
    assert slow_work_in_transactions(snippet) == []


# --------------------------------------------------------------------------- import circles


def _module_of(name: str, modules: set[str]) -> str | None:
    """The app module ``name`` reaches: itself, or the module holding it
    (``games.state.game_state`` → ``games.state``); ``None`` outside ``modules``."""
    parts = name.split(".")
    while parts:
        if ".".join(parts) in modules:
            return ".".join(parts)
        parts.pop()
    return None


def import_graph(sources: dict[str, str]) -> dict[str, set[str]]:
    """``{module: the modules of the same app it imports}``, from ``{module: source}``,
    function-level imports included (they close a circle as surely, only later)."""
    modules = set(sources)
    graph: dict[str, set[str]] = {}
    for module, source in sources.items():
        app = module.split(".")[0]
        targets = set()
        for _lineno, imported in imported_modules(source, module):
            target = _module_of(imported, modules)
            # A module's own package (its ``__init__``) is loaded before it: not an edge.
            if target and target != module and target != app and target.startswith(app):
                targets.add(target)
        graph[module] = targets
    return graph


def import_circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Each circle of ``graph``: one per strongly connected group of modules (Tarjan),
    written as a path through it that returns to its start, shortest first."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.add(member)
                if member == node:
                    break
            if len(group) > 1 or node in graph.get(node, ()):
                groups.append(group)

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted((_circle_through(group, graph) for group in groups), key=len)


def _circle_through(group: set[str], graph: dict[str, set[str]]) -> list[str]:
    """A shortest path from the group's first module back to itself, inside the group."""
    start = min(group)
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for target in sorted(graph[node] & group):
                if target == start:
                    return [*paths[node], start]
                if target not in paths:
                    paths[target] = [*paths[node], target]
                    following.append(target)
        frontier = following
    return [start]


def _app_module_sources() -> dict[str, str]:
    return {module_name(path): path.read_text() for _app, path in _app_sources()}


def test_no_import_circle_inside_an_app():
    circles = import_circles(import_graph(_app_module_sources()))
    assert not circles, "import circles: " + "; ".join(" → ".join(c) for c in circles)


def test_the_circle_check_sees_a_circle_through_a_function_level_import():
    sources = {
        "games": "",
        "games.events": "from games import state\n",
        "games.state": "from games.selectors import game\n",
        "games.selectors": "def game():\n    from games import events\n",
        "games.rules": "",
    }
    assert import_circles(import_graph(sources)) == [
        ["games.events", "games.state", "games.selectors", "games.events"]
    ]


def test_the_circle_check_leaves_imports_downward_alone():
    sources = {
        "games": "",
        "games.views": "from games import state, services\n",
        "games.services": "from games import rules, state\n",
        "games.state": "import games.rules\nfrom games.rules import WHITE\n",
        "games.rules": "import chess\n",
        "ranking.services": "from games import rules\n",
    }
    assert import_circles(import_graph(sources)) == []
