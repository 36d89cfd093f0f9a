"""An eager optimizer written by hand in the user's own slot variables (tests/programs/
eager_slots/, expectations in its EXPECTATIONS.md, proven with numpy by its verify.py;
written before the tool was run): the weight's update reads the gradient only through the
slot, and that read is not recorded (TensorFlow's C fast path reads a variable passed with a
tensor operand and calls no op callback; Keras 3's `assign_add` is a read, an add and an
`AssignVariableOp`). It is still a training step: compared whole against Keras' own SGD
momentum, and a wrong momentum is found at step 1's update.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from compare.migration_fixtures import diff_json, lines_marked, per_step, recorded
from support.paths import PROGRAMS

HERE = PROGRAMS / "eager_slots"
KERAS, HAND = HERE / "keras_momentum.py", HERE / "hand_momentum.py"
RUNS = {"keras": (KERAS,), "same": (HAND, "same"), "mu": (HAND, "mu")}

pytestmark = [pytest.mark.tf, pytest.mark.timeout(900)]


@pytest.fixture(scope="session")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The three recordings (FULL_TENSOR), built once per test run."""
    done = recorded(tmp_path_factory, "eager_slots", RUNS)
    return {name: logdir for name, (logdir, _) in done.items()}


def _diff(runs: dict[str, str], b: str) -> tuple[int, dict[str, Any]]:
    return diff_json(runs["keras"], runs[b], "--rtol", "1e-5", "--atol", "1e-6")


def test_momentum_by_hand_in_slot_variables_is_a_training_step(runs: dict[str, str]) -> None:
    """Equivalent (numpy): exit 0, 3 steps, loss and 4 gradients at every step, 4 updates at
    steps 0-1, nothing different (before: exit 3, 'B has no training step')."""
    code, r = _diff(runs, "same")
    assert code == 0 and r["verdict"] == "equivalent", r["verdict_text"]
    assert r["different"] == 0, r["verdict_text"]
    assert per_step(r, "loss") == {k: (1, 0) for k in range(3)}, r["steps"]
    assert per_step(r, "gradient") == {k: (4, 0) for k in range(3)}, r["steps"]
    assert per_step(r, "update") == {k: (4, 0) for k in range(2)}, r["steps"]


def test_a_wrong_momentum_by_hand_is_found_at_step_1s_update(runs: dict[str, str]) -> None:
    """mu 0.9 for 0.8: step 0 agrees, step 1's update differs (353x the tolerance); B's
    line one of its update lines, A's apply_gradients or the optimizer."""
    code, r = _diff(runs, "mu")
    fd = r["first_divergence"]
    assert code == 1 and fd is not None, r["verdict_text"]
    assert (fd["step"], fd["quantity"]) == (1, "update"), r["verdict_text"]
    a, b = fd["a"]["user_frame"], fd["b"]["user_frame"]
    assert Path(a["file"]).name == KERAS.name, a
    assert a["line"] in lines_marked(KERAS, "AT:update", "AT:opt"), a
    assert Path(b["file"]).name == HAND.name, b
    assert b["line"] in lines_marked(HAND, "CALL:update"), b
