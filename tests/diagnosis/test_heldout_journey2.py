"""The NaN journey held out, second corpus: eleven NaN programs of a new user's whose NaN or
∞ is born where the first corpus never looked, recorded with `tfdbg-tui run -- PROGRAM` and
read with `tfdbg-tui report --json` (issue 31).

tests/programs/heldout_nan2/ holds them (forms: eager loop, tf.function step, Keras fit):
- inside the optimizer, from finite gradients: RMSprop with rho 1 and epsilon 0 (v stays 0:
  lr·g/√0), Adagrad started at 0 with epsilon 0 on a dead unit (0/√0), a hand-written
  normalized update g/‖g‖ on a batch whose hinge gradient is exactly 0;
- a learning-rate schedule: a hand-written 1/t decay whose divisor is 0 at the end of the
  warm-up (fit), ExponentialDecay with decay_rate 10 for 0.1 (divergence, eager);
- a learning rate assigned before the step's forward pass: `opt.learning_rate = …(1 − s/T)^0.9`
  past T (eager), `lr.assign(…√(1 − s/T))` inside the step function past T;
- a bad batch: the second epoch of a repeating stream in fit, a NaN target fed to a
  tf.function;
- the gradient alone: √ of a zero-length projection in fit, a Charbonnier loss without ε
  in an eager loop.
Each program's `proof` (numpy) shows the step of the first non-finite value and the op;
its EXPECT header and `# FIX` line say the origin op, the cause and the line to change.
STEP, OWN_LINE and the headers were written (and committed, 9c999ee) before the tool ran on
any of them.

First contact (report --json, before any change): the step right in 10 of 11; one incident
in the bad step in 9; origin, cause and line right in 7. Wrong, and fixed at the cause since:
- lr_assign_poly_eager: step 5, not 6. The rate assigned at the top of iteration 6 (before
  its forward pass) was counted in the step before, as everything between an update and the
  next forward pass was (`reader.diagnosis.eager_gaps._set_up`);
- rmsprop_rho_one, adagrad_dead_unit_fn: the line to fix was `opt.apply_gradients`, no
  epsilon named: `optimizer_ops` knew only Adam's √v + ε in a graph, not √(v + ε) nor an
  eager update; and adagrad's two per-variable divisions (truediv, truediv_1) were two
  incidents (`incidents._key`: ops of one type at one line to fix are one incident);
- exp_decay_typo: the line to fix was `opt.apply_gradients`: a rate a Keras schedule computes
  is no variable's read, so the divergence found no learning rate
  (`reader.diagnosis.schedules`: where the schedule was made, from the optimizer's line);
- fit_stream_bad_batch: our FIX mark was on the fit call; the zoo's convention for a fit
  over a dataset (c5_data_keras_fit, and conv_dataset_inf) is the dataset's line, which the
  tool named: the mark was moved.
fit_exp_decay_named and adam_beta2_one_eager were written after, unlike the programs the
fixes were made on (the schedule in fit's graph, passed by name; Adam's √v + ε in an eager
update whose numerator is 0 too); the first also overflowed a second op (MatMul) three steps
later, a second incident until a divergence's overflows became one (`incidents._key`).
"""

from __future__ import annotations

import math
import sys
from itertools import pairwise
from typing import Any

import pytest
from heldout_support import HeldOut
from support.paths import PROGRAMS

pytestmark = pytest.mark.tf

HELDOUT = PROGRAMS / "heldout_nan2"
# the step (0-based) of each program's first NaN/∞, as its `proof` shows
STEP = {"rmsprop_rho_one": 0, "adagrad_dead_unit_fn": 0, "normalized_step_zero_grad": 3,
        "fit_inverse_lr_schedule": 3, "exp_decay_typo": 12, "lr_assign_poly_eager": 6,
        "lr_assign_sqrt_fn": 6, "fit_stream_bad_batch": 4, "fn_fed_nan_label": 3,
        "fit_zero_row_norm": 2, "charbonnier_eager": 4,
        # written after the first contact, unlike the ones their fixes were made on
        "fit_exp_decay_named": 12, "adam_beta2_one_eager": 0}
# what the tool says instead, where it is still wrong (strict: a fix makes them fail)
WRONG: dict[tuple[str, str], str] = {}
# an origin op the user's code did not write (the optimizer's own division): its own line is
# the call that ran it; the FIX line is the optimizer's creation
OWN_LINE = {"rmsprop_rho_one": "opt.apply_gradients(",
            "adagrad_dead_unit_fn": "opt.apply_gradients(",
            "adam_beta2_one_eager": "opt.apply_gradients("}


