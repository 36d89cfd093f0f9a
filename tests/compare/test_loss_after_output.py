"""Where the model ends and the loss begins, and which lines show a loss
(tests/programs/loss_after_output/, expectations in its EXPECTATIONS.md, proven with numpy by
its verify.py; written before the tool was run). Issue 29's blind6 findings on programs of
another kind: the Huber loss on a prediction that is the exponential of the last layer.

- A TF1 prediction computed on the last layer's own line (`tf.exp(h·W + b)`): the loss's
  line is the first of the loss's own, not the prediction's.
- A loss written out by hand after an eager model call: its ops are the loss's, not layer
  outputs (a mistake in it is a `loss` divergence, the layer outputs compare equal).
- A loss named in `compile` (`loss="huber"`) on a last Dense missing its activation: B's
  line is the compile line (or the Dense), not `model.fit`.
"""

from __future__ import annotations

from typing import Any

import pytest
from compare.migration_fixtures import diff_json, divergence_lines, lines_marked, per_step, recorded
from support.paths import PROGRAMS

HERE = PROGRAMS / "loss_after_output"
TF1 = HERE / "tf1_huber_exp.py"
FN, HAND, FIT = (HERE / "tf2_huber_fn.py", HERE / "tf2_huber_hand_eager.py",
                 HERE / "tf2_huber_linear_fit.py")
RUNS = {"tf1": (TF1,), "same_fn": (FN, "same"), "delta_fn": (FN, "delta"),
        "same_hand_eager": (HAND, "same"), "nohalf_hand_eager": (HAND, "nohalf"),
        "linear_fit": (FIT,)}

pytestmark = [pytest.mark.tf, pytest.mark.timeout(900)]


@pytest.fixture(scope="session")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The six recordings (FULL_TENSOR), built once per test run."""
    done = recorded(tmp_path_factory, "loss_after_output", RUNS)
    return {name: logdir for name, (logdir, _) in done.items()}


def _diff(runs: dict[str, str], b: str) -> tuple[int, dict[str, Any]]:
    return diff_json(runs["tf1"], runs[b], "--rtol", "1e-5", "--atol", "1e-6")


@pytest.mark.parametrize("name", ["same_fn", "same_hand_eager"])
def test_equivalent_pairs_compare_the_loss_and_both_layers(runs: dict[str, str],
                                                           name: str) -> None:
    """Equivalent (numpy): exit 0; every step's loss, 4 gradients and 2 layer outputs (the
    tanh, the linear output) compared and equal — a loss written out by hand after the model
    call adds no layer output."""
    code, r = _diff(runs, name)
    assert code == 0 and r["verdict"] == "equivalent", r["verdict_text"]
    assert r["different"] == 0, r["verdict_text"]
    assert per_step(r, "loss") == {k: (1, 0) for k in range(3)}, r["steps"]
    assert per_step(r, "gradient") == {k: (4, 0) for k in range(3)}, r["steps"]
    assert per_step(r, "layer_output") == {k: (2, 0) for k in range(3)}, r["steps"]
    assert per_step(r, "update") == {k: (4, 0) for k in range(2)}, r["steps"]


@pytest.mark.parametrize("name, b_marks", [
    ("delta_fn", ("BUG:delta", "CALL:loss")),
    ("nohalf_hand_eager", ("BUG:nohalf", "CALL:loss")),
    ("linear_fit", ("BUG:linear", "CALL:loss")),
])
def test_the_loss_diverges_at_the_losss_lines(runs: dict[str, str], name: str,
                                              b_marks: tuple[str, ...]) -> None:
    """The loss at step 0 (the layer outputs agree); A's line one of the written-out loss's,
    not the prediction's `tf.exp` line; B's the mistake's or the loss's, never the model's
    call nor `model.fit`."""
    code, r = _diff(runs, name)
    fd = r["first_divergence"]
    assert code == 1 and fd is not None, r["verdict_text"]
    assert (fd["step"], fd["quantity"]) == (0, "loss"), r["verdict_text"]
    program = {"delta_fn": FN, "nohalf_hand_eager": HAND, "linear_fit": FIT}[name]
    (fa, la), (fb, lb) = divergence_lines(r)
    assert fa == TF1.name and la in lines_marked(TF1, "AT:loss"), (fa, la)
    assert fb == program.name and lb in lines_marked(program, *b_marks), (fb, lb)
