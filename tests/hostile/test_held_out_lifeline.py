"""Held-out cases (issue 30's acceptance): worker processes of commands beyond `report`
(`diff`, `export`, `index`'s local engine) and signals beyond SIGKILL/SIGTERM (a closed
terminal's SIGHUP, Ctrl-C's SIGINT) — the parent stopped as soon as it has workers, then
signalled.

Expected, written before the run: every process the command started ends, and its shard
folder in /dev/shm (when it made one) goes, each within the hang guard; a SIGINT'ed command
prints no traceback.
"""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import psutil
import pytest
from hostile.checks import HANG_GUARD, child_env
from support.paths import ROOT
from test_worker_lifeline import SHM, _shards, _until, hosts  # noqa: F401  (hosts: fixture)

CASES = {
    "diff-SIGKILL": (["diff", "{H}", "{H}"], signal.SIGKILL),
    "export-SIGKILL": (["export", "{H}", "{OUT}"], signal.SIGKILL),
    "index-SIGKILL": (["index", "{H}", "--out", "{OUT}", "--workers", "2", "--force"],
                      signal.SIGKILL),
    "report-SIGHUP": (["report", "{H}"], signal.SIGHUP),
    "report-SIGINT": (["report", "{H}"], signal.SIGINT),
}


@pytest.mark.skipif(not sys.platform.startswith("linux") or not SHM.is_dir(),
                    reason="/dev/shm and parent-death signals are Linux's")
@pytest.mark.parametrize("case", list(CASES))
def test_signalled_mid_read_leaves_no_worker(hosts: Path, tmp_path: Path,  # noqa: F811
                                             case: str) -> None:
    args, sig = CASES[case]
    argv = [a.replace("{H}", str(hosts)).replace("{OUT}", str(tmp_path / "out")) for a in args]
    before = _shards()
    env = child_env()
    env.update(TFDBG_TUI_WORKERS="2", TFDBG_TUI_PARALLEL_MIN_BYTES="0",
               TFDBG_TUI_CACHE_DIR=str(tmp_path / "cache"))
    proc = subprocess.Popen([sys.executable, "-m", "tfdbg_tui", *argv],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env,
                            cwd=str(ROOT), start_new_session=True)
    parent = psutil.Process(proc.pid)
    try:
        seen: list[psutil.Process] = []
        folder: set[str] = set()

        def working() -> bool:
            if proc.poll() is not None:
                pytest.fail(f"{argv[0]} ended before its workers were seen")
            folder.update(_shards() - before)
            try:
                seen[:] = parent.children(recursive=True)
            except psutil.NoSuchProcess:
                return False
            return any(c.name().startswith("python") for c in seen)

        _until("the command's workers", working)
        proc.send_signal(signal.SIGSTOP)
        seen[:] = parent.children(recursive=True)
        folder.update(_shards() - before)
        proc.send_signal(sig)
        if sig != signal.SIGKILL:
            proc.send_signal(signal.SIGCONT)
        _, err = proc.communicate(timeout=HANG_GUARD)
        _, alive = psutil.wait_procs(seen, timeout=HANG_GUARD)
        assert alive == [], f"outlived {argv[0]}: {alive}"
        for name in folder:
            _until(f"{name} removed", lambda n=name: not (SHM / n).exists())  # type: ignore
        assert b"Traceback" not in err, err.decode("utf-8", "replace")[-3000:]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
