"""A command stopped at the worst moments of starting its workers leaves nothing behind and
says nothing (issue 30): no worker, no shard folder in /dev/shm, no traceback.

Each moment is made certain rather than hit by chance (the wrappers are the test's, in the
command's own process; the product code runs unchanged):

- `spawn-KILL`: `diff` reads its two runs on two threads, so its workers are spawned: each
  is a fresh interpreter that reads its start data from a pipe the parent writes right after
  starting it. The parent kills itself (SIGKILL) as soon as a worker's process exists, before
  a byte of its start data is written. A full `make test` once hit this by chance: Python's
  spawn printed `EOFError: Ran out of input` with its traceback.
- `folder-KILL`: the parent kills itself as soon as its shard folder exists (`os.mkdir`
  returned). A run of these tests once left such a folder in /dev/shm for good: it was made
  before the process that removes it after a kill (`reader.io.lifeline.Reaper`) had started.
- `fork-INT`, `spawn-INT`: a terminal's Ctrl-C (SIGINT to the whole process group) as soon as
  a worker's process exists (forked by `report`, spawned by `diff`). Workers printed
  "Process ForkProcess-1:" and a KeyboardInterrupt traceback, or the interpreter's own while
  a spawned one was still starting.
- `started-INT1`: SIGINT to the command alone (`kill -INT`) just after a worker process has
  started and before its pool has taken it in: `report` then joined at exit a worker that
  waited for work for ever (held-out `report-SIGINT` hung so 3 times in 25).

Expected, written before the fixes: the workers end (within the hang guard), the shard
folders are removed, the command ends killed (-9) or as an interrupted command (130), and
its stderr is empty — multiprocessing's resource tracker, which removes the semaphores a
killed parent leaves, no longer warns about them in two lines on the user's terminal either.
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

kill_at, how = sys.argv.pop(1).split("-")
made = []

def said_and_signalled(lines):
    os.write(1, "".join(line + "\\n" for line in lines).encode())
    if how == "INT":
        os.killpg(0, signal.SIGINT)  # a terminal's Ctrl-C: the whole process group
    elif how == "INT1":
        os.kill(os.getpid(), signal.SIGINT)  # `kill -INT` of the command alone
    else:
        os.kill(os.getpid(), signal.SIGKILL)

mkdir = os.mkdir

def noted_mkdir(path, *args, **kwargs):
    mkdir(path, *args, **kwargs)
    if os.path.basename(os.fspath(path)).startswith("tfdbg-tui-shards-"):
        made.append(os.fspath(path))
        if kill_at == "folder":
            said_and_signalled([f"shm {d}" for d in made])

start = util.spawnv_passfds

def start_then_signal(path, args, passfds):
    pid = start(path, args, passfds)
    if kill_at == "spawn" and "--multiprocessing-fork" in args:
        said_and_signalled([f"pid {pid}"] + [f"shm {d}" for d in made])
    return pid

fork = os.fork

def fork_then_signal():
    pid = fork()
    if pid and kill_at == "fork":
        said_and_signalled([f"pid {pid}"] + [f"shm {d}" for d in made])
    return pid

from multiprocessing import process

start_process = process.BaseProcess.start

def started_then_signal(self):
    start_process(self)
    if kill_at == "started":
        said_and_signalled([f"pid {self.pid}"] + [f"shm {d}" for d in made])

os.mkdir = noted_mkdir
util.spawnv_passfds = start_then_signal
os.fork = fork_then_signal
process.BaseProcess.start = started_then_signal
from tfdbg_tui.cli import main
sys.exit(main(sys.argv[1:]))
"""

# KILL_AT-SIGNAL: the moment and the signal (SIGKILL; SIGINT to the process group, or INT1:
# to the command alone)
CASES = {
    "diff-spawn-KILL": ["diff", "{H}", "{H}"],
    "diff-folder-KILL": ["diff", "{H}", "{H}"],
    "report-folder-KILL": ["report", "{H}"],
    "report-fork-INT": ["report", "{H}"],
    "diff-spawn-INT": ["diff", "{H}", "{H}"],
    "report-started-INT1": ["report", "{H}"],
}


def _ended(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE  # (left to init to reap)
    except psutil.NoSuchProcess:
        return True


@pytest.mark.skipif(not sys.platform.startswith("linux") or not SHM.is_dir(),
                    reason="/dev/shm and parent-death signals are Linux's")
@pytest.mark.parametrize("case", list(CASES))
def test_stopped_while_starting_workers_leaves_nothing_and_says_nothing(
        hosts: Path, tmp_path: Path, case: str) -> None:  # noqa: F811
    moment = case.split("-", 1)[1]
    args = CASES[case]
    env = child_env()
    env.update(TFDBG_TUI_WORKERS="2", TFDBG_TUI_PARALLEL_MIN_BYTES="0",
               TFDBG_TUI_CACHE_DIR=str(tmp_path / "cache"))
    argv = [a.replace("{H}", str(hosts)) for a in args]
    proc = subprocess.Popen([sys.executable, "-c", DRIVER, moment, *argv],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                            cwd=str(ROOT), start_new_session=True)
    try:
        # stdout and stderr end when every process holding them has (the workers too)
        out, err = proc.communicate(timeout=HANG_GUARD)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    expected = -9 if moment.endswith("KILL") else 130  # (an interrupted command's status)
    assert proc.returncode == expected, (proc.returncode, err.decode("utf-8", "replace")[-3000:])
    said = [line.split(" ", 1) for line in out.decode().splitlines()]
    pids = [int(v) for k, v in said if k == "pid"]
    folders = [Path(v) for k, v in said if k == "shm"]  # this command's, when it died
    assert folders and (pids or moment.startswith("folder")), out
    for pid in pids:
        _until(f"worker {pid} ended", lambda p=pid: _ended(p))  # type: ignore
    for f in folders:
        _until(f"{f} removed", lambda f=f: not f.exists())  # type: ignore
    text = err.decode("utf-8", "replace")
    assert "Traceback" not in text, text[-3000:]
    assert text == "", text[-3000:]
