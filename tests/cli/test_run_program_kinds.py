"""`tfdbg-tui run -- PROGRAM` with a PROGRAM that is not Python (issue 30): one line naming it
and what it is, exit 2, before TensorFlow loads and before the logdir is made. `run --
/bin/true` loaded TensorFlow, then showed runpy's SyntaxError traceback with exit 1. What
Python itself runs (a script of any name, a folder or zip archive with __main__.py, a script
in the encoding it declares) is still taken.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from hostile.checks import HANG_GUARD, child_env
from support.paths import ROOT

from tfdbg_tui.commands import run as run_cmd
from tfdbg_tui.commands.program import load

WHAT_IT_TAKES = "run records Python programs"


def _odd(tmp_path: Path, kind: str) -> str:
    """A PROGRAM of the given kind, made under tmp_path."""
    p = tmp_path / "prog"
    if kind == "executable":
        return shutil.which("true") or "/bin/true"
    if kind == "folder":
        p.mkdir()
    elif kind == "missing":
        p = tmp_path / "missing.py"
    elif kind == "fifo":
        os.mkfifo(p)
    elif kind == "device":
        return os.devnull
    elif kind == "shell":
        p.write_text("#!/bin/sh\necho hi \"$1\"\n")
    elif kind == "latin1":
        p.write_bytes(b"print('caf\xe9')\n")
    elif kind == "binary":
        p.write_bytes(b"print(1)\n\x00\x01\x02")
    elif kind == "bad-coding":
        p.write_bytes(b"# -*- coding: no-such-codec -*-\nprint(1)\n")
    elif kind == "zip-without-main":
        with zipfile.ZipFile(p, "w") as z:
            z.writestr("train.py", "print(1)\n")
    elif kind == "unreadable":
        p.write_text("print(1)\n")
        p.chmod(0)
        if os.geteuid() == 0:  # root reads any mode; a write-only sysctl it may not read
            return "/proc/sys/vm/compact_memory"
    return str(p)


KINDS = {
    "executable": "is an executable, not a Python script",
    "folder": "is a folder without __main__.py",
    "missing": "can't open file",
    "fifo": "is a device, FIFO or socket",
    "device": "is a device, FIFO or socket",
    "shell": "is not a Python script: invalid syntax at line 2",
    "latin1": "is not a Python script: not utf-8 text (byte 0xe9 at offset 10)",
    "binary": "is a binary file, not a Python script (byte 0 at offset 9)",
    "bad-coding": "is not a Python script (unknown encoding",
    "zip-without-main": "is a zip archive without __main__.py",
    "unreadable": "can't open file",
}


@pytest.mark.parametrize(("kind", "said"), list(KINDS.items()), ids=list(KINDS))
def test_a_program_that_is_not_python_is_one_line_before_anything_starts(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str, said: str) -> None:
    program = _odd(tmp_path, kind)
    if kind == "unreadable" and os.geteuid() == 0 and not os.path.exists(program):
        pytest.skip("root, and no file root may not read")
    logdir = tmp_path / "ld"
    assert run_cmd.main(["--logdir", str(logdir), "--", program, "arg"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and err.startswith("tfdbg-tui: error: "), err
    assert said in err and repr(program) in err, err
    if kind not in ("missing", "unreadable"):
        assert WHAT_IT_TAKES in err, err
    assert not logdir.exists()  # dumping (which loads TensorFlow) never started


def test_run_of_a_binary_from_the_command_line(tmp_path: Path) -> None:
    """The issue's own case, as the user runs it: no TensorFlow log line, no traceback."""
    proc = subprocess.run([sys.executable, "-m", "tfdbg_tui", "run", "--logdir",
                           str(tmp_path / "ld"), "--", _odd(tmp_path, "executable")],
                          capture_output=True, text=True, cwd=ROOT, env=child_env(),
                          timeout=HANG_GUARD)
    assert proc.returncode == 2 and proc.stdout == "", proc.stderr
    assert proc.stderr.count("\n") == 1 and "not a Python script" in proc.stderr, proc.stderr


def test_what_python_runs_is_taken(tmp_path: Path) -> None:
    folder = tmp_path / "app"
    folder.mkdir()
    (folder / "__main__.py").write_text("print('app')\n")
    assert load(str(folder)).code is None  # (run by runpy, as `python DIR`)
    archive = tmp_path / "app.pyz"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("__main__.py", "print('app')\n")
    assert load(str(archive)).code is None
    declared = tmp_path / "latin.py"
    declared.write_bytes(b"# -*- coding: latin-1 -*-\nNAME = 'caf\xe9'\n")
    namespace: dict[str, object] = {}
    code = load(str(declared)).code
    assert code is not None
    exec(code, namespace)
    assert namespace["NAME"] == "café"
    bom = tmp_path / "bom.py"
    bom.write_bytes(b"\xef\xbb\xbfNAME = 'ok'\n")
    assert load(str(bom)).code is not None


def test_a_script_without_py_is_run_and_recorded(tmp_path: Path) -> None:
    """A script named without .py (`#!/usr/bin/env python`) runs from the code compiled at
    the check (it went through runpy before): its output, arguments and status."""
    script = tmp_path / "train"
    script.write_text("#!/usr/bin/env python\nimport sys\nimport tensorflow as tf\n"
                      "print('ran', sys.argv[1:], float(tf.reduce_sum(tf.ones(3))))\n"
                      "sys.exit(4)\n")
    logdir = tmp_path / "ld"
    proc = subprocess.run([sys.executable, "-m", "tfdbg_tui", "run", "--logdir", str(logdir),
                           "--", str(script), "--steps", "2"],
                          capture_output=True, text=True, cwd=ROOT, env=child_env(),
                          timeout=HANG_GUARD)
    assert proc.returncode == 4, proc.stderr[-2000:]
    assert "ran ['--steps', '2'] 3.0" in proc.stdout, proc.stdout
    assert any(logdir.glob("tfdbg_events.*.execution"))


def test_a_module_of_the_working_directory_runs_as_python_m_runs_it(tmp_path: Path) -> None:
    """`tfdbg-tui run -- -m pkg.train` from the folder holding `pkg`, through the installed
    console script, as a user types it (held-out check of issue 31): `python -m pkg.train`
    finds it (the working directory is first on sys.path), `run` said "cannot find module
    'pkg.train': No module named 'pkg'" — it looked before putting the working directory
    there, where the console script's folder was."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "train.py").write_text("import sys\nimport tensorflow as tf\n"
                                  "print('ran', __name__, sys.argv[1:], "
                                  "float(tf.reduce_sum(tf.ones(2))))\n")
    logdir = tmp_path / "ld"
    script = Path(sys.executable).parent / "tfdbg-tui"
    proc = subprocess.run([str(script), "run", "--logdir", str(logdir), "--", "-m",
                           "pkg.train", "--steps", "1"],
                          capture_output=True, text=True, cwd=tmp_path, env=child_env(),
                          timeout=HANG_GUARD)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "ran __main__ ['--steps', '1'] 2.0" in proc.stdout, proc.stdout
    assert any(logdir.glob("tfdbg_events.*.execution"))
