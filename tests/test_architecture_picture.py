"""The picture is the test: docs/architecture.json names the parts of the project, the
imports allowed between them and the rules no import may break, and the code is held to
it here, from the source (every import, function-level and relative ones included).

A module in no part, an import between two parts that the picture has no arrow for, an
arrow no import uses (the picture would lie), a broken rule, or a picture in
docs/architecture.md that is not the one the file describes: each fails.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest

from tests.test_architecture import imported_modules, module_name

ROOT = Path(__file__).resolve().parent.parent
PICTURE = ROOT / "docs" / "architecture.json"
APPS = ["accounts", "games", "ranking", "legacy_tcp", "ajedrez"]


@cache
def picture() -> dict:
    return json.loads(PICTURE.read_text())


def _prefixes(parts: dict) -> list[tuple[str, str]]:
    pairs = [(module, name) for name, part in parts.items() for module in part["modules"]]
    return sorted(pairs, key=lambda pair: -len(pair[0]))


def part_of(module: str, parts: dict | None = None) -> str | None:
    """The part ``module`` belongs to: the one naming its longest prefix."""
    for prefix, name in _prefixes(parts if parts is not None else picture()["parts"]):
        if module == prefix or module.startswith(prefix + "."):
            return name
    return None


def project_modules() -> dict[str, Path]:
    found = {}
    for app in APPS:
        for path in sorted((ROOT / app).rglob("*.py")):
            if "/migrations/" not in path.as_posix():
                found[module_name(path)] = path
    return found


def _is_package_root(module: str) -> bool:
    # ``from games import rules`` names the package ``games`` before its module: the
    # arrow is to ``games.rules``, not to the package's empty ``__init__``.
    return module in APPS


def imports_between_parts(
    sources: dict[str, str], parts: dict
) -> dict[tuple[str, str], list[str]]:
    """(from part, to part) → the imports that make that arrow (``module → imported``)."""
    arrows: dict[tuple[str, str], list[str]] = {}
    for module, source in sources.items():
        here = part_of(module, parts)
        for lineno, imported in imported_modules(source, module):
            if _is_package_root(imported):
                continue
            there = part_of(imported, parts)
            if there is None or there == here or here is None:
                continue
            arrows.setdefault((here, there), []).append(f"{module}:{lineno} → {imported}")
    return arrows


@cache
def code_arrows() -> dict[tuple[str, str], list[str]]:
    sources = {module: path.read_text() for module, path in project_modules().items()}
    return imports_between_parts(sources, picture()["parts"])


def _within(module: str, prefixes: list[str]) -> bool:
    return any(module == prefix or module.startswith(prefix + ".") for prefix in prefixes)


def broken_rules(sources: dict[str, str], drawn: dict) -> list[str]:
    """Each import that breaks a ``never`` or an ``only`` rule of ``drawn``."""
    problems = []
    for module, source in sources.items():
        here = part_of(module, drawn["parts"])
        for lineno, imported in imported_modules(source, module):
            for rule in drawn["never"]:
                if here not in rule["from"]:
                    continue
                if _within(imported, rule.get("except", [])):
                    continue
                if _within(imported, rule["to"]):
                    problems.append(f"{module}:{lineno} imports {imported}: {rule['why']}")
            for rule in drawn["only"]:
                top = imported.split(".")[0]
                allowed = any(
                    module == owner or module.startswith(owner + ".") or here == owner
                    for owner in rule["from"]
                )
                if top == rule["module"] and not allowed:
                    problems.append(f"{module}:{lineno} imports {imported}: {rule['why']}")
    return problems


# --------------------------------------------------------------------------- the code


def test_every_module_is_in_a_part_of_the_picture():
    unplaced = [
        module for module, path in project_modules().items()
        if part_of(module) is None and not (_is_package_root(module) and not path.read_text())
    ]
    assert unplaced == [], "add them to a part of docs/architecture.json"


def test_every_import_between_parts_is_an_arrow_of_the_picture():
    drawn = {tuple(arrow) for arrow in picture()["arrows"]}
    missing = {
        f"{here} → {there}": imports[:3]
        for (here, there), imports in code_arrows().items()
        if (here, there) not in drawn
    }
    assert missing == {}, "an import the picture does not allow (or draw it)"


def test_every_arrow_of_the_picture_is_an_import_of_the_code():
    unused = [arrow for arrow in picture()["arrows"] if tuple(arrow) not in code_arrows()]
    assert unused == [], "arrows no import makes: take them out of docs/architecture.json"


def test_no_rule_of_the_picture_is_broken():
    sources = {module: path.read_text() for module, path in project_modules().items()}
    assert broken_rules(sources, picture()) == []


def test_the_apps_depend_one_way():
    # Each arrow goes to a part of the same app or of an app below it.
    order = picture()["apps"]

    def app(part: str) -> str:
        modules = picture()["parts"][part]["modules"]
        return "ajedrez.core" if modules[0].startswith("ajedrez.core") else modules[0].split(".")[0]

    upward = [
        arrow for arrow in picture()["arrows"]
        if order.index(app(arrow[1])) > order.index(app(arrow[0]))
    ]
    assert upward == []


def test_the_picture_in_the_architecture_notes_is_this_one():
    notes = (ROOT / "docs" / "architecture.md").read_text()
    assert mermaid(picture()) in notes, (
        "docs/architecture.md must hold the picture drawn from docs/architecture.json: "
        "paste the output of `python -m tests.test_architecture_picture`"
    )


def mermaid(drawn: dict) -> str:
    """The picture as a Mermaid flowchart, parts grouped by app."""
    lines = ["```mermaid", "flowchart TD"]
    by_app: dict[str, list[str]] = {}
    for name, part in drawn["parts"].items():
        module = part["modules"][0]
        app = "ajedrez.core" if module.startswith("ajedrez.core") else module.split(".")[0]
        by_app.setdefault(app, []).append(name)
    for app in drawn["apps"]:
        lines.append(f"  subgraph {app.replace('.', '_')}[{app}]")
        lines += [f"    {name.replace('.', '_')}[{name}]" for name in by_app.get(app, [])]
        lines.append("  end")
    for here, there in drawn["arrows"]:
        lines.append(f"  {here.replace('.', '_')} --> {there.replace('.', '_')}")
    lines.append("```")
    return "\n".join(lines)


# --------------------------------------------------------------------------- the checks can fail

TOY = {
    "apps": ["games", "legacy_tcp"],
    "parts": {
        "games.rules": {"modules": ["games.rules"]},
        "games.models": {"modules": ["games.models"]},
        "games.services": {"modules": ["games.services"]},
        "games.read_model": {"modules": ["games.state"]},
        "legacy_tcp.espol": {"modules": ["legacy_tcp.espol"]},
    },
    "never": [
        {"from": ["legacy_tcp.espol"], "to": ["games.rules", "games.models"], "why": "translate"},
        {"from": ["games.read_model"], "to": ["games.services"], "why": "reads never write"},
        {"from": ["games.rules"], "to": ["django.db"], "why": "pure"},
    ],
    "only": [{"module": "chess", "from": ["games.rules"], "why": "one module"}],
}


@pytest.mark.parametrize(
    ("module", "line"),
    [
        ("legacy_tcp.espol.handlers", "from games import rules"),
        ("legacy_tcp.espol.handlers", "def f():\n    from games.models import Game"),
        ("games.state.game", "from games.services import expire_game"),
        ("games.state.game", "import chess"),
        ("games.state.game", "from ..services import expire_game"),
        ("games.rules", "from django.db import models"),
    ],
)
def test_the_rules_check_sees_a_broken_rule(module, line):
    assert broken_rules({module: line}, TOY) != []


def test_the_rules_check_leaves_allowed_imports_alone():
    sources = {
        "legacy_tcp.espol.handlers": "from games import services, state",
        "games.state.game": "from games import rules",
        "games.rules": "import chess",
    }
    assert broken_rules(sources, TOY) == []


def test_an_import_between_parts_is_seen_as_an_arrow():
    arrows = imports_between_parts(
        {"legacy_tcp.espol.handlers": "from games import services\nimport games.state"},
        TOY["parts"],
    )
    assert set(arrows) == {
        ("legacy_tcp.espol", "games.services"), ("legacy_tcp.espol", "games.read_model")
    }


if __name__ == "__main__":
    print(mermaid(picture()))
