"""Training steps of a run that accumulates gradients over micro-batches (issue 29).

A step is an update of the trained variables: the `Session.run`s that only add a
micro-batch's gradients into accumulators belong to the step whose update follows them.
tests/programs/accum_step_program.py makes micro-batch 5 of 8 overflow (2 a step, 4 updates):
the first alert must be in step 2 of 4 — it was said to be in step 5 of 8, one step per
gradient run.
"""

from __future__ import annotations

import numpy as np
import pytest
from support.paths import PROGRAMS
from support.recordings import recorded_program

from reader import open_logdir
from reader.diagnosis.step_model import SESSION, alerts_per_step
from reader.diagnosis.steps import training_steps

BAD, STEPS, MICRO = 5, 4, 2


@pytest.fixture(scope="module")
def accumulated(tmp_path_factory: pytest.TempPathFactory) -> str:
    pytest.importorskip("tensorflow")

    return recorded_program(tmp_path_factory, "steps-accumulated",
                            PROGRAMS / "accum_step_program.py", BAD, "--steps", STEPS)


def test_micro_batches_fold_into_the_update_they_precede(accumulated: str) -> None:
    logdir = open_logdir(accumulated)
    steps = training_steps(logdir)
    assert steps.form == SESSION
    assert steps.count == STEPS
    alerts = logdir.alerts()
    assert len(alerts)
    first = steps.step_of(int(alerts.kind[0]), int(alerts.index[0]))
    assert first == BAD // MICRO
    per_step = alerts_per_step(steps, np.asarray(alerts.kind), np.asarray(alerts.index))
    assert per_step[:first].sum() == 0
    assert (per_step[first:] > 0).all()  # the weights are NaN from that update on
    assert steps.describe(first) == f"step {BAD // MICRO} of {STEPS} (Session.run)"
