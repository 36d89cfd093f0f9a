"""`diff`'s training-step options on the TF1/TF2 pair of tests/programs/pairs: --tight-steps,
--map, --csv, and their errors (issue 18).

Expectations come from the programs: migration_tf1.py and migration_tf2.py train the same
three-layer model from the same weights for `migration_data.STEPS` steps, and agree within
rtol 1e-5 but not exactly (graph mode and tf.function round differently — test_diff_pairs).
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pytest
from compare.pairs_support import diff_json, run_diff

pytestmark = pytest.mark.tf

STEPS = 3  # migration_data.STEPS


def test_tight_steps_judge_the_first_steps_on_atol_alone(pair_runs: dict[str, str]) -> None:
    """rtol 1 tolerates any of the pair's rounding differences; with --tight-steps covering
    every step, rtol no longer applies and atol 0 demands exact equality — which the pair
    does not have. The tolerances in effect are printed with the verdict."""
    a, b = pair_runs["tf1"], pair_runs["tf2"]
    code, r = diff_json(a, b, "--rtol", "1", "--atol", "0")
    assert (code, r["verdict"]) == (0, "equivalent")
    code, r = diff_json(a, b, "--rtol", "1", "--atol", "0", "--tight-steps", str(STEPS))
    assert (code, r["verdict"]) == (1, "diverge")
    assert r["tolerances"]["tight_steps"] == STEPS
    assert r["first_divergence"]["step"] in range(STEPS)
    code, out, _ = run_diff(a, b, "--rtol", "0", "--atol", "1e-4", "--tight-steps", "2")
    assert code == 0, out
    assert "steps 0–1: atol=0.0001 (rtol 0); from step 2: rtol=0, atol=0.0001" in out


def test_map_pairs_the_variables_the_user_names(pair_runs: dict[str, str],
                                                tmp_path: Path) -> None:
    """Mapping A's first kernel (4×8) onto B's second (8×6) is obeyed — and so the runs
    diverge at step 0's variables: that pair differs in shape, and A's second kernel is left
    without a partner of its shape."""
    a, b = pair_runs["tf1"], pair_runs["tf2"]
    _, r = diff_json(a, b, "--rtol", "1e-5")
    assert {"a": "w1", "b": "dense_1/kernel"} in r["training"]["variables"]
    mapping = tmp_path / "map.txt"
    mapping.write_text("# A = B\n^w1$ = dense_1_2/kernel\n")
    code, r = diff_json(a, b, "--rtol", "1e-5", "--map", str(mapping))
    assert code == 1
    assert {"a": "w1", "b": "dense_1_2/kernel"} in r["training"]["variables"]
    first = r["first_divergence"]
    assert (first["step"], first["quantity"]) == (0, "variable")
    assert first["reason_code"] in ("shape", "variable_missing")
    assert "w2" in r["training"]["unpaired_variables"]["a"]


@pytest.mark.parametrize("content", [None, "w1 dense/kernel\n", "w1( = x\n"])
def test_a_bad_map_is_one_line_error(pair_runs: dict[str, str], tmp_path: Path,
                                     content: str | None) -> None:
    mapping = tmp_path / "map.txt"
    if content is not None:
        mapping.write_text(content)
    code, out, err = run_diff(pair_runs["tf1"], pair_runs["tf2"], "--map", str(mapping))
    assert code == 2 and not out
    assert len(err.strip().splitlines()) == 1 and "--map" in err and "Traceback" not in err


def test_csv_file_holds_the_steps_table_of_json(pair_runs: dict[str, str],
                                                tmp_path: Path) -> None:
    out_csv = tmp_path / "steps.csv"
    code, r = diff_json(pair_runs["tf1"], pair_runs["tf2_perturbed"], "--rtol", "1e-5",
                        "--csv", str(out_csv))
    assert code == 1
    rows = list(csv.DictReader(io.StringIO(out_csv.read_text())))
    table = {(int(x["step"]), x["quantity"]): x for x in rows}
    assert {s["step"] for s in r["steps"]} == set(range(STEPS))
    for s in r["steps"]:
        for q, v in s["quantities"].items():
            row = table[(s["step"], q)]
            assert (int(row["compared"]), int(row["different"])) == (v["compared"],
                                                                   v["different"])
    # the changed weight: step 0's variables differ, and it spreads to every later loss
    assert int(table[(0, "variable")]["different"]) == 1
    assert all(int(table[(k, "loss")]["different"]) == 1 for k in range(STEPS))


def test_human_output_leads_with_the_steps_table(pair_runs: dict[str, str]) -> None:
    code, out, _ = run_diff(pair_runs["tf1"], pair_runs["tf2_perturbed"], "--rtol", "1e-5")
    assert code == 1
    assert re.search(r"Training steps: A 3, B 3; compared 3, 6 variables paired", out), out
    assert "First divergence: training step 0, variable (initial w1" in out, out
