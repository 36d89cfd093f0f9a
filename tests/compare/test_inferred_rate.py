"""A learning rate with no tensor (a Python float) is inferred from its update ÷ its gradient
(tfdbg_tui/core/compare/rates.py), and never claimed where the update is no multiple of the
gradient.

`ratio` is checked on updates computed with float32 arithmetic as TensorFlow does it (the
product a `var.assign_sub(lr * g)` records; the variable before and after a fused
`ApplyGradientDescent`), and on updates that are no multiple of the gradient (momentum,
Adam). Then on real recordings: tests/programs/rates/tf1_rate.py (TF1, the rate an
inverse-time decay the graph computes: 0.5 / (1 + 0.5 * step)) against
tests/programs/rates/python_rate.py (eager, the same decay as a Python float, the step
numbered from OFFSET, applied by `assign_sub` or `assign`, optionally through a velocity).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from compare.migration_fixtures import diff_json, recorded
from support.paths import PROGRAMS
from support.recordings import recorded_run

from tfdbg_tui.core.compare.rates import Rate, ratio

EPS32 = 2.0 ** -23
RATE32 = float(np.float32(1 / 3))  # the Python float 1/3 as the float32 tensor it becomes


def _grad(seed: int = 0, n: int = 24) -> np.ndarray:
    return np.random.RandomState(seed).normal(size=n).astype(np.float32)


def test_a_recorded_product_gives_its_scalar() -> None:
    g = _grad()
    product = (np.float32(RATE32) * g).astype(np.float32)  # what assign_sub's Mul records
    got = ratio(product, g, EPS32 * np.abs(product.astype(np.float64)))
    assert isinstance(got, Rate), got
    assert got.inferred
    assert abs(got.value - RATE32) <= got.spread
    assert got.spread < 1e-6 * RATE32


def test_the_variable_before_and_after_gives_its_scalar() -> None:
    g = _grad(1)
    before = np.random.RandomState(2).normal(size=len(g)).astype(np.float32)
    after = (before - np.float32(RATE32) * g).astype(np.float32)  # rounded as float32
    delta = before.astype(np.float64) - after
    got = ratio(delta, g, EPS32 * (np.abs(after.astype(np.float64)) + np.abs(delta)))
    assert isinstance(got, Rate), got
    assert abs(got.value - RATE32) <= got.spread < 1e-4 * RATE32


def test_a_momentum_step_is_no_rate() -> None:
    g0, g1 = _grad(3), _grad(4)
    velocity = (np.float32(0.9) * g0 + g1).astype(np.float32)
    product = (np.float32(RATE32) * velocity).astype(np.float32)
    got = ratio(product, g1, EPS32 * np.abs(product.astype(np.float64)))
    assert isinstance(got, str) and "not its gradient times one scalar" in got


def test_an_adam_step_is_no_rate() -> None:
    g = _grad(5)
    step = (np.float32(0.001) * g / (np.abs(g) + np.float32(1e-7))).astype(np.float32)
    got = ratio(step, g, EPS32 * np.abs(step.astype(np.float64)))
    assert isinstance(got, str), got


def test_a_step_on_one_element_is_no_rate() -> None:
    """Adam's or RMSprop's step on one element (a bias of one unit) is its gradient times a
    scalar (lr / √v), like any update of one number: that says nothing of a rate."""
    g = np.array([0.37], np.float32)
    step = (np.float32(0.001) * g / (np.abs(g) + np.float32(1e-7))).astype(np.float32)
    got = ratio(step, g, EPS32 * np.abs(step.astype(np.float64)))
    assert isinstance(got, str) and "one magnitude" in got, got
    uniform = np.full(6, -0.25, np.float32)  # as many elements, all of one magnitude
    step = (np.float32(0.01) * uniform / np.sqrt(uniform * uniform)).astype(np.float32)
    assert isinstance(ratio(step, uniform, EPS32 * np.abs(step.astype(np.float64))), str)


def test_a_zero_gradient_or_an_update_within_rounding_is_no_rate() -> None:
    zero = np.zeros(4, np.float32)
    assert isinstance(ratio(zero, zero, zero), str)
    g = _grad(6)
    before = np.full(len(g), 1000.0, np.float32)
    after = (before - np.float32(1e-6) * g).astype(np.float32)  # below float32's ulp of 1000
    delta = before.astype(np.float64) - after
    got = ratio(delta, g, EPS32 * (np.abs(after.astype(np.float64)) + np.abs(delta)))
    assert isinstance(got, str), got


TF1, EAGER = PROGRAMS / "rates" / "tf1_rate.py", PROGRAMS / "rates" / "python_rate.py"
RUNS = {"tf1_sgd": (TF1, "0"), "tf1_momentum": (TF1, "0.9"),
        "eager_offbyone": (EAGER, "1", "0", "sub"), "eager_assign": (EAGER, "0", "0", "assign"),
        "eager_momentum": (EAGER, "0", "0.8", "sub")}


def _lr(step: int) -> float:
    return 0.5 / (1 + 0.5 * step)


@pytest.fixture(scope="session")
def rate_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The five recordings (FULL_TENSOR), built once per test run."""
    done = recorded(tmp_path_factory, "inferred-rate", RUNS)
    return {name: logdir for name, (logdir, _) in done.items()}


