"""A layer's values multiplied by a fixed matrix (a tensor of no variable) are compared where
both runs compute the same thing (tests/programs/fixed_mixing/, expectations in its
EXPECTATIONS.md, proven with numpy by its verify.py; written before the tool was run on
them): a causal moving average over time, TF1's `einsum` against Keras 3's `tf.matmul` with a
constant the model holds; eager, tf.function and fit; equivalent, the matrix transposed (a
look-ahead window), or the window summed instead of averaged. Written to test on programs of
another kind the rule that fixed blind10's gnn_dense_eager (`layer_groups.data_products`).
First run: 5 of 5 — and 5 of 5 with the engine before that rule too (EXPECTATIONS.md): the
corpus does not tell the rule apart.
"""

from __future__ import annotations

from typing import Any

import pytest
from compare.migration_fixtures import diff_json, divergence_lines, lines_marked, per_step, recorded
from support.paths import PROGRAMS

HERE = PROGRAMS / "fixed_mixing"
A, B = HERE / "tf1_mix.py", HERE / "tf2_mix.py"
RUNS = {"tf1": (A,), "eager_same": (B, "eager", "same"), "function_same": (B, "function", "same"),
        "fit_same": (B, "fit", "same"), "function_transposed": (B, "function", "transposed"),
        "eager_unnormalized": (B, "eager", "unnormalized")}
EQUIVALENT = {"same_eager": "eager_same", "same_fn": "function_same", "same_fit": "fit_same"}
BUGGY = {"transposed_fn": ("function_transposed", "BUG:transposed"),
         "unnormalized_eager": ("eager_unnormalized", "BUG:unnormalized")}

# pair -> what the tool says instead (strict xfails)
KNOWN_FAILING: dict[str, str] = {}

pytestmark = [pytest.mark.tf, pytest.mark.timeout(900)]


@pytest.fixture(scope="session")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The six recordings (FULL_TENSOR), built once per test run."""
    done = recorded(tmp_path_factory, "fixed_mixing", RUNS)
    return {name: logdir for name, (logdir, _) in done.items()}


def _diff(runs: dict[str, str], b: str) -> tuple[int, dict[str, Any]]:
    return diff_json(runs["tf1"], runs[b], "--rtol", "1e-5", "--atol", "1e-6")


def _params(names: dict[str, Any]) -> list[Any]:
    return [pytest.param(n, marks=pytest.mark.xfail(reason=KNOWN_FAILING[n], strict=True))
            if n in KNOWN_FAILING else n for n in names]


@pytest.mark.parametrize("name", _params(EQUIVALENT))
def test_equivalent_smoothing_differs_nowhere(runs: dict[str, str], name: str) -> None:
    """Exit 0, nothing different; at every step the loss and the 4 gradients compared."""
    code, r = _diff(runs, EQUIVALENT[name])
    assert code == 0 and r["verdict"] == "equivalent", r["verdict_text"]
    assert r["different"] == 0, r["verdict_text"]
    assert per_step(r, "loss") == {k: (1, 0) for k in range(3)}, r["steps"]
    assert per_step(r, "gradient") == {k: (4, 0) for k in range(3)}, r["steps"]


@pytest.mark.parametrize("name", _params(BUGGY))
def test_a_wrong_matrix_diverges_at_the_layer_after_it(runs: dict[str, str], name: str
                                                       ) -> None:
    """Step 0, layer_output, the projection before the matrix compared equal; A's line the
    smoothing or the tanh after it, B's the mistake's, the smoothing's or the tanh's."""
    b, bug = BUGGY[name]
    code, r = _diff(runs, b)
    fd = r["first_divergence"]
    assert code == 1 and fd is not None, r["verdict_text"]
    assert (fd["step"], fd["quantity"]) == (0, "layer_output"), r["verdict_text"]
    compared, different = per_step(r, "layer_output")[0]
    assert compared - different >= 1, r["steps"]  # the projection, equal
    (fa, la), (fb, lb) = divergence_lines(r)
    assert fa == A.name and la in lines_marked(A, "AT:mix", "AT:hidden"), (fa, la)
    assert fb == B.name and lb in lines_marked(B, bug, "CALL:mix", "CALL:hidden"), (fb, lb)
