"""An authorisation matrix of docs/security.md read as cells: one expected outcome per
action, role and door, for the tests that play each cell (tests/test_authorisation_matrix.py,
tests/test_tournament_authorisation_matrix.py)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Cell:
    action: str
    role: str
    door: str
    expected: str

    @property
    def id(self) -> str:
        return f"{self.action}-{self.role}-{self.door}"


def read_matrix(
    text: str,
    heading: str,
    *,
    actions: Mapping[str, str],
    roles: Mapping[str, str],
    doors: Sequence[str],
) -> list[Cell]:
    """The cells of the one table under ``heading``: its rows are actions (a label in
    ``actions``, a remark in brackets after it allowed), its columns roles (``roles``),
    and each cell holds one outcome per door, in ``doors``' order, joined by "·" ("—":
    the door has no such action)."""
    section = text.split(heading, 1)[1].split("\n## ", 1)[0]
    rows = [
        [part.strip() for part in line.strip().strip("|").split("|")]
        for line in section.splitlines()
        if line.startswith("|") and not line.startswith("|---")
    ]
    header, *body = rows
    columns = [roles[name] for name in header[1:]]
    cells = []
    for row in body:
        label = re.sub(r"\s*\(.*\)$", "", row[0])
        action = actions[label]
        for role, value in zip(columns, row[1:], strict=True):
            outcomes = [v.strip() for v in value.split("·")]
            assert len(outcomes) == len(doors), f"{label} / {role}: {value!r}"
            for door, expected in zip(doors, outcomes, strict=True):
                if expected != "—":
                    cells.append(Cell(action, role, door, expected))
    return cells
