"""A spawned worker whose parent is killed while the worker starts ends without a traceback,
and the shard folder goes with them (issue 30: a full `make test` once caught `diff`, SIGKILLed
as its workers started, printing Python's spawn traceback, `EOFError: Ran out of input`).

`diff` reads its two runs on two threads, so its workers are spawned: each is a fresh
interpreter that reads its start data from a pipe the parent writes right after starting it.
Here that race is made certain: `diff` runs with multiprocessing's process start wrapped so
that the parent kills itself (SIGKILL) as soon as a worker's process exists, before a byte of
its start data is written — the instant the suite hit by chance. The wrapper is the test's;
the product code runs unchanged.

Expected, written before the fix: the worker ends (within the hang guard), the command's
stderr holds no traceback, and the command's shard folder in /dev/shm is removed. Killed, the
command says nothing at all: multiprocessing's resource tracker, which removes the semaphores
a killed parent leaves, no longer warns about them in two lines on the user's terminal.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import psutil
import pytest
from hostile.checks import HANG_GUARD, child_env
from support.paths import ROOT
from test_worker_lifeline import SHM, _shards, _until, hosts  # noqa: F401  (hosts: fixture)

# `python -c` program: the command, its workers' start wrapped (the resource tracker, also
# started through spawnv_passfds, is left alone: its command line has no --multiprocessing-fork)
DRIVER = """\
import os, signal, sys
from multiprocessing import util

start = util.spawnv_passfds

def start_then_die(path, args, passfds):
    pid = start(path, args, passfds)
    if "--multiprocessing-fork" in args:
        shm = [n for n in os.listdir("/dev/shm") if n.startswith("tfdbg-tui-shards-")]
        os.write(1, "".join([f"pid {pid}\\n"] + [f"shm {n}\\n" for n in shm]).encode())
        os.kill(os.getpid(), signal.SIGKILL)
    return pid

util.spawnv_passfds = start_then_die
from tfdbg_tui.cli import main
sys.exit(main(sys.argv[1:]))
"""


def _ended(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE  # (left to init to reap)
    except psutil.NoSuchProcess:
        return True


@pytest.mark.skipif(not sys.platform.startswith("linux") or not SHM.is_dir(),
                    reason="/dev/shm and parent-death signals are Linux's")
def test_parent_killed_before_a_spawned_worker_has_its_start_data(
        hosts: Path, tmp_path: Path) -> None:  # noqa: F811
    before = _shards()
    env = child_env()
    env.update(TFDBG_TUI_WORKERS="2", TFDBG_TUI_PARALLEL_MIN_BYTES="0",
               TFDBG_TUI_CACHE_DIR=str(tmp_path / "cache"))
    proc = subprocess.Popen([sys.executable, "-c", DRIVER, "diff", str(hosts), str(hosts)],
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
    folder = {v for k, v in said if k == "shm"} - before  # this command's, when it died
    assert pids and folder, out
    for pid in pids:
        _until(f"worker {pid} ended", lambda p=pid: _ended(p))  # type: ignore
    for name in folder:
        _until(f"{name} removed", lambda n=name: not (SHM / n).exists())  # type: ignore
    text = err.decode("utf-8", "replace")
    assert "Traceback" not in text, text[-3000:]
    assert text == "", text[-3000:]
