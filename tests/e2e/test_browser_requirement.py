"""A missing Chromium skips the browser tests on a developer's machine and fails them in
CI, both in the suite (tests/e2e/conftest.py) and in the test script
(scripts/check_chromium)."""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

import pytest

from tests.e2e.conftest import ROOT, in_ci, require_browser

CHECK = ROOT / "scripts" / "check_chromium"


@pytest.mark.parametrize(
    "value, expected",
    [("true", True), ("1", True), ("yes", True), ("", False), ("false", False), ("0", False)],
)
def test_ci_is_read_from_the_environment(value, expected):
    assert in_ci({"CI": value}) is expected
    assert in_ci({}) is False


def test_missing_browser_skips_outside_ci(tmp_path):
    with pytest.raises(pytest.skip.Exception, match="not installed"):
        require_browser(tmp_path / "chromium", {})


def test_missing_browser_fails_in_ci(tmp_path):
    with pytest.raises(pytest.fail.Exception, match="CI is set"):
        require_browser(tmp_path / "chromium", {"CI": "true"})


def test_present_browser_neither_skips_nor_fails(tmp_path):
    browser = tmp_path / "chromium"
    browser.write_text("")
    require_browser(browser, {"CI": "true"})  # returns: nothing raised


def run_check(browser: Path, **env: str) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items() if k != "CI"}
    return subprocess.run(
        [str(CHECK)], env={**base, "AJEDREZ_CHROMIUM": str(browser), **env},
        capture_output=True, text=True, timeout=30, check=False,
    )


def test_check_script_fails_in_ci_without_a_browser(tmp_path):
    result = run_check(tmp_path / "chromium", CI="true")
    assert result.returncode == 1
    assert "CI is set" in result.stderr


def test_check_script_only_warns_outside_ci(tmp_path):
    result = run_check(tmp_path / "chromium")
    assert result.returncode == 0
    assert "will be skipped" in result.stdout


def test_check_script_passes_in_ci_with_a_browser(tmp_path):
    browser = tmp_path / "chromium"
    browser.write_text("#!/bin/sh\n")
    browser.chmod(browser.stat().st_mode | stat.S_IXUSR)
    result = run_check(browser, CI="true")
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")
