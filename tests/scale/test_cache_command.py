"""`tfdbg-tui report` uses the index cache, and `tfdbg-tui cache` shows and clears it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from support.paths import ROOT


def tfdbg(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tfdbg_tui", *args], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=300)


def test_report_reuses_cache_and_cache_command(make_tf_logdir: Callable[..., str],
                                               tmp_path: Path) -> None:
    logdir = tmp_path / "run\x1b[31m"  # a name a terminal must not interpret
    shutil.copytree(make_tf_logdir("mixed", "FULL_HEALTH"), logdir)
    cache = tmp_path / "cache"
    env = dict(os.environ, PYTHONPATH=str(ROOT), TFDBG_TUI_CACHE_DIR=str(cache),
               TFDBG_TUI_CACHE_MIN_BYTES="0")

    shown = tfdbg(env, "cache")
    assert shown.returncode == 0
    assert "0 entries" in shown.stdout

    first = tfdbg(env, "report", "--json", str(logdir))
    assert list((cache / "v1").glob("*.json"))  # the index was saved
    second = tfdbg(env, "report", "--json", str(logdir))
    assert first.returncode == second.returncode == 1  # alerts found
    assert json.loads(first.stdout) == json.loads(second.stdout)

    shown = tfdbg(env, "cache")
    assert shown.returncode == 0
    assert "1 entries" in shown.stdout
    assert "\x1b" not in shown.stdout and "run\\x1b[31m" in shown.stdout
    assert str(cache) in shown.stdout

    cleared = tfdbg(env, "cache", "clear")
    assert cleared.returncode == 0
    assert not list(cache.glob("v1/*"))
    assert "0 entries" in tfdbg(env, "cache").stdout

    bad = tfdbg(env, "cache", "nonsense")
    assert bad.returncode == 2
    assert bad.stderr.startswith("tfdbg-tui cache: error:")
