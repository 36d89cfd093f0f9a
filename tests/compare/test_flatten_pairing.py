"""A flatten is not paired with an activation (tests/programs/flatten_pairing/: Conv1D +
Flatten in a Keras model called eagerly, against TF1's conv, ELU and reshape on lines of
their own; expectations in its EXPECTATIONS.md, proven with numpy by its verify.py).

Every op of an eager model call carries one line, so the convolution, its activation and
the Flatten after it fall in one group of the conv's variables, whose deepest output is the
Flatten's reshape; A's activation was then compared with B's reshape (the same numbers in
another shape), and a wrong activation was shown at B's Flatten. A reshape paired with a
tensor of another shape is compared at the reshape's input when that input has the other's
shape.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from compare.migration_fixtures import diff_json, lines_marked, recorded
from support.paths import PROGRAMS

HERE = PROGRAMS / "flatten_pairing"
TF1, TF2 = HERE / "tf1_seq.py", HERE / "tf2_seq_eager.py"
RUNS = {"tf1": (TF1,), "elu": (TF2, "elu"), "relu": (TF2, "relu")}

pytestmark = [pytest.mark.tf, pytest.mark.timeout(900)]


@pytest.fixture(scope="session")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The three recordings (FULL_TENSOR), built once per test run."""
    done = recorded(tmp_path_factory, "flatten_pairing", RUNS)
    return {name: logdir for name, (logdir, _) in done.items()}


def _diff(runs: dict[str, str], b: str) -> tuple[int, dict[str, Any]]:
    return diff_json(runs["tf1"], runs[b], "--rtol", "1e-5", "--atol", "1e-6")


def test_the_same_activation_is_equivalent(runs: dict[str, str]) -> None:
    """ELU in both (numpy): exit 0, nothing different, layer outputs compared every step."""
    code, r = _diff(runs, "elu")
    assert code == 0 and r["verdict"] == "equivalent", r["verdict_text"]
    assert r["different"] == 0, r["verdict_text"]
    layers = {s["step"]: s["quantities"]["layer_output"]["compared"] for s in r["steps"]}
    assert sorted(layers) == [0, 1, 2] and min(layers.values()) >= 2, r["steps"]


def test_a_wrong_activation_is_shown_at_the_conv_not_the_flatten(runs: dict[str, str]
                                                                  ) -> None:
    """ReLU for ELU: step 0's layer output, A at its conv line, B at the Conv1D's
    construction (where the activation is chosen) — never the Flatten's line; the tensors
    compared are both [6, 8, 3] activations."""
    code, r = _diff(runs, "relu")
    fd = r["first_divergence"]
    assert code == 1 and fd is not None, r["verdict_text"]
    assert (fd["step"], fd["quantity"]) == (0, "layer_output"), r["verdict_text"]
    a, b = fd["a"]["user_frame"], fd["b"]["user_frame"]
    assert Path(a["file"]).name == TF1.name and a["line"] in lines_marked(TF1, "AT:conv"), a
    assert Path(b["file"]).name == TF2.name and b["line"] in lines_marked(TF2, "BUG:relu"), b
    assert fd["b"]["op_type"] != "Reshape" and fd["b"]["size"] == 6 * 8 * 3, fd["b"]
