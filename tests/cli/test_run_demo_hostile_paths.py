"""`run` and `demo` with hostile paths (issue 30, attacker round, from a shell): a logdir or
cache path holding an escape sequence reached the terminal raw — `run`'s "dump written to …"
and "open it with: …" lines, `demo`'s "recording the demo into …" and its `--no-open` path
(`printf '\\e]0;pwn\\a'` retitles the user's terminal window; others rewrite the screen).
And `demo` wrote its completion marker with `open(marker, "w")`: a dangling symlink planted at
that fixed name in a cache folder others can write to made it create a file wherever the link
pointed. Now every such string goes through the sanitizer and the marker is a temporary of its
own renamed over the name."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.paths import ROOT, tf_env
from support.slowdown import guard

pytestmark = pytest.mark.tf
HOSTILE = "\x1b]0;pwn\x07"


def _tfdbg(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tfdbg_tui", *args], cwd=ROOT,
                          env={**tf_env(), **(env or {})}, capture_output=True, text=True,
                          timeout=guard(600))


def _raw(text: str) -> bool:
    return "\x1b" in text or "\x07" in text


def test_run_says_a_hostile_logdir_escaped(tmp_path: Path) -> None:
    script = tmp_path / "prog.py"
    script.write_text("import tensorflow as tf\nprint(float(tf.math.log(2.0)))\n")
    logdir = tmp_path / f"logs{HOSTILE}"
    proc = _tfdbg("run", "--logdir", str(logdir), "--", str(script))
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "dump written to" in proc.stderr, proc.stderr
    assert not _raw(proc.stderr), repr(proc.stderr[-500:])
    assert logdir.is_dir()  # recorded where the user said


def test_demo_with_a_hostile_cache_and_a_planted_marker(tmp_path: Path) -> None:
    cache = tmp_path / f"cache{HOSTILE}"
    folder = cache / "tfdbg-tui"
    folder.mkdir(parents=True)
    target = tmp_path / "elsewhere" / "created-by-demo"
    target.parent.mkdir()
    (folder / "demo.complete").symlink_to(target)  # dangling: the demo records first
    proc = _tfdbg("demo", "--no-open", env={"XDG_CACHE_HOME": str(cache)})
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert not _raw(proc.stderr) and not _raw(proc.stdout), (proc.stdout, proc.stderr[-500:])
    assert not target.exists(), "the marker was written through the planted link"
    marker = folder / "demo.complete"
    assert marker.is_file() and not marker.is_symlink()
    assert set(os.listdir(folder)) == {"demo", "demo.complete"}  # no temporary left
