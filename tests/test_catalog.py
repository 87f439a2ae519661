"""The Spanish catalogue: every message translated, none fuzzy, and the compiled .mo the
one the .po makes (a .po edited without compilemessages shows English on the site)."""

from __future__ import annotations

import gettext
import shutil
import subprocess
from pathlib import Path

import pytest

CATALOGUE = Path(__file__).resolve().parent.parent / "locale" / "es" / "LC_MESSAGES"

pytestmark = pytest.mark.skipif(
    shutil.which("msgfmt") is None, reason="needs GNU gettext's msgfmt (Debian: gettext)"
)


def test_every_message_is_translated_and_none_is_fuzzy():
    result = subprocess.run(
        ["msgfmt", "--check", "--statistics", "-o", "/dev/null", str(CATALOGUE / "django.po")],
        capture_output=True, text=True, check=False,
    )
    assert result.returncode == 0, result.stderr
    statistics = result.stderr.strip()
    assert "translated" in statistics, statistics
    assert "fuzzy" not in statistics and "untranslated" not in statistics, statistics


def test_the_compiled_catalogue_is_the_one_the_po_makes(tmp_path):
    fresh = tmp_path / "django.mo"
    subprocess.run(
        ["msgfmt", "-o", str(fresh), str(CATALOGUE / "django.po")], check=True
    )
    with fresh.open("rb") as made, (CATALOGUE / "django.mo").open("rb") as stored:
        made_catalog = gettext.GNUTranslations(made)._catalog  # type: ignore[attr-defined]
        stored_catalog = gettext.GNUTranslations(stored)._catalog  # type: ignore[attr-defined]
    missing = {k: v for k, v in made_catalog.items() if stored_catalog.get(k) != v}
    assert not missing, f"run compilemessages: {len(missing)} messages differ"
