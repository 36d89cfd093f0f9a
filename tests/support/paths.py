"""Where the project and the test programs are, and how child TensorFlow processes run."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROGRAMS = ROOT / "tests" / "programs"


def tf_env() -> dict[str, str]:
    """Environment for child TF processes: quiet, CPU only, our packages importable."""
    env = dict(os.environ)
    env["TF_CPP_MIN_LOG_LEVEL"] = "3"
    env["CUDA_VISIBLE_DEVICES"] = ""
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH", "")]))
    return env


def run_tf_program(logdir: Path, mode: str, kind: str, buffer: int = -1) -> None:
    """Run one of the test programs; fail the test with its stderr if it fails."""
    proc = subprocess.run(
        [sys.executable, str(PROGRAMS / "tf_program.py"), str(logdir), mode, kind,
         "--buffer", str(buffer)],
        env=tf_env(), capture_output=True, text=True, timeout=600,
    )
    if proc.returncode != 0:
        pytest.fail(f"tf_program {kind} {mode} failed:\n{proc.stderr[-3000:]}")
