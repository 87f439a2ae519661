"""The lock files hold every dependency pyproject.toml names, at a version it allows.

scripts/bootstrap installs from requirements/*.txt alone, so a dependency added to or
tightened in pyproject.toml without running scripts/lock would never reach a machine.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)", re.MULTILINE)


def pins(lock: str) -> dict[str, str]:
    text = (ROOT / "requirements" / lock).read_text()
    return {canonicalize_name(name): version for name, version in PIN.findall(text)}


def declared(extra: str | None) -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    names = list(project["dependencies"])
    if extra:
        names += project["optional-dependencies"][extra]
    return [Requirement(name) for name in names]


@pytest.mark.parametrize(("lock", "extra"), [("base.txt", None), ("test.txt", "test")])
def test_every_declared_dependency_is_pinned_within_its_range(lock, extra):
    pinned = pins(lock)
    for requirement in declared(extra):
        name = canonicalize_name(requirement.name)
        assert name in pinned, f"{requirement.name} is not in requirements/{lock}: run scripts/lock"
        assert requirement.specifier.contains(pinned[name], prereleases=True), (
            f"requirements/{lock} pins {name}=={pinned[name]}, outside {requirement.specifier}:"
            " run scripts/lock"
        )


@pytest.mark.parametrize("lock", ["base.txt", "test.txt"])
def test_every_pin_carries_hashes(lock):
    text = (ROOT / "requirements" / lock).read_text()
    entries = re.split(r"\n(?=[A-Za-z0-9])", text.split("\n\n", 1)[-1])
    for entry in entries:
        if PIN.match(entry):
            assert "--hash=sha256:" in entry, f"{entry.splitlines()[0]} has no hash"
