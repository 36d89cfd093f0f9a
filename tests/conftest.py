"""Shared fixtures: real logdirs written by real TensorFlow programs, once per session.

Each logdir is written by a fresh Python process running `tests/programs/tf_program.py`, so
TensorFlow's global dumping state never leaks between logdirs or into the test process.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PROGRAMS = Path(__file__).resolve().parent / "programs"


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


@pytest.fixture(scope="session")
def make_tf_logdir(tmp_path_factory: pytest.TempPathFactory) -> Callable[..., str]:
    """Factory: make_tf_logdir(kind, mode="FULL_HEALTH") → path of a logdir TF wrote.

    Kinds (see tests/programs/tf_program.py): eager, function, nested, keras, mlp (the
    reference NaN case), nan_graph. Results are cached for the session.
    """
    pytest.importorskip("tensorflow")
    cache: dict[tuple[str, str, int], str] = {}

    def make(kind: str, mode: str = "FULL_HEALTH", buffer: int = -1) -> str:
        key = (kind, mode, buffer)
        if key not in cache:
            d = tmp_path_factory.mktemp(f"{kind}-{mode.lower()}")
            run_tf_program(d, mode, kind, buffer)
            cache[key] = str(d)
        return cache[key]

    return make


@pytest.fixture(scope="session")
def reference_logdir(make_tf_logdir: Callable[..., str]) -> str:
    """The reference bug of JOURNEY.md: hand-written cross entropy, Log produces −∞."""
    return make_tf_logdir("mlp", "FULL_HEALTH")
