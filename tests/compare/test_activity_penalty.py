"""A penalty computed from a layer's activations, added beside the data loss, is the
regularization quantity (tests/programs/activity_penalty/, expectations in its
EXPECTATIONS.md, proven with numpy by its verify.py; written before the tool was run).
Issue 29's blind10 aux_forgot_eager on programs of other kinds: Keras'
`activity_regularizer=L1` on a Dense against TF1's `0.02 * mean(sum|h|)` added with `add_n`;
a subclassed model's `add_loss` of its outputs' mean square against TF1's penalty written
into the loss statement; eager, tf.function and fit; equivalent, with the penalty's factor
wrong, or with the penalty missing.
"""

from __future__ import annotations

from typing import Any

import pytest
from compare.migration_fixtures import diff_json, divergence_lines, lines_marked, per_step, recorded
from support.paths import PROGRAMS

HERE = PROGRAMS / "activity_penalty"
HIDDEN, OUTPUT = HERE / "tf1_hidden.py", HERE / "tf1_output.py"
BH, BO = HERE / "tf2_hidden.py", HERE / "tf2_output.py"
RUNS = {"tf1_hidden": (HIDDEN,), "tf1_output": (OUTPUT,),
        "hidden_fit_same": (BH, "fit", "same"), "hidden_function_same": (BH, "function", "same"),
        "hidden_eager_factor": (BH, "eager", "factor"), "hidden_fit_none": (BH, "fit", "none"),
        "output_eager_same": (BO, "eager", "same"), "output_fit_same": (BO, "fit", "same"),
        "output_fit_factor": (BO, "fit", "factor"),
        "output_function_forgot": (BO, "function", "forgot")}
EQUIVALENT = {"hidden_same_fit": ("tf1_hidden", "hidden_fit_same"),
              "hidden_same_fn": ("tf1_hidden", "hidden_function_same"),
              "output_same_eager": ("tf1_output", "output_eager_same"),
              "output_same_fit": ("tf1_output", "output_fit_same")}
# pair -> (A, B, B's program, B's marks); A's marks are AT:penalty and AT:total everywhere
BUGGY = {"hidden_factor_eager": ("tf1_hidden", "hidden_eager_factor", BH,
                                 ("BUG:factor", "CALL:hidden")),
         "hidden_none_fit": ("tf1_hidden", "hidden_fit_none", BH, ("BUG:none", "CALL:hidden")),
         "output_factor_fit": ("tf1_output", "output_fit_factor", BO,
                               ("BUG:factor", "CALL:penalty")),
         "output_forgot_fn": ("tf1_output", "output_function_forgot", BO,
                              ("BUG:forgot", "CALL:penalty"))}
PROGRAM = {"tf1_hidden": HIDDEN, "tf1_output": OUTPUT}

# pair -> what the tool says instead (strict xfails)
KNOWN_FAILING: dict[str, str] = {}

pytestmark = [pytest.mark.tf, pytest.mark.timeout(900)]


@pytest.fixture(scope="session")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The ten recordings (FULL_TENSOR), built once per test run."""
    done = recorded(tmp_path_factory, "activity_penalty", RUNS)
    return {name: logdir for name, (logdir, _) in done.items()}


def _diff(runs: dict[str, str], a: str, b: str) -> tuple[int, dict[str, Any]]:
    return diff_json(runs[a], runs[b], "--rtol", "1e-5", "--atol", "1e-6")


def _params(names: dict[str, Any]) -> list[Any]:
    return [pytest.param(n, marks=pytest.mark.xfail(reason=KNOWN_FAILING[n], strict=True))
            if n in KNOWN_FAILING else n for n in names]


@pytest.mark.parametrize("name", _params(EQUIVALENT))
def test_equivalent_activity_penalties_differ_nowhere(runs: dict[str, str], name: str
                                                      ) -> None:
    """Exit 0, nothing different; at every step the data loss, the penalty (regularization)
    and the 4 gradients compared; the 4 updates of steps 0-1."""
    code, r = _diff(runs, *EQUIVALENT[name])
    assert code == 0 and r["verdict"] == "equivalent", r["verdict_text"]
    assert r["different"] == 0, r["verdict_text"]
    assert per_step(r, "loss") == {k: (1, 0) for k in range(3)}, r["steps"]
    reg = per_step(r, "regularization")
    assert all(reg.get(k, (0, 0))[0] >= 1 for k in range(3)), r["steps"]
    assert per_step(r, "gradient") == {k: (4, 0) for k in range(3)}, r["steps"]
    assert per_step(r, "update") == {k: (4, 0) for k in range(2)}, r["steps"]


@pytest.mark.parametrize("name", _params(BUGGY))
def test_the_activity_penalty_diverges_as_regularization(runs: dict[str, str], name: str
                                                         ) -> None:
    """Step 0, regularization; the layer outputs and the data loss equal at step 0; A's
    line the penalty or the total it is added to, B's the mistake's (EXPECTATIONS.md)."""
    a, b, prog_b, marks_b = BUGGY[name]
    code, r = _diff(runs, a, b)
    fd = r["first_divergence"]
    assert code == 1 and fd is not None, r["verdict_text"]
    assert (fd["step"], fd["quantity"]) == (0, "regularization"), r["verdict_text"]
    compared, different = per_step(r, "layer_output")[0]
    assert compared >= 2 and different == 0, r["steps"]
    assert per_step(r, "loss").get(0) == (1, 0), r["steps"]
    (fa, la), (fb, lb) = divergence_lines(r)
    assert fa == PROGRAM[a].name and la in lines_marked(PROGRAM[a], "AT:penalty",
                                                          "AT:total"), (fa, la)
    assert fb == prog_b.name and lb in lines_marked(prog_b, *marks_b), (fb, lb)
