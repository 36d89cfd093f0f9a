"""SIGTERM (`kill`, `timeout`, a scheduler ending a job) while a command writes a file through
a temporary of its own: the temporary goes, the user's previous file stays, status 143
(128 + SIGTERM), nothing on stderr. Before, Python died at once: `index --out`'s
`.NAME.parquet.tmp-…` (its workers killed with it) and `diff --csv`'s `.NAME.tmp-…` stayed.

The moment is made certain, not raced: `held/sitecustomize.py` (first on the command's
PYTHONPATH, so spawned workers load it too) holds the writer once its temporary exists and
says so on a FIFO; the test waits for that line, then sends the signal.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hostile.checks import HANG_GUARD, child_env
from support.hosts import write_job
from support.paths import ROOT
from support.tui import write_reference

HELD = Path(__file__).parent / "held"


@contextlib.contextmanager
def _held(args: list[str], hold: str, tmp_path: Path, tag: str = ""
          ) -> Iterator[subprocess.Popen[str]]:
    """`tfdbg-tui ARGS` running with writer `hold` held (its temporary made), killed on exit
    if still running."""
    event = tmp_path / f"event{tag}"
    os.mkfifo(event)
    rfd = os.open(event, os.O_RDONLY | os.O_NONBLOCK)
    keep = os.open(event, os.O_WRONLY)  # (no EOF while the command has not opened it yet)
    env = {**child_env(), "TFDBG_TEST_HOLD": hold, "TFDBG_TEST_EVENT": str(event),
           "TFDBG_TUI_SHARDS": str(tmp_path / "no-shards"),
           "TFDBG_TUI_CACHE_DIR": str(tmp_path / "cache")}
    env["PYTHONPATH"] = os.pathsep.join([str(HELD), env["PYTHONPATH"]])
    proc = subprocess.Popen([sys.executable, "-m", "tfdbg_tui", *args], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        ready, _, _ = select.select([rfd], [], [], HANG_GUARD)
        assert ready, "the writer was never held"
        assert os.read(rfd, 100).startswith(b"held"), "not the event"
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
        os.close(rfd)
        os.close(keep)


def _held_then_terminated(args: list[str], hold: str, tmp_path: Path
                          ) -> subprocess.CompletedProcess[str]:
    """Run `tfdbg-tui ARGS` with writer `hold` held; SIGTERM it once held."""
    with _held(args, hold, tmp_path) as proc:
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=HANG_GUARD)
    return subprocess.CompletedProcess(args, proc.returncode, out, err)


def _temporaries(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if ".tmp-" in p.name)


@pytest.mark.parametrize("workers", ["1", "2"])
def test_index_out_terminated_leaves_no_temporary(tmp_path: Path, workers: str) -> None:
    """In the command's own process (one worker) and in a pool of two: the shard being
    written is removed, the shards already there stay as they were."""
    logdir, out = tmp_path / "job", tmp_path / "shards"
    write_job(logdir)
    out.mkdir()
    (out / "mine.txt").write_text("kept\n")
    proc = _held_then_terminated(["index", str(logdir), "--out", str(out),
                                  "--workers", workers], "shard", tmp_path)
    assert proc.returncode == 128 + signal.SIGTERM, (proc.returncode, proc.stderr)
    assert proc.stderr == "", proc.stderr
    assert _temporaries(out) == [], "temporaries left in --out"
    assert (out / "mine.txt").read_text() == "kept\n"


def test_diff_csv_terminated_leaves_no_temporary_and_the_previous_file(
        tmp_path: Path) -> None:
    ref = tmp_path / "ref"
    write_reference(ref)
    target = tmp_path / "out" / "steps.csv"
    target.parent.mkdir()
    target.write_text("mine\n")
    proc = _held_then_terminated(["diff", str(ref), str(ref), "--csv", str(target)], "csv",
                                 tmp_path)
    assert proc.returncode == 128 + signal.SIGTERM, (proc.returncode, proc.stderr)
    assert proc.stderr == "", proc.stderr
    assert _temporaries(target.parent) == [], "temporaries left beside --csv's file"
    assert target.read_text() == "mine\n"


def test_a_killed_writers_temporary_goes_with_the_next_write_a_live_ones_stays(
        tmp_path: Path) -> None:
    """SIGKILL gives a process no chance to remove its temporary (the OOM killer, a batch
    system's hard limit): the next write of the same file removes it. A temporary of a
    writer still running (two commands writing one folder) is never touched."""
    ref = tmp_path / "ref"
    write_reference(ref)
    target = tmp_path / "out" / "steps.csv"
    target.parent.mkdir()
    args = ["diff", str(ref), str(ref), "--csv", str(target)]
    with _held(args, "csv", tmp_path, "-killed") as killed:
        killed.kill()
        killed.communicate(timeout=HANG_GUARD)
    (dead,) = _temporaries(target.parent)
    with _held(args, "csv", tmp_path, "-live") as live:
        (live_tmp,) = set(_temporaries(target.parent)) - {dead}
        proc = subprocess.run([sys.executable, "-m", "tfdbg_tui", *args], cwd=ROOT,
                              env=child_env(), capture_output=True, text=True,
                              timeout=HANG_GUARD)
        assert proc.returncode == 0, proc.stderr
        assert _temporaries(target.parent) == [live_tmp], "a dead one left or a live one gone"
        live.send_signal(signal.SIGTERM)
        live.communicate(timeout=HANG_GUARD)
    assert _temporaries(target.parent) == []
    assert target.read_text().startswith("step"), target.read_text()[:80]
