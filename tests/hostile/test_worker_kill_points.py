"""A command killed at the worst moments of starting its workers leaves nothing behind and
says nothing (issue 30): no worker, no shard folder in /dev/shm, no traceback.

Two moments, each made certain rather than hit by chance (the wrappers are the test's, in the
command's own process; the product code runs unchanged):

- `spawn`: `diff` reads its two runs on two threads, so its workers are spawned: each is a
  fresh interpreter that reads its start data from a pipe the parent writes right after
  starting it. The parent kills itself (SIGKILL) as soon as a worker's process exists, before
  a byte of its start data is written. A full `make test` once hit this by chance: Python's
  spawn printed `EOFError: Ran out of input` with its traceback.
- `folder`: the parent kills itself as soon as its shard folder exists (`os.mkdir` returned).
  A full run of these tests once left such a folder in /dev/shm for good: it was made before
  the process that removes it after a kill (`reader.io.lifeline.Reaper`) had started.

Expected, written before the fixes: the workers end (within the hang guard), the shard
folders are removed, and the killed command's stderr is empty — multiprocessing's resource
tracker, which removes the semaphores a killed parent leaves, no longer warns about them in
two lines on the user's terminal either.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import psutil
import pytest
from hostile.checks import HANG_GUARD, child_env
from support.paths import ROOT
from test_worker_lifeline import SHM, _until, hosts  # noqa: F401  (hosts: fixture)

# `python -c KILL_AT COMMAND…`: the command, with the process start of its workers (not of
# the resource tracker, whose command line has no --multiprocessing-fork) and the making of
# its shard folders observed; at KILL_AT it prints what it made, and SIGKILLs itself
DRIVER = """\
import os, signal, sys
from multiprocessing import util

kill_at = sys.argv.pop(1)
made = []

def said_and_killed(lines):
    os.write(1, "".join(line + "\\n" for line in lines).encode())
    os.kill(os.getpid(), signal.SIGKILL)

mkdir = os.mkdir

def noted_mkdir(path, *args, **kwargs):
    mkdir(path, *args, **kwargs)
    if os.path.basename(os.fspath(path)).startswith("tfdbg-tui-shards-"):
        made.append(os.fspath(path))
        if kill_at == "folder":
            said_and_killed([f"shm {d}" for d in made])

start = util.spawnv_passfds

def start_then_die(path, args, passfds):
    pid = start(path, args, passfds)
    if kill_at == "spawn" and "--multiprocessing-fork" in args:
        said_and_killed([f"pid {pid}"] + [f"shm {d}" for d in made])
    return pid

os.mkdir = noted_mkdir
util.spawnv_passfds = start_then_die
from tfdbg_tui.cli import main
sys.exit(main(sys.argv[1:]))
"""

CASES = {
    "diff-spawn": ("spawn", ["diff", "{H}", "{H}"]),
    "diff-folder": ("folder", ["diff", "{H}", "{H}"]),
    "report-folder": ("folder", ["report", "{H}"]),
}


def _ended(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE  # (left to init to reap)
    except psutil.NoSuchProcess:
        return True


@pytest.mark.skipif(not sys.platform.startswith("linux") or not SHM.is_dir(),
                    reason="/dev/shm and parent-death signals are Linux's")
@pytest.mark.parametrize("case", list(CASES))
def test_killed_while_starting_workers_leaves_nothing_and_says_nothing(
        hosts: Path, tmp_path: Path, case: str) -> None:  # noqa: F811
    kill_at, args = CASES[case]
    env = child_env()
    env.update(TFDBG_TUI_WORKERS="2", TFDBG_TUI_PARALLEL_MIN_BYTES="0",
               TFDBG_TUI_CACHE_DIR=str(tmp_path / "cache"))
    argv = [a.replace("{H}", str(hosts)) for a in args]
    proc = subprocess.Popen([sys.executable, "-c", DRIVER, kill_at, *argv],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                            cwd=str(ROOT), start_new_session=True)
    try:
        # stdout and stderr end when every process holding them has (the workers too)
        out, err = proc.communicate(timeout=HANG_GUARD)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == -9, (proc.returncode, err.decode("utf-8", "replace")[-3000:])
    said = [line.split(" ", 1) for line in out.decode().splitlines()]
    pids = [int(v) for k, v in said if k == "pid"]
    folders = [Path(v) for k, v in said if k == "shm"]  # this command's, when it died
    assert folders and (pids or kill_at != "spawn"), out
    for pid in pids:
        _until(f"worker {pid} ended", lambda p=pid: _ended(p))  # type: ignore
    for f in folders:
        _until(f"{f} removed", lambda f=f: not f.exists())  # type: ignore
    text = err.decode("utf-8", "replace")
    assert "Traceback" not in text, text[-3000:]
    assert text == "", text[-3000:]
