"""An embedding table two runs gather differently, paired as one variable and compared by id
(issue 29; tfdbg_tui/core/compare/contract/tables.py, tfdbg_tui/core/compare/keyed.py).

Real recordings of tests/programs/tables/, programs unlike the fourth blind corpus's bag of
words: matrix factorization with a user table and an item table (score = <U[user],
V[item]> + b, mean squared error, plain gradient descent). TF1 (tf1_factors.py) looks each
distinct id up once (tf.unique, embedding_lookup of the distinct ids, a gather back to the
examples): it reads 7 user rows and 5 item rows, and its gradients are one row per distinct
id. Keras (keras_factors.py: two Embedding layers, Dot, a bias; in a tf.function or fit)
reads a row per example, 12 of each, repeats included, and its gradients are a row per
example. Before, the tables' reads had other shapes, so neither table found a partner
("in A only"), nothing of them was compared, and equivalent runs diverged at step 0's
variables.

Expectations, written before the tool was run on these programs (numpy: common.py, checked
against the programs' own losses and final weights):
- tf1 vs function, tf1 vs fit: exit 0, equivalent; both tables and the bias paired; every
  step compares the loss and three gradients (the tables' summed per id: Keras' rows of one
  user add up to TF1's one row), every update but the last (the rows each step reads).
- tf1 vs function with the item table started from the user table's rows: exit 1, step 0,
  `variable`, of the item table; A's line the get_variable line, B's the set_weights line.
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

HERE = PROGRAMS / "tables"
TF1, KERAS = HERE / "tf1_factors.py", HERE / "keras_factors.py"
RUNS = {"tf1": (TF1,), "function": (KERAS, "function", "ok"), "fit": (KERAS, "fit", "ok"),
        "wrong_items": (KERAS, "function", "wrong_items")}

pytestmark = [pytest.mark.tf, pytest.mark.timeout(900)]


def _marks(program: Path, mark: str) -> set[int]:
    return {n for n, line in enumerate(program.read_text().splitlines(), 1)
            if f"# LINE:{mark}" in line}


@pytest.fixture(scope="session")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[str, str]]:
    """name → (logdir, the program's stdout): the four recordings (FULL_TENSOR)."""
    return recorded(tmp_path_factory, "embedding-tables", RUNS)


def _diff(runs: dict[str, tuple[str, str]], b: str) -> tuple[int, dict[str, Any]]:
    return diff_json(runs["tf1"][0], runs[b][0], "--rtol", "1e-5", "--atol", "1e-6")


def _quantity(step: dict[str, Any], q: str) -> dict[str, Any]:
    return step["quantities"].get(q, {"compared": 0, "different": 0})


def test_programs_are_what_numpy_says(runs: dict[str, tuple[str, str]]) -> None:
    """Each program trains as common.py's numpy model says; the mistake's item table
    differs at step 0, and only it."""
    train = module_at(HERE / "common.py").train

    for name, wrong in (("tf1", False), ("function", False), ("fit", False),
                        ("wrong_items", True)):
        out = runs[name][1]
        losses = [float(line.split()[-1]) for line in out.splitlines()
                  if line.startswith("step ")]
        final = json.loads(next(line for line in out.splitlines()
                                if line.startswith("final "))[6:])
        want, seen = train(wrong)
        np.testing.assert_allclose(losses, want, rtol=1e-5, err_msg=name)
        for n in ("users", "items", "bias"):
            np.testing.assert_allclose(final[n], seen[-1][n], rtol=1e-4, atol=1e-6,
                                       err_msg=f"{name} {n}")
    _, right = train(False)
    _, wrong_seen = train(True)
    assert np.array_equal(right[0]["users"], wrong_seen[0]["users"])
    assert np.abs(right[0]["items"] - wrong_seen[0]["items"]).max() > 0.1


@pytest.mark.parametrize("b", ["function", "fit"])
def test_tables_gathered_differently_are_compared_by_id(runs: dict[str, tuple[str, str]],
                                                        b: str) -> None:
    """Exit 0; both tables paired; the loss and three gradients compared at every step,
    three updates at steps 0 and 1."""
    code, r = _diff(runs, b)
    assert code == 0 and r["verdict"] == "equivalent", r["verdict_text"]
    assert not any("only" in n and "users" in n for n in r["notes"]), r["notes"]
    steps = r["steps"]
    assert [s["step"] for s in steps] == [0, 1, 2], r["verdict_text"]
    for s in steps:
        assert _quantity(s, "loss")["compared"] >= 1, s
        gradient = _quantity(s, "gradient")
        assert gradient["compared"] >= 3 and gradient["different"] == 0, (s["step"], gradient)
    for s in steps[:-1]:
        update = _quantity(s, "update")
        assert update["compared"] >= 3 and update["different"] == 0, (s["step"], update)


def test_a_table_started_from_other_rows_differs_at_step_0(
        runs: dict[str, tuple[str, str]]) -> None:
    """The item table from the user table's rows: its initial value at step 0, by id."""
    code, r = _diff(runs, "wrong_items")
    first = r["first_divergence"]
    assert code == 1 and first is not None, r["verdict_text"]
    assert (first["step"], first["quantity"]) == (0, "variable"), r["verdict_text"]
    assert "items" in first["what"], first["what"]
    assert frame_line(first["a"], "/" + TF1.name) in _marks(TF1, "var"), first["a"]
    assert frame_line(first["b"], "/" + KERAS.name) in _marks(KERAS, "restore"), first["b"]
