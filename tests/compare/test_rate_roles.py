"""Which tensor is an update's learning rate, from dataflow alone, and one rate per variable
where a model has two optimizers (issue 29; tfdbg_tui/core/compare/contract/rate_factor.py,
rate_pairing.py).

Real recordings: tests/programs/rates/two_rates_tf1.py (TF1, graph: the first layer under
Adagrad at 0.1 or the fused AdaMax kernel at 0.02, the second under gradient descent at 0.05,
each `minimize(var_list=...)`) against tests/programs/rates/two_rates_keras.py (Keras: the
same two optimizers, eager or in a tf.function; SPLIT 1 hands the first layer's bias to SGD).
Before: Keras Adamax's `lr · m / ((1 − β₁ᵗ)(u + ε))` gave the bias correction 1 − β₁ᵗ (a
scalar the update is divided by) as its rate, and one rate per step was compared — the most
common one — so equivalent runs diverged at step 0's learning rate, and a bias given the
other optimizer was first seen at its update (eager) or at the wrong rate pair (function).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from compare.migration_fixtures import diff_json, recorded
from support.paths import PROGRAMS

TF1, KERAS = PROGRAMS / "rates" / "two_rates_tf1.py", PROGRAMS / "rates" / "two_rates_keras.py"
RUNS = {"tf1_adagrad": (TF1, "adagrad"), "tf1_adamax": (TF1, "adamax"),
        "adagrad_eager": (KERAS, "adagrad", "eager", "2"),
        "adagrad_eager_bias_to_sgd": (KERAS, "adagrad", "eager", "1"),
        "adagrad_fn_bias_to_sgd": (KERAS, "adagrad", "function", "1"),
        "adamax_eager": (KERAS, "adamax", "eager", "2"),
        "adamax_fn": (KERAS, "adamax", "function", "2")}
VARIABLES = ["b1", "b2", "w1", "w2"]

pytestmark = [pytest.mark.tf, pytest.mark.timeout(900)]


@pytest.fixture(scope="session")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The seven recordings (FULL_TENSOR), built once per test run."""
    done = recorded(tmp_path_factory, "rate-roles", RUNS)
    return {name: logdir for name, (logdir, _) in done.items()}


def _diff(runs: dict[str, str], a: str, b: str) -> tuple[int, dict[str, Any]]:
    return diff_json(runs[a], runs[b], "--rtol", "1e-5", "--atol", "1e-6")


@pytest.mark.parametrize(("b", "from_step"), [("adamax_fn", 0), ("adamax_eager", 1)])
def test_a_scalar_the_update_is_divided_by_is_no_rate(runs: dict[str, str], b: str,
                                                      from_step: int) -> None:
    """Fused AdaMax (the rate an apply op's input) against Keras Adamax written as ops:
    equivalent, and the rate compared for every variable — Adamax's `learning_rate`
    variable, not the bias correction in the divisor (an eager step 0 creates that variable
    in the step: its rate is unknown there, never another scalar)."""
    code, r = _diff(runs, "tf1_adamax", b)
    assert code == 0 and r["verdict"] == "equivalent", r["verdict_text"]
    for step in r["steps"][from_step:]:
        lr = step["quantities"]["learning_rate"]
        assert (lr["compared"], lr["different"]) == (4, 0), (step["step"], lr)
        assert lr["variables"] == VARIABLES, lr


def test_two_optimizers_compare_each_variables_rate(runs: dict[str, str]) -> None:
    """Adagrad for the first layer, SGD for the second, in both runs: each variable's rate
    against its partner's (0.1 and 0.05 both), not one rate for the step."""
    code, r = _diff(runs, "tf1_adagrad", "adagrad_eager")
    assert code == 0 and r["verdict"] == "equivalent", r["verdict_text"]
    for step in r["steps"]:
        lr = step["quantities"]["learning_rate"]
        assert (lr["compared"], lr["different"]) == (4, 0), (step["step"], lr)
        assert lr["variables"] == VARIABLES, lr


@pytest.mark.parametrize("b", ["adagrad_fn_bias_to_sgd", "adagrad_eager_bias_to_sgd"])
def test_a_variable_given_the_other_optimizer_differs_at_its_rate(runs: dict[str, str],
                                                                  b: str) -> None:
    """B hands b1 to SGD (0.05) where A trains it with Adagrad (0.1): the first divergence is
    b1's learning rate at step 0, before its update; B's line is SGD's, and the hint says
    which variables each optimizer is given, not a schedule's arguments."""
    code, r = _diff(runs, "tf1_adagrad", b)
    first = r["first_divergence"]
    assert code == 1 and first is not None, r["verdict_text"]
    assert (first["step"], first["quantity"]) == (0, "learning_rate"), r["verdict_text"]
    assert "b1" in first["what"], first["what"]
    assert first["max_abs_error"] == pytest.approx(0.05, rel=1e-5)
    lr = r["steps"][0]["quantities"]["learning_rate"]
    assert (lr["compared"], lr["different"]) == (4, 1), lr  # the other three agree
    b_frame = first["b"]["user_frame"]
    assert Path(b_frame["file"]).name == KERAS.name and "SGD(" in b_frame["code"], b_frame
    assert first["b"]["created_by"] == "SGD", first["b"]["created_by"]
    a_frame = first["a"]["user_frame"]
    assert Path(a_frame["file"]).name == TF1.name and "Adagrad" in a_frame["code"], a_frame
    # the other variables' rates agree: the hint names the split, not the schedule
    assert "b1 with different optimizers" in first["hint"], first["hint"]
    assert "schedule" not in first["hint"], first["hint"]
