"""`tfdbg-tui LOGDIR`: bad paths end in one line on stderr and exit status 2."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from support.slowdown import guard

from tfdbg_tui.commands.open import main


@pytest.mark.parametrize("make", ["missing", "empty", "file"])
def test_bad_logdir_is_one_line_and_exit_2(tmp_path: Path, make: str,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "x"
    if make == "empty":
        target.mkdir()
    elif make == "file":
        target.write_text("not a logdir")
    assert main([str(target)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tfdbg-tui: error: ") and err.count("\n") == 1
    assert "Traceback" not in err


def test_bad_arguments_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert main(["a", "--bogus"]) == 2
    assert "Traceback" not in capsys.readouterr().err


def test_cli_routes_to_open(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "tfdbg_tui", str(tmp_path / "nope")],
                          capture_output=True, text=True, timeout=guard(60))
    assert proc.returncode == 2
    assert proc.stderr.startswith("tfdbg-tui: error:") and proc.stderr.count("\n") == 1


def test_run_ids_from_the_logdir_reach_stderr_sanitized(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    """Run ids are the logdir's data: one holding OSC 52 and ESC[2J, another a newline,
    listed by the error for an unknown `--run`, stay one line with no raw control."""
    from hostile.checks import assert_no_raw_controls
    from hostile.corpus_text import run_ids_escape

    run_ids_escape(tmp_path)
    assert main([str(tmp_path), "--run", "nope\x1b[31m"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tfdbg-tui: error: ") and err.count("\n") == 1, err
    assert_no_raw_controls(err, "stderr")


@pytest.mark.parametrize("stdin", ["devnull", "pipe"])
def test_without_a_terminal_one_line_points_to_report(reference_logdir: str,
                                                      stdin: str) -> None:
    """`tfdbg-tui LOGDIR </dev/null`, `| head`, a cron job: no full-screen escape codes into a
    pipe and no wait for keys that never come, but one line naming `tfdbg-tui report`."""
    from hostile.checks import HANG_GUARD, child_env

    try:
        cmd = [sys.executable, "-m", "tfdbg_tui", reference_logdir]
        if stdin == "devnull":
            proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True,
                                  env=child_env(), timeout=HANG_GUARD)
        else:
            proc = subprocess.run(cmd, input=b"", capture_output=True, env=child_env(),
                                  timeout=HANG_GUARD)
    except subprocess.TimeoutExpired:
        pytest.fail("the app waited for a terminal that is not there")
    err = proc.stderr.decode()
    assert proc.returncode == 2, err
    assert err.count("\n") == 1 and f"tfdbg-tui report {reference_logdir}" in err, err
    assert proc.stdout == b""  # nothing written into the pipe
