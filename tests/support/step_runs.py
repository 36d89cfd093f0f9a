"""Training runs whose first NaN/∞ is in a step known by construction (tests/programs/
step_program.py: one bad batch fed at a chosen step), recorded once per test run.

Tiny on purpose (a 3→1 linear model, a handful of steps), each run a child forked from one
that imported TensorFlow already (support.tf_fork): the import was most of its cost.
"""

from __future__ import annotations

import pytest

from support.paths import PROGRAMS
from support.recordings import recorded_program

# form → (bad step, steps): the bad step differs per form, so a test cannot pass by
# finding one fixed number; fit runs 4 batches an epoch (step 5 = epoch 1, batch 1)
RUNS = {"eager": (2, 5), "function": (3, 5), "fit": (5, 8), "session": (2, 4)}


def step_logdir(tmp_path_factory: pytest.TempPathFactory, form: str,
                mode: str = "FULL_HEALTH") -> str:
    """Path of the logdir of `form` (see RUNS), written once per test run."""
    pytest.importorskip("tensorflow")
    bad, steps = RUNS[form]

    return recorded_program(tmp_path_factory, f"steps-{form}-{mode.lower()}",
                            PROGRAMS / "step_program.py", form, bad, "--steps", steps,
                            "--mode", mode)
