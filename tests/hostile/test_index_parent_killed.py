"""`tfdbg-tui index --out FOLDER` SIGKILLed (the OOM killer, `kill -9`, a batch system's hard
limit) while a worker of its local pool writes a shard: the worker ends with it and the
shard's temporary goes too (issue 30, attacker round: found from a shell — SIGKILL 5 s into
`index bench-data/hosts10 --out DIR` left `.NAME.parquet.tmp-…` files in DIR for good: the
workers' parent-death signal was SIGKILL, which no code of theirs outlives).

The moment is made certain: `held/sitecustomize.py` holds a worker once its shard's temporary
exists and names it on a FIFO; the test SIGKILLs the command itself, then waits for the
worker to end (each wait within the hang guard).
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

from hostile.checks import HANG_GUARD, child_env
from support.hosts import write_job
from support.paths import ROOT

HELD = Path(__file__).parent / "held"


def _session(sid: int) -> list[int]:
    """The live processes of session `sid` (the command's: its workers stay in it)."""
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[3]) == sid and fields[0] != "Z":
                out.append(int(entry))
    return out


def _describe(pids: list[int]) -> str:
    """What each process left is and where it waits (its command line, state, signal masks,
    kernel wait channel): a failure says which process stayed and why."""
    out = []
    for pid in pids:
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace")[:160]
            with open(f"/proc/{pid}/status") as f:
                status = {k: v.strip() for k, _, v in (ln.partition(":") for ln in f)}
            with open(f"/proc/{pid}/wchan") as f:
                wchan = f.read()
        except OSError:
            continue
        keys = ("State", "PPid", "Threads", "SigPnd", "ShdPnd", "SigBlk", "SigCgt")
        out.append(f"[{pid} {cmd!r} " + " ".join(f"{k}={status.get(k)}" for k in keys)
                   + f" wchan={wchan}]")
    return "; ".join(out) or "(none left)"


def test_a_killed_index_leaves_no_shard_temporary(tmp_path: Path) -> None:
    logdir, out = tmp_path / "job", tmp_path / "shards"
    write_job(logdir)
    out.mkdir()
    event = tmp_path / "event"
    os.mkfifo(event)
    rfd = os.open(event, os.O_RDONLY | os.O_NONBLOCK)
    keep = os.open(event, os.O_WRONLY)  # (no EOF while no worker has opened it yet)
    env = {**child_env(), "TFDBG_TEST_HOLD": "shard-once", "TFDBG_TEST_EVENT": str(event),
           "TFDBG_TUI_CACHE_DIR": str(tmp_path / "cache")}
    env["PYTHONPATH"] = os.pathsep.join([str(HELD), env["PYTHONPATH"]])
    proc = subprocess.Popen([sys.executable, "-m", "tfdbg_tui", "index", str(logdir), "--out",
                             str(out), "--workers", "2"], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    try:
        ready, _, _ = select.select([rfd], [], [], HANG_GUARD)
        assert ready, "no worker was ever held"
        said = os.read(rfd, 100).decode()
        worker = int(said.split()[1])
        assert worker != proc.pid, "held in the command, not in a worker"
        assert [p.name for p in out.iterdir() if ".tmp-" in p.name], "no temporary to clean"
        assert worker in _session(proc.pid)
        proc.kill()
        proc.wait(timeout=HANG_GUARD)
        deadline = time.monotonic() + HANG_GUARD
        # every worker ends with the command (its parent-death signal), each once it has
        # removed what it was writing
        while _session(proc.pid):
            assert time.monotonic() < deadline, (
                "workers outlived the killed command: " + _describe(_session(proc.pid)))
            time.sleep(0.05)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        os.close(rfd)
        os.close(keep)
    left = sorted(p.name for p in out.iterdir() if ".tmp-" in p.name)
    assert left == [], f"temporaries left in --out: {left}"
