"""The NaN journey held out, fourth corpus: seven NaN/∞ of kinds no earlier corpus (zoo, edges,
heldout_nan 1–3) has, written as users write them, recorded with `tfdbg-tui run -- PROGRAM`
and read with `tfdbg-tui report --json` (issue 31).

tests/programs/heldout_nan4/ holds them, across the three forms of a training step:
- fit_remainder_std (`fit`): a hand batch standardization with the unbiased n − 1 variance,
  on arrays one row past a multiple of the batch: the epoch's last batch has one row, 0/0
  (the nearest earlier kind, heldout_nan's fit_stuck_sensor, is a 0 std, not a 0 count);
- fit_relu_scale (`fit`): a calibration layer dividing by relu(s) of a learned scale that
  SGD pushes past 0: x/0 = ±∞;
- kl_zero_target_eager (eager loop): a hand KL Σ p·log(p/q) whose teacher target has a 0;
- reservoir_eager (eager loop): an echo-state reservoir of radius 2 whose state update lost
  its tanh, run on a curriculum of ever longer sequences: the state overflows float32;
- gauss_nll_var_fn (tf.function): a Gaussian NLL whose learned variance is a raw variable
  that a step takes below 0: log of a negative;
- msle_log1p_fn (tf.function): a hand mean squared log error, log1p of a linear prediction
  that a far-out input takes below −1.
Written after the first contact (below), its expectations committed before the tool ran:
- gnn_max_isolated_fn (tf.function): a max aggregation (`unsorted_segment_max`) whose empty
  segment is float32's lowest, −3.4e38, finite: the square downstream overflows, and the
  line to change is the aggregation's (EXPECT fix_op), not the square's.
Each program's `proof` (numpy, float32, the program's own arithmetic and SGD) shows its first
non-finite step; its EXPECT header and `# FIX` line say the origin op, the cause and the line
to change. STEP and the headers were committed before the tool ran on any of them.

First contact (report --json, HEAD 4ceb11c, no change to reader/ or tfdbg_tui/): the step
right in 6 of 6, one incident (in the bad step, holding every alert) in 6 of 6, origin and
cause right in 6 of 6, the line to change (file, function, code) right in 6 of 6: no miss,
no xfail. What it said, in its words:
- fit_remainder_std: RealDiv NaN in 4 of 4, "its divisor …/sub_1:0 holds 1 zero and the
  numerator …/Sum_1:0 holds 4 zeros", step "fit epoch 0, batch 7" (the one-row batch);
- fit_relu_scale: RealDiv ±∞, "its divisor …/Relu:0 holds 1 zero", fit epoch 0, batch 8;
- kl_zero_target_eager: Log −∞, "its input RealDiv:0 (eager #286) holds 1 zero";
- reservoir_eager: MatMul −∞ in 1 of 32 in step 11, but hedged: the constant reservoir U
  (a tf.constant, no recorded op) "was not recorded …, so whether it already held ∞ is not
  known; … if it held finite values, the dot products overflowed float32" — right, though
  its own input h (AddV2, recorded, finite) and the step before say enough to be sure;
- gauss_nll_var_fn: Log NaN, "its input Log/ReadVariableOp:0 holds 1 negative value";
- msle_log1p_fn: Log1p NaN, "its input add:0 holds 1 negative value (… below −1 = NaN)".
The tests can fail: STEP["reservoir_eager"] set to 10 fails the step check.
First contact with gnn_max_isolated_fn (HEAD 0f553fb): the step right (6); origin op and
cause right (Square, "the square overflowed float32"); two misses, strict xfails (WRONG):
- two incidents, not one: Square in step 6 (with the gradient's MatMul ∞ and sgd/Mul) and a
  'variable' ReadVariableOp in step 7, its write (step 6's apply_gradients) not traced to
  step 6's incident;
- the line to change: the square's (83), "its inputs were finite": the finite −3.4e38 the
  empty segment's max made (line 82) is not named as the source (EXPECT fix_op).
Over the seven: step right 7/7, one incident 6/7, origin+cause 7/7, line to change 6/7.
The first is fixed (the walk from step 7's read, in the step's second trace, now goes to
the last write, step 6's update in the first trace; tests/diagnosis/test_retraced_writes.py):
one incident 7/7.
"""

from __future__ import annotations

import math
import sys
from typing import Any

import pytest
from heldout_support import HeldOut
from support.paths import PROGRAMS

pytestmark = pytest.mark.tf

HELDOUT = PROGRAMS / "heldout_nan4"
# the step (0-based) of each program's first NaN/∞, as its `proof` shows
STEP = {"fit_remainder_std": 7, "fit_relu_scale": 8, "kl_zero_target_eager": 5,
        "reservoir_eager": 11, "gauss_nll_var_fn": 25, "msle_log1p_fn": 9,
        # written after the first contact, its expectations committed before the tool ran
        "gnn_max_isolated_fn": 6}
