"""The NaN journey held out, third corpus: a learning rate that makes the training diverge,
set by the user's own schedule code in the three places a user writes one, recorded with
`tfdbg-tui run -- PROGRAM` and read with `tfdbg-tui report --json` (issue 31).

tests/programs/heldout_nan3/ holds them; in each the line to change is the schedule's, not
the line that hands the rate to TensorFlow:
- fit_lr_callback: a `LearningRateScheduler` callback in `fit` whose function divides by
  0.1 where it meant to multiply (Keras' callback assigns the rate, eagerly, each epoch);
- warmup_class_fn: a `LearningRateSchedule` subclass whose `__call__` caps the warm-up with
  `tf.maximum`, not `tf.minimum`, run by the optimizer inside a tf.function step;
- helper_rate_eager: a plain-Python helper `BASE·e^(DECAY·s)` (the minus sign lost) whose
  value an eager loop assigns to `opt.learning_rate` before each step.
Written after the first contact and the fix (a36cef2), unlike the programs it was made on:
- step_class_eager: a `LearningRateSchedule` subclass run eagerly (a step decay by 2.0 that
  doubles);
- fit_lambda_callback: a `LearningRateScheduler` given a lambda inside the fit call.
First contact with them (HEAD 8161193): step, incident, origin, cause right in both; the line
and its code right in both; the lambda's function said '<lambda>', where the zoo's
convention (and Source Code) name the def that holds the line, `main`. Fixed since
(`rate_code._holder`: a lambda's line is named by its def; the text says "a lambda").
Each program's `proof` (numpy, float32) shows the step whose squared error overflows; its
EXPECT header and `# FIX` line say the origin op, the cause and the line to change. STEP and
the headers were written (and committed, 684d3ef) before the tool ran on any of them.

First contact (report --json, before any change): the step right in 3 of 3, one incident in
the bad step in 3, origin (Square) and cause (divergence, learning rate) right in 3; the line
to change wrong in 3 — the line that handed the rate to TensorFlow, never the schedule's:
- fit_lr_callback: `model.fit(…)` (the callback's eager assignment's only user frame);
- warmup_class_fn: `opt.apply_gradients(…)`, "Lower the learning rate" with no place: the
  rate's ops are no variable read and were made by no Keras schedule file;
- helper_rate_eager: `opt.learning_rate = decayed_rate(step)`, not the helper's `return`.
Fixed since by `reader.diagnosis.rate_code`: the callback's function and the assigned
helper found in the source from the rate's write, the schedule class's `__call__` from the
rate op's stack (user code under the optimizer's).
"""

from __future__ import annotations

import math
import sys
from typing import Any

import pytest
from heldout_support import HeldOut
from support.paths import PROGRAMS

pytestmark = pytest.mark.tf

HELDOUT = PROGRAMS / "heldout_nan3"
# the step (0-based) of each program's first NaN/∞, as its `proof` shows
STEP = {"fit_lr_callback": 31, "warmup_class_fn": 27, "helper_rate_eager": 24,
        # written after the first contact, unlike the ones the fix was made on
        "step_class_eager": 23, "fit_lambda_callback": 31}
# what the tool says instead, where it is still wrong (strict: a fix makes them fail)
WRONG: dict[tuple[str, str], str] = {}

CORPUS = HeldOut(HELDOUT, "heldout-nan3", STEP, WRONG)
F32_MAX = 3.4028235e38


def _import(name: str) -> Any:
    sys.path.insert(0, str(HELDOUT))
    try:
        return __import__(name)
    finally:
        sys.path.remove(str(HELDOUT))


@pytest.mark.parametrize("name", sorted(STEP))
def test_the_numpy_proofs(name: str) -> None:
    """The step whose squared error overflows float32, from the data, the schedule and SGD
    replayed in numpy; finite rates all along (the rate is too large, not ∞)."""
    assert sorted(p.stem for p in HELDOUT.glob("*.py")) == sorted(STEP)
    m = _import(name)
    errs, rates = m.proof()
    s = m.OVERFLOW
    assert len(errs) == s + 1 and s == STEP[name]
    assert errs[s - 1] ** 2 < F32_MAX < errs[s] ** 2
    assert all(math.isfinite(r) and r > 0 for r in rates)
    assert rates[s] > 5 * rates[0]  # the schedule made it grow


# the step, one incident per origin, the origin, cause and line (heldout_support.HeldOut)
(test_the_first_alert_is_in_the_step_that_went_bad, test_one_incident_per_origin,
 test_the_origin_cause_and_line_to_fix) = CORPUS.journey_tests()


def test_an_eager_loop_is_named_as_the_user_wrote_it(
        tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]) -> None:
    """helper_rate_eager trains in a `for` loop of `main`, no step function: its steps are
    "eager loop in main" (as the others read "tf.function train_step call", "fit epoch 7,
    batch 3"), not "eager main", which reads as a function named main being the step."""
    rep = CORPUS.report(tmp_path_factory, capsys, "helper_rate_eager")
    assert rep["steps"]["first_alert_form"] == "eager loop in main", rep["steps"]
    assert rep["first_alerts"][0]["step_form"] == "eager loop in main"
    fit = CORPUS.report(tmp_path_factory, capsys, "fit_lr_callback")
    assert fit["steps"]["first_alert_form"] == "fit epoch 7, batch 3", fit["steps"]

