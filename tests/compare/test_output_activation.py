"""An output layer's activation one run computes as a layer and the other does not
(tests/programs/output_activation/, expectations in its EXPECTATIONS.md, proven with numpy
by its verify.py; written before the tool was run): TF1's `sigmoid(logits)` on a line of its
own, feeding `log_loss`, against Keras' Dense(3, "sigmoid") whose loss reads the logits the
sigmoid cached (its sigmoid output feeds nothing), and against a linear Dense with the
sigmoid inside the loss. Layer outputs are compared output with output: A's logits with
B's, A's sigmoid with nothing — it belongs to the loss's formulation, which the loss
comparison judges. So the equivalent pairs have no layer output that differs, and logits read
as probabilities are found at the loss.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from compare.migration_fixtures import diff_json, lines_marked, per_step, recorded
from support.paths import PROGRAMS

HERE = PROGRAMS / "output_activation"
TF1, KERAS = HERE / "tf1_sigmoid.py", HERE / "keras_sigmoid.py"
RUNS = {"tf1": (TF1,), "sigmoid_eager": (KERAS, "eager", "sigmoid"),
        "sigmoid_fit": (KERAS, "fit", "sigmoid"), "logits_eager": (KERAS, "eager", "logits"),
        "probs_eager": (KERAS, "eager", "probs")}

pytestmark = [pytest.mark.tf, pytest.mark.timeout(900)]


@pytest.fixture(scope="session")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The five recordings (FULL_TENSOR), built once per test run."""
    done = recorded(tmp_path_factory, "output_activation", RUNS)
    return {name: logdir for name, (logdir, _) in done.items()}


def _diff(runs: dict[str, str], b: str) -> tuple[int, dict[str, Any]]:
    return diff_json(runs["tf1"], runs[b], "--rtol", "1e-5", "--atol", "1e-6")


@pytest.mark.parametrize("b", ["sigmoid_eager", "sigmoid_fit", "logits_eager"])
def test_layer_outputs_pair_logits_with_logits(runs: dict[str, str], b: str) -> None:
    """Equivalent (numpy): exit 0, nothing different, and at every step the hidden layer and
    the logits compared and equal, with the loss and the 4 gradients."""
    code, r = _diff(runs, b)
    assert code == 0 and r["verdict"] == "equivalent", r["verdict_text"]
    assert r["different"] == 0 and r["divergent_tensors"] == [], r["verdict_text"]
    assert per_step(r, "layer_output") == {k: (2, 0) for k in range(3)}, r["steps"]
    assert per_step(r, "loss") == {k: (1, 0) for k in range(3)}, r["steps"]
    assert per_step(r, "gradient") == {k: (4, 0) for k in range(3)}, r["steps"]
    assert per_step(r, "update") == {k: (4, 0) for k in range(2)}, r["steps"]


def test_logits_read_as_probabilities_part_at_the_loss(runs: dict[str, str]) -> None:
    """probs_eager: both layer outputs agree at step 0; the loss is where the runs part."""
    code, r = _diff(runs, "probs_eager")
    fd = r["first_divergence"]
    assert code == 1 and fd is not None, r["verdict_text"]
    assert (fd["step"], fd["quantity"]) == (0, "loss"), r["verdict_text"]
    assert per_step(r, "layer_output")[0] == (2, 0), r["steps"]
    a, b = fd["a"]["user_frame"], fd["b"]["user_frame"]
    assert Path(a["file"]).name == TF1.name and a["line"] in lines_marked(TF1, "AT:loss"), a
    assert Path(b["file"]).name == KERAS.name, b
    assert b["line"] in lines_marked(KERAS, "BUG:probs", "CALL:loss"), b
