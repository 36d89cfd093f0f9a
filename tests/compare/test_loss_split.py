"""Which line shows a loss written over several statements when it differs
(tests/programs/loss_split/, expectations in its EXPECTATIONS.md, proven with numpy by its
verify.py; written before the tool was run). Issue 29's blind9 lse_axis_fn on programs of
other kinds: the mistake in the first, second or third statement of a split softmax
cross-entropy; A written alike or as one TF1 loss call; B eager, in tf.function, or fit's
compiled loss. The line shown is the statement where the two runs' loss computations depart,
not the first op that reads the model's output.
"""

from __future__ import annotations

from typing import Any

import pytest
from compare.migration_fixtures import diff_json, divergence_lines, lines_marked, per_step, recorded
from support.paths import PROGRAMS

HERE = PROGRAMS / "loss_split"
SPLIT, FUSED, B = HERE / "tf1_split.py", HERE / "tf1_fused.py", HERE / "tf2_split.py"
RUNS = {"tf1_split": (SPLIT,), "tf1_fused": (FUSED,)} | {
    f"{form}_{v}": (B, form, v) for form, vs in (("eager", ("same", "lse", "mean")),
                                                  ("function", ("same", "true", "lse")),
                                                  ("fit", ("same", "mean", "true")))
    for v in vs}
EQUIVALENT = {"split_same_eager": ("tf1_split", "eager_same"),
              "split_same_fit": ("tf1_split", "fit_same"),
              "fused_same_fn": ("tf1_fused", "function_same")}
# pair -> (A, B, A's mark, B's mark)
BUGGY = {"split_lse_eager": ("tf1_split", "eager_lse", "AT:lse", "BUG:lse"),
         "split_true_fn": ("tf1_split", "function_true", "AT:true", "BUG:true"),
         "split_mean_fit": ("tf1_split", "fit_mean", "AT:mean", "BUG:mean"),
         "fused_mean_eager": ("tf1_fused", "eager_mean", "AT:loss", "BUG:mean"),
         "fused_lse_fn": ("tf1_fused", "function_lse", "AT:loss", "BUG:lse"),
         "fused_true_fit": ("tf1_fused", "fit_true", "AT:loss", "BUG:true")}
PROGRAM = {"tf1_split": SPLIT, "tf1_fused": FUSED}

# pair -> what the tool says instead (strict xfails)
KNOWN_FAILING: dict[str, str] = {
    "fused_lse_fn": (
        "B's line the per-example statement `return tf.reduce_mean(lse - true)` (:45), not "
        "the logsumexp without its axis (:36): A's one fused loss call has no tensor to "
        "compare B's first statements with, so loss_departed shows where the values are "
        "first known to differ (the per-example terms); before it the tool showed :36 only "
        "because the loss's entry was the first statement"),
    "fused_true_fit": (
        "B's line the per-example statement (:45), not `reduce_max` taken for the true "
        "logit (:40): as fused_lse_fn, nothing of A's fused loss to compare statement 2 "
        "with"),
}

pytestmark = [pytest.mark.tf, pytest.mark.timeout(900)]


@pytest.fixture(scope="session")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The eleven recordings (FULL_TENSOR), built once per test run."""
    done = recorded(tmp_path_factory, "loss_split", RUNS)
    return {name: logdir for name, (logdir, _) in done.items()}


def _diff(runs: dict[str, str], a: str, b: str) -> tuple[int, dict[str, Any]]:
    return diff_json(runs[a], runs[b], "--rtol", "1e-5", "--atol", "1e-6")


def _params(names: dict[str, Any]) -> list[Any]:
    return [pytest.param(n, marks=pytest.mark.xfail(reason=KNOWN_FAILING[n], strict=True))
            if n in KNOWN_FAILING else n for n in names]


@pytest.mark.parametrize("name", _params(EQUIVALENT))
def test_equivalent_split_losses_differ_nowhere(runs: dict[str, str], name: str) -> None:
    """Exit 0, nothing different; every step's loss, 4 gradients and 2 layer outputs compared;
    the 4 updates of steps 0-1."""
    code, r = _diff(runs, *EQUIVALENT[name])
    assert code == 0 and r["verdict"] == "equivalent", r["verdict_text"]
    assert r["different"] == 0, r["verdict_text"]
    assert per_step(r, "loss") == {k: (1, 0) for k in range(3)}, r["steps"]
    assert per_step(r, "gradient") == {k: (4, 0) for k in range(3)}, r["steps"]
    assert per_step(r, "layer_output") == {k: (2, 0) for k in range(3)}, r["steps"]
    assert per_step(r, "update") == {k: (4, 0) for k in range(2)}, r["steps"]


@pytest.mark.parametrize("name", _params(BUGGY))
def test_the_loss_diverges_at_the_departing_statement(runs: dict[str, str], name: str
                                                      ) -> None:
    """The loss at step 0, the layer outputs equal; each side's line the statement where
    the loss computations depart (EXPECTATIONS.md)."""
    a, b, mark_a, mark_b = BUGGY[name]
    code, r = _diff(runs, a, b)
    fd = r["first_divergence"]
    assert code == 1 and fd is not None, r["verdict_text"]
    assert (fd["step"], fd["quantity"]) == (0, "loss"), r["verdict_text"]
    compared, different = per_step(r, "layer_output")[0]
    assert compared >= 2 and different == 0, r["steps"]
    (fa, la), (fb, lb) = divergence_lines(r)
    assert fa == PROGRAM[a].name and la in lines_marked(PROGRAM[a], mark_a), (fa, la)
    assert fb == B.name and lb in lines_marked(B, mark_b), (fb, lb)
