"""What a step's tensors are, from dataflow, on programs unlike the fourth blind corpus's
(issue 29; tfdbg_tui/core/compare/contract/update_roles.py: `walk`; unlinked_grads.py:
`tape_gradients`).

Real recordings of tests/programs/step_roles/: a regression net whose hidden units are
Swish-β (a·σ(exp(lb)·a), a = x·W1 + b1: b1 and lb share a shape) trained by TF1's fused
Adam (tf1_swish.py) against Keras rewrites (keras_swish.py): Keras' Adam in an eager loop,
and Adam
written out in a tf.function as lr_t · (m / (√v + ε)), its bias-corrected lr_t computed in
the step — right, or without the first moment's correction.

1. A bias-corrected step size multiplying the moment ratio is part of the update, not the
   learning rate an apply op takes: before, `walk` took B's lr_t (0.02·√(1 − β₂ᵗ)/(1 − β₁ᵗ))
   for the rate and paired it with A's 0.02, so equivalent runs diverged at step 0's
   learning rate, and the forgotten correction was called a rate divergence.
2. An eager tape's gradients are told apart by the order the tape completes them, not the
   variables' forward order: exp(lb) is computed at depth 1, before b1 is used, so lb comes
   first in forward order, yet the tape (first in, first out from the loss; the product
   exp(lb)·a hands back its first operand first) runs Exp's backward function before
   BiasAdd's; neither gradient is anchored to its read (BiasAddGrad reduces the sum of a's
   two uses; the product's gradient is reshaped to exp(lb), not to lb), so "last layer
   first" gave lb b1's gradient and equivalent runs diverged at step 0's gradient.

Expectations, written before the tool was run on these programs (numpy: common.py, checked
against each program's own losses and final weights in `test_programs_are_what_numpy_says`):
- tf1 vs eager, tf1 vs function: exit 0, equivalent; every step compares the loss and the
  five gradients, every update but the last compared; no learning rate said to differ.
- tf1 vs function uncorrected: exit 1, step 0, `update` (its variables, loss and gradients
  agree; numpy: the step is 10× TF1's), A's line the `minimize` call, B's the assign_sub or
  an lr_t line.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from compare.migration_fixtures import diff_json, frame_line, recorded
from support.by_path import module_at
from support.paths import PROGRAMS

HERE = PROGRAMS / "step_roles"
TF1, KERAS = HERE / "tf1_swish.py", HERE / "keras_swish.py"
RUNS = {"tf1": (TF1,), "eager": (KERAS, "eager", "ok"), "function": (KERAS, "function", "ok"),
        "uncorrected": (KERAS, "function", "uncorrected")}
NAMES = ("w1", "b1", "lb", "w2", "b2")

pytestmark = [pytest.mark.tf, pytest.mark.timeout(900)]


def _marks(program: Path, mark: str) -> set[int]:
    return {n for n, line in enumerate(program.read_text().splitlines(), 1)
            if f"# LINE:{mark}" in line}


@pytest.fixture(scope="session")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[str, str]]:
    """name → (logdir, the program's stdout): the four recordings (FULL_TENSOR)."""
    return recorded(tmp_path_factory, "step-roles-3", RUNS)


def _diff(runs: dict[str, tuple[str, str]], b: str) -> tuple[int, dict[str, Any]]:
    return diff_json(runs["tf1"][0], runs[b][0], "--rtol", "1e-5", "--atol", "1e-6")


def test_programs_are_what_numpy_says(runs: dict[str, tuple[str, str]]) -> None:
    """Each program trains as common.py's numpy model says (losses and final weights), the
    equivalent ones alike and the uncorrected one apart from its first update on."""
    adam = module_at(HERE / "common.py").adam

    for name, corrected in (("tf1", True), ("eager", True), ("function", True),
                            ("uncorrected", False)):
        out = runs[name][1]
        losses = [float(line.split()[-1]) for line in out.splitlines()
                  if line.startswith("step ")]
        final = json.loads(next(line for line in out.splitlines()
                                if line.startswith("final "))[6:])
        want_losses, seen = adam(corrected)
        np.testing.assert_allclose(losses, want_losses, rtol=1e-5, err_msg=name)
        for n in NAMES:
            np.testing.assert_allclose(final[n], seen[-1][n], rtol=1e-4, atol=1e-6,
                                       err_msg=f"{name} {n}")
    # the mistake moves step 0's update: TF1's step is 10× the uncorrected one
    _, right = adam(True)
    _, wrong = adam(False)
    step_right = right[1]["lb"] - right[0]["lb"]
    step_wrong = wrong[1]["lb"] - wrong[0]["lb"]
    np.testing.assert_allclose(step_right, 10 * step_wrong, rtol=1e-6)


def _quantity(step: dict[str, Any], q: str) -> dict[str, Any]:
    return step["quantities"].get(q, {"compared": 0, "different": 0})


@pytest.mark.parametrize("b", ["eager", "function"])
def test_equivalent_rewrites_are_equivalent(runs: dict[str, tuple[str, str]], b: str) -> None:
    """Exit 0; the loss and all five gradients compared at every step (b1's and lb's each
    with its own partner), every update but the last; no rate differs."""
    code, r = _diff(runs, b)
    assert code == 0 and r["verdict"] == "equivalent", r["verdict_text"]
    steps = r["steps"]
    assert [s["step"] for s in steps] == [0, 1, 2], r["verdict_text"]
    for s in steps:
        assert _quantity(s, "loss")["compared"] >= 1, s
        gradient = _quantity(s, "gradient")
        assert gradient["compared"] >= 5 and gradient["different"] == 0, (s["step"], gradient)
        assert _quantity(s, "learning_rate")["different"] == 0, s
    for s in steps[:-1]:
        update = _quantity(s, "update")
        assert update["compared"] >= 5 and update["different"] == 0, (s["step"], update)


def test_a_forgotten_bias_correction_is_an_update_divergence(
        runs: dict[str, tuple[str, str]]) -> None:
    """lr_t without 1/(1 − β₁ᵗ): the update at step 0, not the learning rate; the lines of
    TF1's minimize and of B's update (or its lr_t)."""
    code, r = _diff(runs, "uncorrected")
    first = r["first_divergence"]
    assert code == 1 and first is not None, r["verdict_text"]
    assert (first["step"], first["quantity"]) == (0, "update"), r["verdict_text"]
    assert frame_line(first["a"], "/" + TF1.name) in _marks(TF1, "tf1_update"), first["a"]
    b_lines = _marks(KERAS, "keras_update") | _marks(KERAS, "lr_t")
    assert frame_line(first["b"], "/" + KERAS.name) in b_lines, first["b"]
    for q in ("variable", "loss", "gradient"):
        assert _quantity(r["steps"][0], q)["different"] == 0, (q, r["steps"][0])