# what the tool says instead, where it is still wrong (strict: a fix makes them fail)
WRONG: dict[tuple[str, str], str] = {
    ("origin", "gnn_max_isolated_fn"):
        "Square at the loss line 83, 'its inputs were finite, so the square overflowed "
        "float32'; no origin.source: the −3.4e38 unsorted_segment_max made (line 82) unnamed",
}

CORPUS = HeldOut(HELDOUT, "heldout-nan4", STEP, WRONG)
F32_MAX = 3.4028235e38


def _import(name: str) -> Any:
    sys.path.insert(0, str(HELDOUT))
    try:
        return __import__(name)
    finally:
        sys.path.remove(str(HELDOUT))


def test_the_corpus_is_its_programs() -> None:
    assert sorted(p.stem for p in HELDOUT.glob("*.py")) == sorted(STEP)
    for name, step in STEP.items():
        assert _import(name).BAD == step, name


@pytest.mark.parametrize("name", ["fit_remainder_std", "kl_zero_target_eager"])
def test_the_numpy_proofs_of_a_bad_batch(name: str) -> None:
    """Every step finite until STEP, whose batch (a one-row remainder; a target with a 0)
    makes the value non-finite, replayed in numpy on the program's data."""
    finite = _import(name).proof()
    assert finite == [True] * STEP[name] + [False]


def test_the_numpy_proof_of_the_relu_scale() -> None:
    """s falls from 1 and a step jumps it past 0 by a margin no rounding closes."""
    m = _import("fit_relu_scale")
    finite, seen = m.proof()
    s = STEP["fit_relu_scale"]
    assert finite == [True] * s + [False]
    assert all(v > 0.2 for v in seen[:s]) and seen[s] < -0.1, seen


def test_the_numpy_proof_of_the_learned_variance() -> None:
    """var decreases from 1 and a step takes it from above 0.05 to below −0.1."""
    finite, seen = _import("gauss_nll_var_fn").proof()
    s = STEP["gauss_nll_var_fn"]
    assert finite == [True] * s + [False]
    assert all(v > 0.05 for v in seen[:s]) and seen[s] < -0.1, seen


def test_the_numpy_proof_of_log1p() -> None:
    """Every prediction above −1 (by a margin) until STEP's far-out row, below −2."""
    finite, lowest = _import("msle_log1p_fn").proof()
    s = STEP["msle_log1p_fn"]
    assert finite == [True] * s + [False]
    assert all(v > -0.5 for v in lowest[:s]) and lowest[s] < -2, lowest


def test_the_numpy_proof_of_the_empty_segment() -> None:
    """Every node has an in-neighbour until STEP's graph; |Σw| stays far below 1, so x·w of
    the empty segment's −3.4e38 is finite and only its square overflows."""
    finite, wsum = _import("gnn_max_isolated_fn").proof()
    s = STEP["gnn_max_isolated_fn"]
    assert finite == [True] * s + [False]
    assert all(v < 0.5 for v in wsum) and wsum[s] > 0.1, wsum


def test_the_numpy_proof_of_the_reservoir() -> None:
    """The state's peak grows ~1000× a step (10 more time steps at radius 2): the step
    before STEP peaks far below float32's range, STEP's overflows."""
    peaks = _import("reservoir_eager").proof()
    s = STEP["reservoir_eager"]
    assert len(peaks) == s + 1 and math.isinf(peaks[s])
    assert all(math.isfinite(p) for p in peaks[:s]) and peaks[s - 1] < F32_MAX / 100


# the step, one incident per origin, the origin, cause and line (heldout_support.HeldOut)
(test_the_first_alert_is_in_the_step_that_went_bad, test_one_incident_per_origin,
 test_the_origin_cause_and_line_to_fix) = CORPUS.journey_tests()


# written after the first contact, from the programs' forms (journey3's conventions)
FORM = {"fit_remainder_std": "fit epoch 0, batch 7", "fit_relu_scale": "fit epoch 0, batch 8",
        "kl_zero_target_eager": "eager loop in main", "reservoir_eager": "eager loop in main",
        "gauss_nll_var_fn": "tf.function train_step call",
        "msle_log1p_fn": "tf.function train_step call",
        "gnn_max_isolated_fn": "tf.function train_step call"}


@pytest.mark.parametrize("name", sorted(FORM))
def test_the_step_is_named_in_the_form_the_user_wrote(
        tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str],
        name: str) -> None:
    """A fit's remainder batch is a step of its own (batch 7 of epoch 0, the eighth), an
    eager `for` loop in main is "eager loop in main", a tf.function its call."""
    rep = CORPUS.report(tmp_path_factory, capsys, name)
    assert rep["steps"]["first_alert_form"] == FORM[name], rep["steps"]
    assert rep["first_alerts"][0]["step_form"] == FORM[name]
