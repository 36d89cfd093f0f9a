"""Runs that start from different weights: the first divergence says how to fix it (issue 18).

fit_initializer's first layer takes Glorot-uniform weights instead of the shared ones (its line
is marked `# MIGRATION-BUG: initializer`): both runs are float32, so the step-0 difference is
the starting weights, and the fix the migration guide gives is to seed the random ops alike
(`tf.keras.utils.set_random_seed`, initializer seeds, `DeterministicRandomTestTool` from
`tf_keras`) or to load one checkpoint into both. A float16 layer (fit_dtype) also differs at
step 0, but by rounding: a seed would not fix it, so the seed advice must not be given there;
nor for a mistake that is not a starting weight (relu: a layer output).
"""

from __future__ import annotations

import re

import pytest
from compare.migration_fixtures import diff_json, migration_runs, run_diff

pytestmark = pytest.mark.tf
__all__ = ["migration_runs"]  # the session fixture, used by name

TOL = ("--atol", "1e-6", "--rtol", "1e-5")


def _advice(text: str) -> bool:
    """Does `text` give both fixes: seeding alike (one of the ways) and one checkpoint?"""
    seeds = ("set_random_seed" in text and "seed=" in text
             and "DeterministicRandomTestTool" in text and "tf_keras" in text)
    return seeds and bool(re.search(r"checkpoint", text, re.I))


def test_different_initial_weights_say_how_to_fix(migration_runs: dict[str, str]) -> None:
    code, r = diff_json(migration_runs["tf1"], migration_runs["fit_initializer"], *TOL)
    first = r["first_divergence"]
    assert code == 1 and (first["step"], first["quantity"]) == (0, "variable")
    assert first.get("hint") and _advice(first["hint"]), first.get("hint")
    code, out, err = run_diff(migration_runs["tf1"], migration_runs["fit_initializer"], *TOL)
    assert code == 1 and "Traceback" not in err
    assert _advice(" ".join(out.split())), out


@pytest.mark.parametrize("run_b", ["fit_dtype", "eager_relu"])
def test_no_seed_advice_where_a_seed_would_not_help(migration_runs: dict[str, str],
                                                    run_b: str) -> None:
    _, r = diff_json(migration_runs["tf1"], migration_runs[run_b], *TOL)
    first = r["first_divergence"]
    assert first is not None and "hint" in first
    assert "set_random_seed" not in (first["hint"] or "")
    if run_b == "fit_dtype":  # what it is instead: the dtypes, named
        assert first["hint"] and "float16" in first["hint"], first["hint"]
