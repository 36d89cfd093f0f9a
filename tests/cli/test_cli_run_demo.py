"""`tfdbg-tui run` / `demo` argument handling and one-line errors (no TensorFlow needed).

Every case here fails before TensorFlow would be imported, so they run in-process.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest
from support.paths import ROOT
from support.slowdown import guard

from tfdbg_tui.commands import demo as demo_cmd
from tfdbg_tui.commands import run as run_cmd


def test_parse_forms() -> None:
    o = run_cmd.parse(["--logdir", "/d", "--mode=SHAPE", "--buffer", "5", "--", "t.py", "-x"])
    assert (o.logdir, o.mode, o.buffer, o.script, o.program_args) == (
        "/d", "SHAPE", 5, "t.py", ["-x"])
    o = run_cmd.parse(["--", "python3", "-m", "pkg.mod", "--steps", "3"])
    assert (o.module, o.program_args, o.logdir) == ("pkg.mod", ["--steps", "3"],
                                                    "/tmp/tfdbg2_logdir")
    o = run_cmd.parse(["--stop-at-nan", "--overwrite", "--op-regex", "^Log$", "train.py"])
    assert o.stop_at_nan and o.overwrite and o.op_regex == "^Log$" and o.script == "train.py"
    o = run_cmd.parse(["--", "/usr/bin/python", "python_tools.py"])
    assert o.script == "python_tools.py"


@pytest.mark.parametrize(("args", "message"), [
    ([], "no program to run"),
    (["--bogus", "--", "x.py"], "unknown option --bogus"),
    (["--buffer", "many", "--", "x.py"], "--buffer needs an integer"),
    (["--logdir"], "--logdir needs a value"),
    (["--", "python", "-u", "x.py"], "interpreter option -u"),
    (["--", "-m"], "-m needs a module name"),
    (["--", "/nonexistent/x.py"], "can't open file"),
    (["--", "-m", "no_such_module_xyz"], "no module named 'no_such_module_xyz'"),
])
def test_usage_errors_are_one_line(capsys: pytest.CaptureFixture[str], args: list[str],
                                   message: str) -> None:
    assert run_cmd.main(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("tfdbg-tui: error: ") and message in err


def _script(tmp_path: Path) -> str:
    script = tmp_path / "prog.py"
    script.write_text("print('hi')\n")
    return str(script)


def test_bad_mode_logdir_and_existing_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                          ) -> None:
    script = _script(tmp_path)
    assert run_cmd.main(["--mode", "LOUD", "--logdir", str(tmp_path / "l"), "--", script]) == 2
    assert "unknown debug mode 'LOUD'" in capsys.readouterr().err
    assert run_cmd.main(["--logdir", script, "--", script]) == 2
    assert "is a file, not a directory" in capsys.readouterr().err
    assert run_cmd.main(["--stop-at-nan", "--mode", "SHAPE", "--logdir", str(tmp_path / "l"),
                         "--", script]) == 2
    assert "needs a mode that sees values" in capsys.readouterr().err
    taken = tmp_path / "taken"
    taken.mkdir()
    (taken / "tfdbg_events.1700000000.host.metadata").write_bytes(b"")
    assert run_cmd.main(["--logdir", str(taken), "--", script]) == 2
    err = capsys.readouterr().err
    assert "already holds a run (tfdbg_events.1700000000.host)" in err and "--overwrite" in err
    assert err.count("\n") == 1


def test_run_help() -> None:
    proc = subprocess.run([sys.executable, "-m", "tfdbg_tui", "run", "--help"], cwd=ROOT,
                          capture_output=True, text=True, timeout=guard(60))
    assert proc.returncode == 0 and "--stop-at-nan" in proc.stdout


def test_demo_without_tensorflow(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    real = importlib.util.find_spec

    def find_spec(name: str, package: str | None = None) -> object:
        return None if name == "tensorflow" else real(name, package)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)  # stdlib, not our code
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert demo_cmd.main(["--no-open"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pip install 'tfdbg-tui[tf]'" in err
    assert demo_cmd.cache_dir() == str(tmp_path / "tfdbg-tui" / "demo")
    assert demo_cmd.main(["--bogus"]) == 2
