"""Keras 3 training runs, one per optimizer and form, whose first NaN/∞ is in a step known by
construction (tests/programs/optimizer_step_program.py: one bad batch fed at a chosen step),
recorded once per test run.

Each is a child forked from a process that imported TensorFlow already (support.tf_fork); a
2-layer model of 21 weights and a handful of steps, so a run takes a second or two.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from support.paths import PROGRAMS
from support.recordings import recorded_program


@dataclass(frozen=True)
class Run:
    optimizer: str
    form: str  # eager | function | fit_accum | two_functions
    bad: int  # the bad batch (a micro-batch in the accumulating forms)
    steps: int  # training steps (updates of the weights)
    setup: str = "fresh"  # fresh | made_before | restored (see the program's docstring)

    @property
    def name(self) -> str:
        tail = "" if self.setup == "fresh" else f"-{self.setup}"
        return f"{self.optimizer}-{self.form}{tail}"

    @property
    def step(self) -> int:
        """The step of the first NaN/∞: the bad batch's, 2 micro-batches a step when
        accumulating (the update that applies the bad gradients is that step's)."""
        return self.bad // 2 if self.form in ("fit_accum", "two_functions") else self.bad


# the bad step differs between runs, so no fixed step number passes them all
EAGER = [Run(o, "eager", bad, 5) for o, bad in (
    ("sgd", 1), ("sgd_momentum", 2), ("sgd_nesterov", 3), ("adam", 2), ("adamw", 3),
    ("rmsprop", 1), ("adagrad", 2), ("adamax", 3), ("nadam", 2), ("lion", 1), ("ftrl", 3),
    ("adadelta", 2), ("lso", 2))]
FUNCTION = [Run(o, "function", bad, 5) for o, bad in (
    ("sgd_momentum", 3), ("adamw", 2), ("ftrl", 1), ("lso", 3))]
ACCUMULATED = [Run("sgd_momentum", "fit_accum", 3, 3), Run("adam", "two_functions", 4, 3)]
# variables whose values were not recorded (made before dumping), or set again before the
# first step (a restore: writes that are no step's)
SETUPS = [Run("sgd", "eager", 2, 5, "made_before"), Run("ftrl", "eager", 1, 5, "made_before"),
          Run("sgd", "eager", 3, 5, "restored"), Run("adamw", "function", 2, 5, "restored")]
RUNS = {r.name: r for r in EAGER + FUNCTION + ACCUMULATED + SETUPS}


def optimizer_logdir(tmp_path_factory: pytest.TempPathFactory, run: Run) -> str:
    """Path of `run`'s logdir, written once per test run."""
    pytest.importorskip("tensorflow")

    return recorded_program(tmp_path_factory, f"optimizer-steps-{run.name}",
                            PROGRAMS / "optimizer_step_program.py", run.optimizer, run.form,
                            run.bad, "--steps", run.steps, "--setup", run.setup)
