"""Training steps whatever optimizer trained the run (issue 31: steps for every alert).

A step is an update of every trained variable, whichever op writes it: Keras 3 optimizers
update with AssignAddVariableOp (SGD with momentum, Adadelta), AssignSubVariableOp (Adam,
…) or a plain AssignVariableOp (Ftrl), and keep their own state (slots, the iteration
count, a loss scale) in variables written once a step too. An eager `train_step` with SGD
and momentum had no steps at all; AdamW (weight decay, then the update: two writes a step)
had twice its steps. Gradients accumulated over micro-batches (Keras' fit with
`gradient_accumulation_steps`, two tf.functions accumulate/apply) made a step of every call,
not of every update. Writes that are no update — a variable's initial value, weights set
again before the first step (a restore) — must not count as steps, and variables made
before dumping started (no initial value recorded) must still give their steps.
tests/programs/optimizer_step_program.py feeds one bad batch at a chosen step (its loss
overflows; the program checks every loss before it is finite), so `report --json` must name
that step for the first alert, and count the run's steps.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest
from support.optimizer_runs import (
    ACCUMULATED,
    EAGER,
    FUNCTION,
    RUNS,
    SETUPS,
    Run,
    optimizer_logdir,
)

from reader import open_logdir
from reader.diagnosis.step_model import EAGER_STEP, FIT, alerts_per_step
from reader.diagnosis.step_model import FUNCTION as CALLED
from reader.diagnosis.steps import training_steps
from tfdbg_tui.commands import report

FORMS = {"eager": EAGER_STEP, "function": CALLED, "fit_accum": FIT, "two_functions": CALLED}


def run_json(path: str, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    report.main([path, "--json"])
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    return out


@pytest.mark.parametrize("run", [*EAGER, *FUNCTION, *ACCUMULATED, *SETUPS],
                         ids=lambda r: r.name)
def test_report_names_the_bad_step(tmp_path_factory: pytest.TempPathFactory,
                                   capsys: pytest.CaptureFixture[str], run: Run) -> None:
    path = optimizer_logdir(tmp_path_factory, run)
    rep = run_json(path, capsys)
    assert (rep["first_alerts"][0]["step"], rep["steps"]["count"]) == (run.step, run.steps)
    assert rep["steps"]["form"] == FORMS[run.form]
    logdir = open_logdir(path)
    steps = training_steps(logdir)
    alerts = logdir.alerts()
    per_step = alerts_per_step(steps, np.asarray(alerts.kind), np.asarray(alerts.index))
    assert per_step[:run.step].sum() == 0  # the steps before the bad batch are clean
    assert per_step[run.step] > 0


@pytest.mark.parametrize("name", ["lso-eager", "lso-function"])
def test_a_skipped_loss_scaled_step_is_a_step(tmp_path_factory: pytest.TempPathFactory,
                                              name: str) -> None:
    """A LossScaleOptimizer skips the bad step (its gradients are not finite: no weight is
    updated) and lowers the scale: the steps after it are clean, and still steps of their
    own. Only the bad step holds alerts."""
    run = RUNS[name]
    logdir = open_logdir(optimizer_logdir(tmp_path_factory, run))
    steps = training_steps(logdir)
    alerts = logdir.alerts()
    per_step = alerts_per_step(steps, np.asarray(alerts.kind), np.asarray(alerts.index))
    assert steps.count == run.steps
    assert per_step[run.step] > 0 and per_step.sum() == per_step[run.step]
