"""Held-out cases (issue 30's acceptance) for the app and the Python API: editors that are
there but cannot run, no terminal on one side only, compare mode without a terminal, formula
cells in every text column of the CSV export, and `tfdbg_tui.open` on things that are not
logdirs.

Expected, written before the run: `e` with an editor that cannot start says so in one
notification and the app goes on (no exception, exit status 0); without a terminal on stdin
or stdout, `tfdbg-tui LOGDIR` (and `--compare`) is one line on stderr pointing to
`tfdbg-tui report`, exit 2, nothing on stdout; every text cell of export's CSV that starts
with = + - @ tab or CR carries a leading '; `tfdbg_tui.open` raises the reader's one-line
error for a FIFO, a file, a device and a missing path — never hangs nor returns a run.
"""

from __future__ import annotations

import csv
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest
from hostile.checks import HANG_GUARD, child_env
from support.paths import ROOT
from support.tui import record_notifications, settle, sync, write_reference
from test_untrusted_editor import forged_logdir

from dumper.writer import LogdirWriter
from reader import DebugLogdir, ReaderError


def _editor(tmp: Path, kind: str) -> str:
    if kind == "folder":
        return str(tmp)
    script = tmp / "ed"
    if kind == "not-executable":
        script.write_text("#!/bin/sh\nexit 0\n")
        script.chmod(0o644)
    elif kind == "bad-interpreter":
        script.write_text("#!/nonexistent/interpreter\n")
        script.chmod(0o755)
    elif kind == "not-a-program":
        script.write_bytes(b"\x7fELF\x02\x01\x01garbage")
        script.chmod(0o755)
    return str(script)


@pytest.mark.parametrize("kind", ["folder", "not-executable", "bad-interpreter",
                                  "not-a-program"])
@sync
async def test_e_with_an_editor_that_cannot_start(tmp_path: Path, kind: str,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from tfdbg_tui.ui.app import TfdbgApp

    source = tmp_path / "train.py"
    source.write_text("x = 1\n" * 10)
    forged_logdir(tmp_path / "logdir", str(source))
    editor = _editor(tmp_path, kind)
    monkeypatch.setenv("EDITOR", editor)
    monkeypatch.delenv("VISUAL", raising=False)
    app = TfdbgApp(DebugLogdir(str(tmp_path / "logdir")), follow=False)
    said = record_notifications(app)
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(app, pilot)
        await pilot.press("enter")
        await settle(app, pilot)
        await pilot.press("5", "e")
        await settle(app, pilot)
        assert app.is_running
    about = [m for m in said if os.path.basename(editor) in m]
    assert len(about) == 1, said
    assert app.return_code in (None, 0)


def _no_terminal(args: list[str], *, stdin_tty: bool, stdout_tty: bool
                 ) -> tuple[int, bytes, str]:
    """Run `tfdbg-tui ARGS` with a pty on one side only; (status, stdout, stderr)."""
    master, slave = pty.openpty()
    try:
        stdin = slave if stdin_tty else subprocess.DEVNULL
        stdout = slave if stdout_tty else subprocess.PIPE
        proc = subprocess.Popen([sys.executable, "-m", "tfdbg_tui", *args], stdin=stdin,
                                stdout=stdout, stderr=subprocess.PIPE, cwd=ROOT,
                                env={**child_env(), "TERM": "xterm-256color"})
        os.close(slave)
        slave = -1
        try:
            out, err = proc.communicate(timeout=HANG_GUARD)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            pytest.fail(f"{args}: the app started without a terminal and never ended")
        if stdout_tty:  # what reached the pty
            os.set_blocking(master, False)
            try:
                out = os.read(master, 1 << 16)
            except OSError:
                out = b""
        return proc.returncode, out or b"", err.decode("utf-8", "replace")
    finally:
        if slave >= 0:
            os.close(slave)
        os.close(master)


@pytest.mark.parametrize("compare", [False, True], ids=["plain", "compare"])
@pytest.mark.parametrize("side", ["stdin-only", "stdout-only"])
def test_a_terminal_on_one_side_only(tmp_path: Path, side: str, compare: bool) -> None:
    ld = tmp_path / "ld"
    write_reference(ld)
    args = [str(ld), "--compare", str(ld)] if compare else [str(ld)]
    status, out, err = _no_terminal(args, stdin_tty=side == "stdin-only",
                                    stdout_tty=side == "stdout-only")
    assert "Traceback" not in err, err
    assert status == 2, (status, out[-300:], err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "tfdbg-tui report" in lines[0], err
    assert b"\x1b[" not in out, out[-300:]  # no full-screen escape codes written


FORMULAS = ["=HYPERLINK(\"http://x\")", "+SUM(1,2)", "-2+3", "@SUM(A1)", "\t=1", "\r=1"]


def _formula_logdir(path: Path) -> None:
    """Every text a logdir gives: op type, op name, graph id and name, device, host, file,
    function — each starting like a formula."""
    f0, f1, f2, f3, f4, f5 = FORMULAS
    w = LogdirWriter(path, run_id="run-1", hostname=f4, tensorflow_version="2.21.0",
                     file_timestamp=1)
    src = w.add_source_file("/" + f0, ["x = 1"])
    frames = [w.add_stack_frame(src, 1, f1)]
    w.add_graph(f2, f3)
    w.add_op(f2, f5, f0, [], stack_frame_ids=frames)
    w.add_graph_trace(f2, f0, 0, "FULL_HEALTH", [2, 1, 1, 1, 3, 3, 0, 0, 0, 0, 0],
                      wall_time=2.0)
    w.add_execution(f1, "FULL_HEALTH", [[-1, 1, 1, 1, 3, 0, 0, 3, 0, 0, 0]],
                    graph_id=f2, stack_frame_ids=frames, wall_time=3.0)
    w.close()


def test_every_text_cell_of_the_csv_export_is_neutralized(tmp_path: Path) -> None:
    ld = tmp_path / "ld"
    _formula_logdir(ld)
    proc = subprocess.run([sys.executable, "-m", "tfdbg_tui", "export", str(ld),
                           str(tmp_path / "out"), "--format", "csv"], capture_output=True,
                          text=True, cwd=ROOT, env=child_env(), timeout=HANG_GUARD)
    assert proc.returncode == 0, proc.stderr
    seen = 0
    for table in sorted((tmp_path / "out").glob("*.csv")):
        with open(table, newline="") as f:
            for row in csv.reader(f):
                for cell in row:
                    if cell[:1] in ("=", "+", "-", "@", "\t", "\r"):
                        try:
                            float(cell)  # a number is left as it is
                        except ValueError:
                            pytest.fail(f"{table.name}: live formula cell {cell!r}")
                    seen += cell.startswith("'")
    assert seen >= 6, seen  # the names did reach the tables, neutralized


@pytest.mark.parametrize("kind", ["fifo", "file", "device", "missing"])
def test_open_on_what_is_not_a_logdir(tmp_path: Path, kind: str) -> None:
    import tfdbg_tui

    target = {"fifo": tmp_path / "f", "file": tmp_path / "f", "device": Path("/dev/zero"),
              "missing": tmp_path / "nothing"}[kind]
    if kind == "fifo":
        os.mkfifo(target)
    elif kind == "file":
        target.write_bytes(b"\0" * 100)
    with pytest.raises(ReaderError) as caught:
        tfdbg_tui.open(str(target))
    assert "\n" not in str(caught.value) and str(target) in str(caught.value)
