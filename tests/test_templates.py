"""Template source checks Django itself does not make."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TEMPLATES = sorted(
    path
    for folder in [ROOT / "templates", *ROOT.glob("*/templates")]
    for path in folder.rglob("*")
    if path.suffix in {".html", ".txt"}
)


def test_there_are_templates_to_check():
    assert len(TEMPLATES) > 20


@pytest.mark.parametrize("path", TEMPLATES, ids=lambda p: str(p.relative_to(ROOT)))
def test_comments_close_on_their_own_line(path):
    # Django's {# #} comment is one line only: one that spans two is printed in the page.
    for number, line in enumerate(path.read_text().splitlines(), 1):
        assert line.count("{#") == line.count("#}"), f"{path.name}:{number}: {line.strip()}"
