"""Training runs whose first NaN/∞ is in a step known by construction (tests/programs/
step_program.py: one bad batch fed at a chosen step), recorded once per test run.

Tiny on purpose (a 3→1 linear model, a handful of steps), each run a child forked from one
that imported TensorFlow already (support.tf_fork): the import was most of its cost.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from support.paths import PROGRAMS
from support.shared import build_once, shared_root
from support.tf_fork import run_program

# form → (bad step, steps): the bad step differs per form, so a test cannot pass by
# finding one fixed number; fit runs 4 batches an epoch (step 5 = epoch 1, batch 1)
RUNS = {"eager": (2, 5), "function": (3, 5), "fit": (5, 8), "session": (2, 4)}


def step_logdir(tmp_path_factory: pytest.TempPathFactory, form: str,
                mode: str = "FULL_HEALTH") -> str:
    """Path of the logdir of `form` (see RUNS), written once per test run."""
    pytest.importorskip("tensorflow")
    bad, steps = RUNS[form]

    def build(d: Path) -> str:
        status, output = run_program([PROGRAMS / "step_program.py", d, form, str(bad),
                                      "--steps", str(steps), "--mode", mode])
        if status != 0:
            pytest.fail(f"step_program {form} failed (status {status}):\n{output[-3000:]}")
        return str(d)

    return build_once(shared_root(tmp_path_factory), f"steps-{form}-{mode.lower()}", build)
