"""The NaN journey held out: eight NaN programs of a new user's, recorded with
`tfdbg-tui run -- PROGRAM` and read with `tfdbg-tui report --json` (issue 31).

tests/programs/heldout_nan/ holds them, unlike the zoo's and each other (forms: eager loop,
tf.function loop, Keras fit, an eager loop over tf.data; causes: log(0) in a hand-written
cross-entropy, sqrt of a float32-cancelled variance, a stuck sensor's zero std, exp overflow
in a hand-written softmax, SGD-with-momentum divergence, +∞ in a dataset, Adam's epsilon 0
on a zero gradient, an empty sequence's 0/0 attention weights). Each program's `proof`
(numpy) says which step goes bad; its EXPECT header and `# FIX` line say the origin op, the
cause and the line to change (read by zoo_support, the zoo's own rules). All written before
the tool ran. Asserted: the first alert's step, one incident per origin (at that step,
holding every alert), and the diagnosis the zoo asks of its programs.

First contact (report and report --json, before any change): the step right in all eight;
origin, cause and line right in five. Wrong, and fixed at the cause since:
- attention_empty: 2 incidents. Once the weights were NaN, the gradient of the max
  subtraction (`tf.reduce_max`: cast(equal(max, x)) / sum of it) was 0/0 from two finite
  inputs — NaN compared false, so no element was selected — and the walk stopped there: a
  second origin a step later (`reader.diagnosis.comparisons`);
- momentum_blowup: the line to fix was `opt.apply_gradients` (Keras' momentum update writes
  the weights from its slot, `w += m`, not from a Mul by the learning rate), not the
  optimizer's line (`eager_divergence._learning_rate` follows the slot's own update);
- fit_adam_eps0: the line to fix was model.fit's and the explanation named no epsilon
  (`reader.diagnosis.optimizer_ops`).
"""

from __future__ import annotations

import sys
from itertools import pairwise
from typing import Any

import pytest
from heldout_support import HeldOut
from support.paths import PROGRAMS

pytestmark = pytest.mark.tf

HELDOUT = PROGRAMS / "heldout_nan"
# the step (0-based) of each program's first NaN/∞, as its `proof` shows
STEP = {"xent_log_zero": 2, "pair_norm_sqrt": 4, "fit_stuck_sensor": 3, "hand_softmax": 3,
        "momentum_blowup": 9, "conv_dataset_inf": 2, "fit_adam_eps0": 0, "attention_empty": 1}
# what the tool says instead, where it is still wrong (strict: a fix makes them fail)
WRONG: dict[tuple[str, str], str] = {}
# an origin op the user's code did not write: its own line is the call that ran it, the FIX
# line is elsewhere (Adam's division is made by fit; what to change is the optimizer's ε)
OWN_LINE = {"fit_adam_eps0": "model.fit(x, y"}


CORPUS = HeldOut(HELDOUT, "heldout-nan", STEP, WRONG, OWN_LINE)


def _import(name: str) -> Any:
    sys.path.insert(0, str(HELDOUT))
    try:
        return __import__(name)
    finally:
        sys.path.remove(str(HELDOUT))


def test_the_numpy_proofs() -> None:
    """Which step goes bad, from the data and the training replayed in numpy."""
    assert sorted(p.stem for p in HELDOUT.glob("*.py")) == sorted(STEP)
    m = _import("xent_log_zero")  # sigmoid is 1.0 in float32 past |z| ≈ 17: log(1 − 1)
    big = [s for s, z in enumerate(m.proof()) if z > 17]
    assert big == [m.BAD] == [STEP["xent_log_zero"]] and max(m.proof()[: m.BAD]) < 5
    m = _import("pair_norm_sqrt")
    assert m.proof() == [m.BAD] == [STEP["pair_norm_sqrt"]]
    m = _import("fit_stuck_sensor")
    zero, smallest = m.proof()
    assert zero == [m.BAD] == [STEP["fit_stuck_sensor"]] and smallest > 0.1
    m = _import("hand_softmax")  # exp overflows float32 past 88.72
    z = m.proof()
    assert z[m.BAD] > 200 and max(z[: m.BAD]) < 10 and m.BAD == STEP["hand_softmax"]
    m = _import("momentum_blowup")  # (1.84e19)² is past float32's 3.4e38
    err = m.proof()
    s = m.OVERFLOW
    assert s == STEP["momentum_blowup"] and err[s - 1] < 1e18 and err[s] > 5e19
    assert all(a < b for a, b in pairwise(err))
    m = _import("conv_dataset_inf")
    assert m.proof() == [m.BAD] == [STEP["conv_dataset_inf"]]
    m = _import("fit_adam_eps0")
    assert m.proof() == [2] and STEP["fit_adam_eps0"] == 0
    m = _import("attention_empty")
    assert m.proof() == [m.BAD] == [STEP["attention_empty"]]


# the step, one incident per origin, the origin, cause and line (heldout_support.HeldOut)
(test_the_first_alert_is_in_the_step_that_went_bad, test_one_incident_per_origin,
 test_the_origin_cause_and_line_to_fix) = CORPUS.journey_tests()


@pytest.mark.parametrize("name", sorted(STEP))
def test_every_number_in_a_diagnosis_is_a_row_to_go_to(
        tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str],
        name: str) -> None:
    """Every alert's diagnosis, not only the first ten's (`--limit 1000`)."""
    CORPUS.check_numbers(CORPUS.report(tmp_path_factory, capsys, name, limit=1000))
