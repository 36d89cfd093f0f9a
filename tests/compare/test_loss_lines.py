"""Where a loss is, and which line shows it (tests/programs/loss_lines/, expectations in its
EXPECTATIONS.md, proven with numpy by its verify.py; written before the tool was run).

- An eager Keras step whose recorded forward dataflow is cut (a `tf.custom_gradient`
  activation: TensorFlow does not record the eager Identity it passes its result through)
  still has a loss: the one its gradient tape differentiates.
  Its layers are compared too: the Identity is inferred from the eager tensor ids
  (`contract/eager_identity`), so the forward pass is whole again.
- A TF1 prediction reshaped on its own line before the loss reads it: the loss's line is the
  loss's (`huber_loss`), not the reshape's.
- A penalty only B's `fit` adds: B's line is the layer carrying the regularizer, not
  `model.fit`; A (plain variables, no layer) shows its loss's line.
"""

from __future__ import annotations

from typing import Any

import pytest
from compare.migration_fixtures import diff_json, divergence_lines, lines_marked, per_step, recorded
from support.paths import PROGRAMS

HERE = PROGRAMS / "loss_lines"
TF1, KERAS = HERE / "tf1_huber.py", HERE / "keras_huber.py"
RUNS = {"tf1": (TF1,), "same_eager": (KERAS, "eager", "same"),
        "identity_eager": (KERAS, "eager", "identity"),
        "delta_fn": (KERAS, "function", "delta"), "penalty_fit": (KERAS, "fit", "penalty")}

pytestmark = [pytest.mark.tf, pytest.mark.timeout(900)]


@pytest.fixture(scope="session")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The five recordings (FULL_TENSOR), built once per test run."""
    done = recorded(tmp_path_factory, "loss_lines", RUNS)
    return {name: logdir for name, (logdir, _) in done.items()}


def _diff(runs: dict[str, str], b: str) -> tuple[int, dict[str, Any]]:
    return diff_json(runs["tf1"], runs[b], "--rtol", "1e-5", "--atol", "1e-6")


def test_an_eager_loss_object_behind_a_custom_gradient_is_compared(
        runs: dict[str, str]) -> None:
    """Equivalent (numpy): exit 0, and every step's loss, 4 gradients and updates compared."""
    code, r = _diff(runs, "same_eager")
    assert code == 0 and r["verdict"] == "equivalent", r["verdict_text"]
    assert r["different"] == 0, r["verdict_text"]
    assert per_step(r, "loss") == {k: (1, 0) for k in range(3)}, r["steps"]
    assert per_step(r, "gradient") == {k: (4, 0) for k in range(3)}, r["steps"]
    assert per_step(r, "update") == {k: (4, 0) for k in range(2)}, r["steps"]


def test_a_tf1_loss_is_shown_at_its_own_line(runs: dict[str, str]) -> None:
    """Huber(delta=0.5): the loss at step 0; A's line the huber_loss call, not the reshape
    of the prediction the line above."""
    code, r = _diff(runs, "delta_fn")
    fd = r["first_divergence"]
    assert code == 1 and fd is not None, r["verdict_text"]
    assert (fd["step"], fd["quantity"]) == (0, "loss"), r["verdict_text"]
    (fa, la), (fb, lb) = divergence_lines(r)
    assert fa == TF1.name and la in lines_marked(TF1, "AT:loss"), (fa, la)
    assert fb == KERAS.name and lb in lines_marked(KERAS, "BUG:delta", "CALL:loss"), (fb, lb)


def test_a_penalty_fit_adds_is_shown_at_its_layer(runs: dict[str, str]) -> None:
    """B's fit adds an L2 penalty A lacks: regularization at step 0; B's line the Dense with
    the kernel_regularizer, A's its loss's line."""
    code, r = _diff(runs, "penalty_fit")
    fd = r["first_divergence"]
    assert code == 1 and fd is not None, r["verdict_text"]
    assert (fd["step"], fd["quantity"]) == (0, "regularization"), r["verdict_text"]
    (fa, la), (fb, lb) = divergence_lines(r)
    assert fa == TF1.name and la in lines_marked(TF1, "AT:loss"), (fa, la)
    assert fb == KERAS.name and lb in lines_marked(KERAS, "BUG:penalty"), (fb, lb)


def test_the_layer_behind_a_custom_gradient_is_compared(runs: dict[str, str]) -> None:
    """The eager Identity a custom gradient adds is inferred from the tensor ids: both layer
    outputs (A's softplus and prediction; B's custom softplus and Dense) are compared at every
    step, and equal — the softplus was left out while the forward pass was cut there."""
    code, r = _diff(runs, "same_eager")
    assert code == 0, r["verdict_text"]
    assert per_step(r, "layer_output") == {k: (2, 0) for k in range(3)}, r["steps"]


def test_a_loss_behind_an_unrecorded_identity_is_what_the_tape_differentiates(
        runs: dict[str, str]) -> None:
    """The user's tf.identity after the first layer (eager: not recorded, and no custom
    gradient made its input) cuts the forward pass for good: no scalar depends on the first
    layer's weights. The loss is still found — what the backward pass starts from — and
    compared at every step with the 4 gradients and the updates (equivalent, numpy)."""
    code, r = _diff(runs, "identity_eager")
    assert code == 0 and r["verdict"] == "equivalent", r["verdict_text"]
    assert per_step(r, "loss") == {k: (1, 0) for k in range(3)}, r["steps"]
    assert per_step(r, "gradient") == {k: (4, 0) for k in range(3)}, r["steps"]
    assert per_step(r, "update") == {k: (4, 0) for k in range(2)}, r["steps"]
