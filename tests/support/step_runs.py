"""Training runs whose first NaN/∞ is in a step known by construction (tests/programs/
step_program.py: one bad batch fed at a chosen step), recorded once per test run.

Tiny on purpose (a 3→1 linear model, a handful of steps): each run costs a TensorFlow start.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from support.paths import PROGRAMS, tf_env
from support.shared import build_once, shared_root

# form → (bad step, steps): the bad step differs per form, so a test cannot pass by
# finding one fixed number; fit runs 4 batches an epoch (step 5 = epoch 1, batch 1)
RUNS = {"eager": (2, 5), "function": (3, 5), "fit": (5, 8), "session": (2, 4)}


def step_logdir(tmp_path_factory: pytest.TempPathFactory, form: str,
                mode: str = "FULL_HEALTH") -> str:
    """Path of the logdir of `form` (see RUNS), written once per test run."""
    pytest.importorskip("tensorflow")
    bad, steps = RUNS[form]

    def build(d: Path) -> str:
        proc = subprocess.run([sys.executable, str(PROGRAMS / "step_program.py"), str(d), form,
                               str(bad), "--steps", str(steps), "--mode", mode],
                              env=tf_env(), capture_output=True, text=True, timeout=600)
        if proc.returncode != 0:
            pytest.fail(f"step_program {form} failed:\n{proc.stderr[-3000:]}")
        return str(d)

    return build_once(shared_root(tmp_path_factory), f"steps-{form}-{mode.lower()}", build)