def _diff(runs: dict[str, str], a: str, b: str) -> tuple[int, dict[str, Any]]:
    return diff_json(runs[a], runs[b], "--rtol", "1e-5", "--atol", "1e-6")


@pytest.mark.tf
@pytest.mark.timeout(900)
def test_a_python_rate_one_step_ahead_is_the_learning_rate(rate_runs: dict[str, str]) -> None:
    code, r = _diff(rate_runs, "tf1_sgd", "eager_offbyone")
    first = r["first_divergence"]
    assert code == 1 and first is not None, r["verdict_text"]
    assert (first["step"], first["quantity"]) == (0, "learning_rate"), r["verdict_text"]
    assert "inferred" in first["what"] and "inferred" in first["hint"]
    assert first["max_abs_error"] == pytest.approx(abs(_lr(0) - _lr(1)), abs=1e-6)
    assert "A 0.5 " in first["reason"] and "B 0.333333 " in first["reason"], first["reason"]
    b = first["b"]["user_frame"]
    assert Path(b["file"]).name == "python_rate.py" and "assign_sub(lr * g)" in b["code"]
    # later steps too: the rate B applies at step k is A's at k + 1
    for k, step in enumerate(r["steps"]):
        lr = step["quantities"]["learning_rate"]
        assert (lr["compared"], lr["different"]) == (2, 2), (k, lr)


@pytest.mark.tf
@pytest.mark.timeout(900)
def test_an_equal_python_rate_is_compared_and_equal(rate_runs: dict[str, str]) -> None:
    code, r = _diff(rate_runs, "tf1_sgd", "eager_assign")  # `w.assign(w - lr * g)`
    assert code == 0 and r["verdict"] == "equivalent", r["verdict_text"]
    assert len(r["steps"]) == 3
    for k, step in enumerate(r["steps"]):
        lr = step["quantities"]["learning_rate"]
        assert (lr["compared"], lr["equal"]) == (2, 2), (k, lr)
        assert lr["variables"] == ["b", "w"], lr


@pytest.mark.tf
@pytest.mark.timeout(900)
def test_no_rate_is_claimed_through_a_velocity(rate_runs: dict[str, str]) -> None:
    code, r = _diff(rate_runs, "tf1_momentum", "eager_momentum")  # momentum 0.9 vs 0.8
    first = r["first_divergence"]
    assert code == 1 and first is not None, r["verdict_text"]
    # step 0's velocity is the gradient in both: the updates part at step 1
    assert (first["step"], first["quantity"]) == (1, "update"), r["verdict_text"]
    for step in r["steps"]:
        assert "learning_rate" not in step["quantities"], step
    assert "learning rate was not compared" in first["hint"]
    assert "none can be inferred" in first["hint"]
    assert "not var − rate × gradient" in first["hint"], first["hint"]


