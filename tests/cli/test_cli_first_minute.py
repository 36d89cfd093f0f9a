"""The command line as a new user meets it (issue 19, points 7 and 9).

A user types `tfdbg-tui LOGDIR --help` after the logdir, mistypes an option, or asks for a
negative `--limit`; each gets a plain answer. A program that turned dumping on and ran no
TensorFlow op (it failed before its first step) leaves a valid logdir with nothing in it:
`report` must say that nothing was recorded — exit status 2, as for an unreadable logdir —
never "no NaN/∞ found" with exit 0, which reads as "the run was clean".
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from support.paths import ROOT, tf_env
from support.slowdown import guard

from tfdbg_tui.commands.open import main as open_main
from tfdbg_tui.commands.report import main as report_main


def test_help_after_the_logdir_prints_usage(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert open_main(["/some/logdir", "--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: tfdbg-tui LOGDIR") and "--compare B" in out


@pytest.mark.parametrize("args", [["--bogus"], ["/some/logdir", "--bogus"],
                                  ["/some/logdir", "--bogus=3"]])
def test_an_unknown_option_is_named(args: list[str],
                                    capsys: pytest.CaptureFixture[str]) -> None:
    assert open_main(args) == 2
    err = capsys.readouterr().err
    first = err.splitlines()[0]
    assert first == ("tfdbg-tui: error: unknown option --bogus "
                     "(see tfdbg-tui LOGDIR --help)")
    assert "required" not in err  # not "the following arguments are required: logdir"


def test_negative_numbers_are_values_not_options(capsys: pytest.CaptureFixture[str]) -> None:
    assert open_main(["/no/such/logdir", "--rtol", "-1"]) == 2
    assert "unknown option" not in capsys.readouterr().err  # the tolerance is refused


def test_report_refuses_a_negative_limit(reference_logdir: str,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    assert report_main([reference_logdir, "--limit", "-1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--limit" in err and "-1" in err


@pytest.fixture(scope="module")
def noop_logdir(make_tf_logdir: Callable[..., str]) -> str:
    return make_tf_logdir("noop", "FULL_HEALTH")


@pytest.mark.tf
@pytest.mark.parametrize("as_json", [False, True])
def test_report_on_a_run_that_recorded_nothing(noop_logdir: str, as_json: bool) -> None:
    args = [sys.executable, "-m", "tfdbg_tui", "report", noop_logdir]
    proc = subprocess.run(args + (["--json"] if as_json else []), cwd=ROOT,
                          capture_output=True, text=True, timeout=guard(120))
    assert proc.returncode == 2
    assert "nothing was recorded" in proc.stderr and proc.stderr.count("\n") == 1
    assert "no NaN" not in proc.stdout + proc.stderr
    if as_json:
        assert proc.stdout == ""  # no report object claiming "total": 0
    with pytest.raises(json.JSONDecodeError):
        json.loads(proc.stdout or "")


@pytest.mark.tf
def test_report_into_a_pipe_is_not_padded(reference_logdir: str) -> None:
    proc = subprocess.run([sys.executable, "-m", "tfdbg_tui", "report", reference_logdir],
                          cwd=ROOT, capture_output=True, text=True, timeout=guard(120))
    assert proc.returncode == 1  # the reference run has alerts
    lines = proc.stdout.splitlines()
    assert len(lines) > 5
    assert not [ln for ln in lines if ln != ln.rstrip()]  # no trailing padding to 80 columns


@pytest.mark.tf
def test_demo_records_without_tensorflows_start_up_chatter(tmp_path: Path) -> None:
    env = tf_env()
    env["XDG_CACHE_HOME"] = str(tmp_path)
    proc = subprocess.run([sys.executable, "-m", "tfdbg_tui", "demo", "--no-open"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=guard(600))
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "dump written" in proc.stderr and "step 2: loss nan" in proc.stdout + proc.stderr
    assert "absl::InitializeLog" not in proc.stderr
    assert not [ln for ln in proc.stderr.splitlines() if ln.startswith("I0000")]


@pytest.mark.tf
def test_report_lines_keep_their_indent_when_they_wrap(demo_report: str) -> None:
    lines = demo_report.splitlines()
    start = next(k for k, ln in enumerate(lines) if ln.startswith("First "))
    block = []
    for ln in lines[start + 1:]:
        if not ln.strip():
            break
        block.append(ln)
    assert len(block) > 10
    assert all(ln.startswith("  ") for ln in block), [ln for ln in block
                                                       if not ln.startswith("  ")]
    assert not any(" 1 elements" in ln for ln in block)  # "1 element"


@pytest.fixture(scope="module")
def demo_report(reference_logdir: str) -> str:
    proc = subprocess.run([sys.executable, "-m", "tfdbg_tui", "report", reference_logdir,
                           "--limit", "5"], cwd=ROOT, capture_output=True, text=True,
                          timeout=guard(120))
    assert proc.returncode == 1
    return proc.stdout
