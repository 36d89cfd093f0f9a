"""Activations written out by hand in TF1 against Keras' layers (tests/programs/written_out/,
expectations in its EXPECTATIONS.md, proven with numpy by its verify.py).

TF1 writes tanh as `2·sigmoid(2a) − 1` and the log-softmax as `z − logsumexp(z)`: the layer's
value is a subtraction, and the subtraction was no layer op, so the layer's output was taken
one op early (`2·sigmoid(2a)`, the tanh plus one) and paired with Keras' `Tanh`: an
equivalent pair showed a layer differing at every step. A subtraction now ends a layer when
it takes a constant scalar or another of the layer's own tensors from its value — not data:
the loss's `prediction − target` stays the loss's (`layer_groups.residual`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from compare.migration_fixtures import diff_json, per_step, recorded
from support.paths import PROGRAMS

HERE = PROGRAMS / "written_out"
TF1, KERAS = HERE / "tf1_written.py", HERE / "keras_written.py"
RUNS = {"tf1": (TF1,), "eager_tanh": (KERAS, "eager", "tanh"),
        "function_tanh": (KERAS, "function", "tanh"),
        "function_sigmoid": (KERAS, "function", "sigmoid")}

pytestmark = [pytest.mark.tf, pytest.mark.timeout(900)]


@pytest.fixture(scope="session")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The four recordings (FULL_TENSOR), built once per test run."""
    done = recorded(tmp_path_factory, "written_out", RUNS)
    return {name: logdir for name, (logdir, _) in done.items()}


def _diff(runs: dict[str, str], a: str, b: str) -> tuple[int, dict[str, Any]]:
    return diff_json(runs[a], runs[b], "--rtol", "1e-5", "--atol", "1e-6")


def _marked(program: Path, mark: str) -> set[int]:
    """The lines of `program` carrying `# MARK`."""
    return {n for n, line in enumerate(program.read_text().splitlines(), 1)
            if line.rstrip().endswith(f"# {mark}")}


@pytest.mark.parametrize("b", ["eager_tanh", "function_tanh"])
def test_a_layer_ending_in_a_subtraction_is_compared_whole(runs: dict[str, str],
                                                            b: str) -> None:
    """Equivalent (numpy): exit 0, nothing different, and each step's layer outputs compared
    (the hidden layer's among them: A's `2·sigmoid(2a) − 1` against Keras' tanh) and equal."""
    code, r = _diff(runs, "tf1", b)
    assert code == 0 and r["verdict"] == "equivalent", r["verdict_text"]
    assert r["different"] == 0 and r["divergent_tensors"] == [], r["verdict_text"]
    assert not r["differing_deciding_nothing"], r["differing_deciding_nothing"]
    layers = per_step(r, "layer_output")
    assert sorted(layers) == [0, 1, 2], r["steps"]
    assert all(c >= 2 and d == 0 for c, d in layers.values()), layers
    assert per_step(r, "gradient") == {k: (4, 0) for k in range(3)}, r["steps"]
    assert per_step(r, "loss") == {k: (1, 0) for k in range(3)}, r["steps"]


def test_the_written_out_layer_is_where_a_wrong_activation_shows(runs: dict[str, str]) -> None:
    """B's hidden layer is a sigmoid: the first divergence is step 0's layer output, at A's
    written-out tanh line — the weights read at step 0 are equal."""
    code, r = _diff(runs, "tf1", "function_sigmoid")
    fd = r["first_divergence"]
    assert code == 1 and fd is not None, r["verdict_text"]
    assert (fd["step"], fd["quantity"]) == (0, "layer_output"), r["verdict_text"]
    a, b = fd["a"]["user_frame"], fd["b"]["user_frame"]
    assert Path(a["file"]).name == TF1.name and a["line"] in _marked(TF1, "AT:hidden"), a
    assert Path(b["file"]).name == KERAS.name, b
    assert b["line"] in _marked(KERAS, "BUG:sigmoid") | _marked(KERAS, "CALL:loss"), b
