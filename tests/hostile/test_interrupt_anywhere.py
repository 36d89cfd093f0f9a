"""Ctrl-C at any point of a one-shot command (`report`, `diff`, `export`, `index`) ends it as
an interrupted command: status 130, nothing on stderr (issue 30).

Two moments no earlier test reached, each made certain (the wrappers are the test's, in the
command's own process; the product code runs unchanged):

- `dropped`: the KeyboardInterrupt is raised where some code catches it and goes on (as a
  library's `except BaseException`, a pool's bookkeeping or a finalizer may): the test's
  wrapper raises SIGINT inside a `try: … except KeyboardInterrupt: pass` at the command's
  first naming, in its main thread, of a logdir's file (`reader.io.regular.join`) or of its
  status (`diff` names its files on its reading threads, where no KeyboardInterrupt is
  raised). Before, the command read on and ended with its ordinary status — `report` 1
  ("alerts found"), the others 0 — for a run the user had stopped.
- `importing`: SIGINT while the command is still importing its first module (the status
  bookkeeping of `tfdbg_tui.commands.output`). Before, that import ran outside the
  command's `try`: Python's KeyboardInterrupt traceback, killed by SIGINT.

Expected, written before the fix: status 130 and an empty stderr, for each command.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hostile.checks import HANG_GUARD, child_env
from support.paths import ROOT

from dumper.writer import LogdirWriter

DRIVER = """\
import os, signal, sys, threading
how = sys.argv.pop(1)
command = os.getpid()  # (not its workers: a forked one has the wrappers too)

if how == "dropped":
    from reader.io import regular
    from tfdbg_tui.commands import output

    dropped = []

    def dropping_an_interrupt(call):
        def wrapper(*args):
            if (not dropped and os.getpid() == command
                    and threading.current_thread() is threading.main_thread()):
                dropped.append(call.__name__)
                try:
                    signal.raise_signal(signal.SIGINT)  # (the KeyboardInterrupt comes here)
                except KeyboardInterrupt:
                    os.write(1, b"dropped\\n")  # what a library on the way may do
            return call(*args)
        return wrapper

    regular.join = dropping_an_interrupt(regular.join)
    output.planned = dropping_an_interrupt(output.planned)  # (`diff` reads on threads)

from tfdbg_tui.cli import main

if how == "importing":

    class InterruptAtImport:
        def find_spec(self, name, path=None, target=None):
            if name == "tfdbg_tui.commands.output":
                sys.meta_path.remove(self)
                os.write(1, b"importing\\n")
                signal.raise_signal(signal.SIGINT)
            return None

    sys.meta_path.insert(0, InterruptAtImport())
sys.exit(main(sys.argv[1:]))
"""

COMMANDS = {
    "report": ["report", "{H}"],
    "diff": ["diff", "{H}", "{H}"],
    "export": ["export", "{H}", "{OUT}"],
    "index": ["index", "{H}", "--out", "{OUT}"],
}


@pytest.fixture(scope="module")
def hosts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two small hosts with alerts (a few thousand traces each)."""
    d = tmp_path_factory.mktemp("interrupt") / "run"
    for k in range(2):
        with LogdirWriter(d, run_id="r", hostname=f"h{k}", file_timestamp=1_700_000_000 + k) as w:
            w.add_graph("g", "f")
            w.add_op("g", "Log", "log", [])
            v = np.zeros((2000, 11))
            v[:, 2], v[:, 3], v[:, 4], v[:, 10] = 1, 1, 8, 8
            v[::100, 7] = 1
            w.add_graph_traces("g", "log", 0, "FULL_HEALTH", v,
                               wall_times=1_700_000_000 + np.arange(2000) * 1e-3 + k * 1e-4)
    return d


@pytest.mark.parametrize("how", ["dropped", "importing"])
@pytest.mark.parametrize("command", list(COMMANDS))
def test_ctrl_c_ends_the_command_as_interrupted(hosts: Path, tmp_path: Path, command: str,
                                               how: str) -> None:
    if command == "export":
        pytest.importorskip("pyarrow")
    argv = [a.replace("{H}", str(hosts)).replace("{OUT}", str(tmp_path / "out"))
            for a in COMMANDS[command]]
    env = child_env()
    env["TFDBG_TUI_CACHE_DIR"] = str(tmp_path / "cache")
    try:
        proc = subprocess.run([sys.executable, "-c", DRIVER, how, *argv], capture_output=True,
                              env=env, cwd=str(ROOT), timeout=HANG_GUARD)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{command} hung (no exit within {HANG_GUARD:.0f} s)")
    out, err = (proc.stdout.decode("utf-8", "replace"), proc.stderr.decode("utf-8", "replace"))
    assert out.splitlines()[:1] == [how], out[-2000:]  # (the moment was reached)
    assert (proc.returncode, err) == (130, ""), out[-2000:]
