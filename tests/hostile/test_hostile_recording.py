"""`tfdbg-tui run` on programs that fight the recording: one that forks, one that swallows
every exception (so `--stop-at-nan` cannot stop it by raising).

TensorFlow's own reader (tests/support/tf_oracle.py) and ours must both read the dump whole.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hostile.checks import run_report, strict_json
from support.paths import ROOT, tf_env
from support.tf_oracle import tf_oracle

pytestmark = pytest.mark.tf
pytest.importorskip("tensorflow")

PROGRAMS = Path(__file__).parent / "programs"


def run(logdir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tfdbg_tui", "run", "--logdir", str(logdir),
                           *args], cwd=ROOT, env=tf_env(), stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=600)


# The parent runs 2 × 20 × (Sqrt, AddV2) eager ops; the child's 7 × (Sqrt, Mul) are not
# recorded. With a circular buffer, the child's copy of the buffer must not be written out.
@pytest.mark.parametrize(("buffer", "executions"), [(-1, 80), (30, 30)])
def test_forking_program_leaves_one_intact_dump(tmp_path: Path, buffer: int,
                                                executions: int) -> None:
    done = run(tmp_path / "ld", "--buffer", str(buffer), "--", str(PROGRAMS / "forking.py"))
    assert done.returncode == 0, done.stderr[-3000:]
    assert "child done: [9.0]" in done.stdout and "parent done" in done.stdout
    assert done.stderr.count("dump written") == 1, done.stderr[-3000:]
    r = run_report(["--json", str(tmp_path / "ld")])
    assert r.status == 0, r.stderr
    report = strict_json(r.stdout)
    assert report["warnings"] == []
    assert report["counts"]["executions"] == executions
    oracle = tf_oracle(str(tmp_path / "ld"))
    assert oracle["counts"]["executions"] == executions
    assert oracle["counts"]["source_files"] == report["counts"]["source_files"]
    assert oracle["counts"]["stack_frames"] == report["counts"]["stack_frames"]


def test_stop_at_nan_survives_except_base_exception(tmp_path: Path) -> None:
    done = run(tmp_path / "ld", "--stop-at-nan", "--", str(PROGRAMS / "swallow.py"))
    assert done.returncode == 3, (done.returncode, done.stdout, done.stderr[-3000:])
    assert "attempt" not in done.stdout and "program finished" not in done.stdout
    assert ("stopped at the first NaN/∞: Log (eager) produced −∞ in 1 of 2 elements (the "
            "program caught the stop and went on; ended at its next TensorFlow op)"
            in done.stderr), done.stderr[-3000:]
    assert done.stderr.count("dump written") == 1
    assert "Traceback" not in done.stderr
    r = run_report(["--json", str(tmp_path / "ld")])
    assert r.status == 1, r.stderr
    report = strict_json(r.stdout)
    assert report["first_alerts"][0]["op_type"] == "Log"
    assert report["counts"]["executions"] == 1  # nothing after the stop is recorded
    assert tf_oracle(str(tmp_path / "ld"))["counts"]["executions"] == 1


def test_stop_swallowed_then_program_ends(tmp_path: Path) -> None:
    done = run(tmp_path / "ld", "--stop-at-nan", "--", str(PROGRAMS / "swallow.py"), "quiet")
    assert done.returncode == 3, (done.returncode, done.stdout, done.stderr[-3000:])
    assert "program finished" in done.stdout
    assert ("stopped at the first NaN/∞: Log (eager) produced −∞ in 1 of 2 elements (the "
            "program caught the stop and ran on to its end, unrecorded)" in done.stderr)
    assert done.stderr.count("dump written") == 1
    assert "Traceback" not in done.stderr
