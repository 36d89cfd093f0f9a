"""Which line shows a loss written out below a probability activation on a line of its own
(tests/programs/loss_past_activation/, expectations in its EXPECTATIONS.md, proven with
numpy by its verify.py; written before the tool was run). Issue 29's blind7
focal_balance_fn on programs of other kinds: a softmax cross-entropy with a confidence
penalty (the loss reads the logits and the softmax), a hinge loss with a sigmoid computed
only for monitoring, and a weighted binary cross-entropy from the sigmoid alone (a guard).
The loss's line is one computing the loss, never the activation's.
"""

from __future__ import annotations

from typing import Any

import pytest
from compare.migration_fixtures import diff_json, divergence_lines, lines_marked, per_step, recorded
from support.paths import PROGRAMS

HERE = PROGRAMS / "loss_past_activation"
PENALTY, HINGE, WBCE = "penalty", "hinge", "wbce"
TF1 = {m: HERE / f"tf1_{m}.py" for m in (PENALTY, HINGE, WBCE)}
TF2 = {PENALTY: HERE / "tf2_penalty_eager.py", HINGE: HERE / "tf2_hinge_fn.py",
       WBCE: HERE / "tf2_wbce_eager.py"}
BUGS = {PENALTY: "plus", HINGE: "squared", WBCE: "inverted"}
RUNS = {f"tf1_{m}": (TF1[m],) for m in TF1} | {
    f"{m}_{v}": (TF2[m], v) for m in TF2 for v in ("same", BUGS[m])}

pytestmark = [pytest.mark.tf, pytest.mark.timeout(900)]


@pytest.fixture(scope="session")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The nine recordings (FULL_TENSOR), built once per test run."""
    done = recorded(tmp_path_factory, "loss_past_activation", RUNS)
    return {name: logdir for name, (logdir, _) in done.items()}


def _diff(runs: dict[str, str], model: str, variant: str) -> tuple[int, dict[str, Any]]:
    return diff_json(runs[f"tf1_{model}"], runs[f"{model}_{variant}"],
                     "--rtol", "1e-5", "--atol", "1e-6")


@pytest.mark.parametrize("model", [PENALTY, HINGE, WBCE])
def test_equivalent_pairs_compare_the_loss_and_both_layers(runs: dict[str, str],
                                                           model: str) -> None:
    """Equivalent (numpy): exit 0; every step's loss, 4 gradients and 2 layer outputs (the
    tanh, the logits) compared and equal; the 4 updates of steps 0-1."""
    code, r = _diff(runs, model, "same")
    assert code == 0 and r["verdict"] == "equivalent", r["verdict_text"]
    assert r["different"] == 0, r["verdict_text"]
    assert per_step(r, "loss") == {k: (1, 0) for k in range(3)}, r["steps"]
    assert per_step(r, "gradient") == {k: (4, 0) for k in range(3)}, r["steps"]
    assert per_step(r, "layer_output") == {k: (2, 0) for k in range(3)}, r["steps"]
    assert per_step(r, "update") == {k: (4, 0) for k in range(2)}, r["steps"]


@pytest.mark.parametrize("model", [PENALTY, HINGE, WBCE])
def test_the_loss_diverges_at_a_line_computing_it(runs: dict[str, str], model: str) -> None:
    """The loss at step 0 (the layer outputs agree); A's line one of the written-out loss's,
    not the probability's line above it; B's the mistake's or the loss's, not its own
    softmax's line."""
    bug = BUGS[model]
    code, r = _diff(runs, model, bug)
    fd = r["first_divergence"]
    assert code == 1 and fd is not None, r["verdict_text"]
    assert (fd["step"], fd["quantity"]) == (0, "loss"), r["verdict_text"]
    assert per_step(r, "layer_output")[0] == (2, 0), r["steps"]
    (fa, la), (fb, lb) = divergence_lines(r)
    assert fa == TF1[model].name and la in lines_marked(TF1[model], "AT:loss"), (fa, la)
    assert fb == TF2[model].name, (fb, lb)
    assert lb in lines_marked(TF2[model], f"BUG:{bug}", "CALL:loss"), (fb, lb)