CORPUS = HeldOut(HELDOUT, "heldout-nan2", STEP, WRONG, OWN_LINE)


def _import(name: str) -> Any:
    sys.path.insert(0, str(HELDOUT))
    try:
        return __import__(name)
    finally:
        sys.path.remove(str(HELDOUT))


def test_the_numpy_proofs() -> None:
    """Which step goes bad, and where, from the data and the training replayed in numpy."""
    assert sorted(p.stem for p in HELDOUT.glob("*.py")) == sorted(STEP)
    m = _import("rmsprop_rho_one")  # step 0: v = 0, finite loss and gradients, lr·g/√0
    assert m.proof() == (STEP["rmsprop_rho_one"], True, True)
    m = _import("adagrad_dead_unit_fn")  # step 0: the dead unit's gradients are exactly 0
    assert m.proof() == ([m.DEAD], True) and STEP["adagrad_dead_unit_fn"] == 0
    m = _import("normalized_step_zero_grad")
    norms = m.proof()
    assert len(norms) == m.BAD + 1 == STEP["normalized_step_zero_grad"] + 1
    assert norms[-1] == 0 and min(norms[:-1]) > 0.05
    m = _import("fit_inverse_lr_schedule")
    rates = m.rates()
    step, losses = m.proof()
    assert step == m.WARMUP == STEP["fit_inverse_lr_schedule"] and math.isinf(rates[step])
    assert max(rates[:step]) <= 1.001 * m.BASE and all(math.isfinite(v) for v in losses)
    m = _import("exp_decay_typo")  # (1.84e19)² is past float32's 3.4e38
    errs, lrs = m.proof()
    s = m.OVERFLOW
    assert len(errs) == s + 1 and s == STEP["exp_decay_typo"]
    assert errs[s - 1] < 2e18 and errs[s] > 1e22 and all(math.isfinite(v) for v in lrs)
    assert all(a < b for a, b in pairwise(errs[3:]))
    for name in ("lr_assign_poly_eager", "lr_assign_sqrt_fn"):
        m = _import(name)
        rates = m.rates()
        step, losses = m.proof()
        assert step == m.BAD == STEP[name] and math.isnan(rates[step]), name
        assert rates[step - 1] == 0 and all(math.isfinite(v) for v in rates[:step])
        assert all(math.isfinite(v) for v in losses), name  # its forward pass too
    m = _import("fit_stream_bad_batch")
    assert m.proof() == [m.BAD] == [STEP["fit_stream_bad_batch"]]
    assert m.BAD >= m.STEPS_PER_EPOCH  # in the second epoch
    m = _import("fn_fed_nan_label")
    assert m.proof() == [m.BAD] == [STEP["fn_fed_nan_label"]]
    m = _import("fit_zero_row_norm")
    assert m.proof() == [m.BAD] == [STEP["fit_zero_row_norm"]]
    m = _import("charbonnier_eager")
    zero, smallest = m.proof()
    assert zero == [m.BAD] == [STEP["charbonnier_eager"]] and smallest > 0.01
    m = _import("fit_exp_decay_named")
    errs = m.proof()
    s = m.OVERFLOW
    assert len(errs) == s + 1 and s == STEP["fit_exp_decay_named"]
    assert errs[s - 1] < 2e18 and errs[s] > 1e22
    assert all(a < b for a, b in pairwise(errs[3:]))
    m = _import("adam_beta2_one_eager")  # no gradient is 0, yet v and Adam's α are
    assert m.proof() == (True, True, True) and STEP["adam_beta2_one_eager"] == 0


# the step, one incident per origin, the origin, cause and line (heldout_support.HeldOut)
(test_the_first_alert_is_in_the_step_that_went_bad, test_one_incident_per_origin,
 test_the_origin_cause_and_line_to_fix) = CORPUS.journey_tests()


@pytest.mark.parametrize("name", sorted(STEP))
def test_every_number_in_a_diagnosis_is_a_row_to_go_to(
        tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str],
        name: str) -> None:
    """Every alert's diagnosis, not only the first ten's (`--limit 1000`)."""
    CORPUS.check_numbers(CORPUS.report(tmp_path_factory, capsys, name, limit=1000))
