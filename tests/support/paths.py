"""Where the project and the test programs are, and how child TensorFlow processes run."""

from __future__ import annotations

import os
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
    """Run tests/programs/tf_program.py in its own process (forked from one that imported
    TensorFlow already: support.tf_fork); fail the test with its output if it fails."""
    from support.tf_fork import run_program

    status, output = run_program([PROGRAMS / "tf_program.py", logdir, mode, kind,
                                  "--buffer", str(buffer)])
    if status != 0:
        pytest.fail(f"tf_program {kind} {mode} failed (status {status}):\n{output[-3000:]}")