# Momentum, Adam and RMSprop with the rate a plain Python float in an eager TF2 step (folded
# into the update, no op records it), against TF1's own optimizers in a graph (the rate a
# recorded Const): tests/programs/rates/tf1_optimizers.py, python_optimizers.py
OPT_TF1, OPT_EAGER = PROGRAMS / "rates" / "tf1_optimizers.py", PROGRAMS / "rates" / \
    "python_optimizers.py"
OPT_RUNS = {"tf1_momentum": (OPT_TF1, "momentum", "0.1"), "tf1_adam": (OPT_TF1, "adam", "0.1"),
            "tf1_rmsprop": (OPT_TF1, "rmsprop", "0.1"),
            "tf1_rmsprop_half": (OPT_TF1, "rmsprop", "0.05"),
            "momentum_hand": (OPT_EAGER, "momentum", "hand", "0.1"),
            "adam_hand": (OPT_EAGER, "adam", "hand", "0.1"),
            "adam_v1": (OPT_EAGER, "adam", "v1", "0.1"),
            "rmsprop_hand": (OPT_EAGER, "rmsprop", "hand", "0.1"),
            "rmsprop_scaled": (OPT_EAGER, "rmsprop", "scaled", "0.1")}


@pytest.fixture(scope="session")
def optimizer_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The nine recordings (FULL_TENSOR), built once per test run."""
    pytest.importorskip("tensorflow")
    return {name: recorded_run(tmp_path_factory, f"inferred-rate-opt-{name}", program, *args,
                               options=("--mode", "FULL_TENSOR"))[0]
            for name, (program, *args) in OPT_RUNS.items()}


@pytest.mark.tf
@pytest.mark.timeout(900)
@pytest.mark.parametrize(("a", "b"), [("tf1_momentum", "momentum_hand"),
                                      ("tf1_adam", "adam_hand"), ("tf1_adam", "adam_v1"),
                                      ("tf1_rmsprop", "rmsprop_hand"),
                                      ("tf1_rmsprop", "rmsprop_scaled")])
def test_a_python_rate_folded_into_momentum_adam_rmsprop_is_not_guessed(
        optimizer_runs: dict[str, str], a: str, b: str) -> None:
    """Equivalent runs: exit 0, the four weights' gradients and updates compared, and no
    rate claimed for B — its update is no gradient times one number (a velocity, m / √v,
    g / √ms). Before: RMSprop's `lr / sqrt(ms + eps) * g` on the one-element output bias
    gave a ratio, 'inferred' as B's rate and paired with A's 0.1 (diverge at step 0,
    learning rate); a hand-written Adam's second moment, read through an Identity tfdbg
    does not record, was taken for a model variable (diverge at step 0, initial b2)."""
    code, r = _diff(optimizer_runs, a, b)
    assert code == 0 and r["verdict"] == "equivalent", r["verdict_text"]
    assert [v["a"] for v in r["training"]["variables"]] == ["w1", "b1", "w2", "b2"]
    for k, step in enumerate(r["steps"]):
        assert "learning_rate" not in step["quantities"], (k, step["quantities"])
        assert step["quantities"]["gradient"]["variables"] == ["b1", "b2", "w1", "w2"]


@pytest.mark.tf
@pytest.mark.timeout(900)
def test_a_wrong_folded_rate_is_said_unknown(optimizer_runs: dict[str, str]) -> None:
    """A rate of 0.05 in A against B's Python 0.1 (RMSprop, the preconditioner computed
    first): the updates differ at step 0, and the hint says the rate was not compared and
    why, instead of an inferred 'learning rate' that is no rate."""
    code, r = _diff(optimizer_runs, "tf1_rmsprop_half", "rmsprop_scaled")
    first = r["first_divergence"]
    assert code == 1 and first is not None, r["verdict_text"]
    assert (first["step"], first["quantity"]) == (0, "update"), r["verdict_text"]
    assert "learning_rate" not in r["steps"][0]["quantities"]
    assert "learning rate was not compared" in first["hint"], first["hint"]
    assert "none can be inferred" in first["hint"], first["hint"]
