"""`tfdbg-tui diff` on pairs of real runs: the acceptance cases of the compare feature.

Each case runs the command in a fresh process and reads its `--json` result. Expectations
come from the programs themselves — the lines marked `# line: <name>`, the seeded data
recomputed with numpy, the NaN origin as the diagnosis finds it — never from the engine.
"""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest
from compare.pairs_support import PAIRS, diff_json, marker_line, run_diff

from reader import GRAPH, open_logdir
from reader.diagnosis import diagnose

pytestmark = pytest.mark.tf


def _line(entry: dict, program: str) -> int:
    uf = entry["user_frame"]
    assert uf is not None and uf["file"].endswith(program), uf
    return int(uf["line"])


def test_same_program_twice_is_equivalent(pair_runs: dict[str, str]) -> None:
    code, r = diff_json(pair_runs["base"], pair_runs["base_again"])
    assert code == 0 and r["equivalent"] is True
    assert r["different"] == 0 and r["first_divergence"] is None
    assert r["unmatched_a"] == r["unmatched_b"] == 0
    L = open_logdir(pair_runs["base"])
    # every tensor of the run was compared, each with its namesake
    assert r["compared"] == len(L.traces) + len(L.outputs) > 100
    assert r["aligned"] == {"by_name": r["compared"], "by_structure": 0}


def test_exact_comparison_catches_a_different_value(pair_runs: dict[str, str]) -> None:
    """The seeded runs are bitwise equal; a run with one changed constant is not, even at
    the default tolerance — so the test above could fail."""
    code, r = diff_json(pair_runs["base"], pair_runs["epsilon"])
    assert code == 1 and r["equivalent"] is False and r["different"] > 0


@pytest.mark.parametrize("variant, base_line, variant_line, types", [
    ("relu6", "relu", "relu6", ({"Relu"}, {"Relu6"})),
    ("epsilon", "eps", "epsilon", ({"Const", "AddV2"}, {"Const", "AddV2"})),
    # a trained variable one run lacks: the first *value* that differs is the layer's
    # output (A's bias add against B's matmul, on the same two lines); the lone variable is
    # the divergence only when no value differs (issue 29's step contract)
    ("nobias", "bias", "nobias", ({"BiasAdd"}, {"MatMul"})),
])
def test_one_changed_line_diverges_at_its_op(pair_runs: dict[str, str], variant: str,
                                             base_line: str, variant_line: str,
                                             types: tuple[set[str], set[str]]) -> None:
    code, r = diff_json(pair_runs["base"], pair_runs[variant])
    assert code == 1 and r["equivalent"] is False
    first = r["first_divergence"]
    assert first is not None
    assert _line(first["a"], "mlp.py") == marker_line("mlp.py", base_line)
    assert _line(first["b"], "mlp.py") == marker_line("mlp.py", variant_line)
    assert first["a"]["op_type"] in types[0] and first["b"]["op_type"] in types[1]
    if variant == "nobias":  # the bias add's output, a forward op of step 0, differs
        assert first["step"] == 0 and first["quantity"] in ("layer_output", "other")
        assert first["reason_code"] == "values" and first["max_abs_error"] > 0
        assert "b1 without a partner" in r["verdict_text"] or "without a partner" in \
            r["verdict_text"], r["verdict_text"]
    else:
        assert first["reason_code"] == "values" and first["max_abs_error"] > 0
    assert first["occurrence"] == 0  # the first training step already differs
    code_line = first["b"]["user_frame"]["code"]
    assert code_line.endswith(f"# line: {variant_line}")


def _mlp_data() -> dict[str, np.ndarray]:
    """The pair programs' seeded data, loaded without TensorFlow."""
    spec = importlib.util.spec_from_file_location("pairs_mlp_data", PAIRS / "mlp_data.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.make_data()


def test_relu6_error_is_what_relu6_clips(pair_runs: dict[str, str]) -> None:
    """Recompute the first step's pre-activation with numpy: Relu6 removes max(z) − 6."""
    _, r = diff_json(pair_runs["base"], pair_runs["relu6"])
    first = r["first_divergence"]
    data = _mlp_data()
    z = data["x"].astype(np.float64) @ data["w1"] + data["b1"]
    assert z.max() > 6  # the program promises values above 6
    assert first["max_abs_error"] == pytest.approx(z.max() - 6.0, rel=1e-4)
    assert tuple(first["worst_index"]) == np.unravel_index(np.argmax(z), z.shape)
    assert first["aligned_by"] == "structure"  # Relu and Relu6 have different names


def test_nan_in_b_only_diverges_at_its_origin(pair_runs: dict[str, str]) -> None:
    code, r = diff_json(pair_runs["base_health"], pair_runs["nan_health"])
    assert code == 1
    first = r["first_divergence"]
    assert first["reason_code"] == "nan_or_inf_one_side"
    # the origin as the diagnosis of B's own first alert finds it
    B = open_logdir(pair_runs["nan_health"])
    alerts = B.alerts()
    origin = diagnose(B, int(alerts.kind[0]), int(alerts.index[0]), int(alerts.slot[0]))
    assert (first["b"]["kind"], first["b"]["index"]) == ("graph", origin.origin_index)
    assert origin.origin_kind == GRAPH
    assert _line(first["b"], "mlp.py") == marker_line("mlp.py", "nan")
    assert _line(first["a"], "mlp.py") == marker_line("mlp.py", "nonan")
    nan = int(B.traces.nan[origin.origin_index])
    assert nan > 0 and f"NaN in B only ({nan:,} of" in first["reason"]
    assert first["max_abs_error"] is None  # health modes record no values


def test_modes_compare_on_what_both_have(pair_runs: dict[str, str]) -> None:
    """FULL_TENSOR against FULL_HEALTH: the −/0/+ counts come from the values."""
    code, r = diff_json(pair_runs["base"], pair_runs["base_health"])
    assert code == 0 and r["equivalent"] and r["compared"] > 100
    code, r = diff_json(pair_runs["base"], pair_runs["nan_health"])
    assert code == 1
    assert _line(r["first_divergence"]["b"], "mlp.py") == marker_line("mlp.py", "nan")


TF1_TF2 = {  # TF1 op (graph-mode names) → the Keras op it must align with
    "MatMul": "dense_1/MatMul", "add": "dense_1/BiasAdd", "Relu": "dense_1/Relu",
    "MatMul_1": "dense_1_2/MatMul", "add_1": "dense_1_2/BiasAdd", "Relu_1": "dense_1_2/Relu",
    "MatMul_2": "dense_2_1/MatMul", "add_2": "dense_2_1/BiasAdd", "Mean": "Mean",
}


def test_migration_tf1_and_tf2_align_by_structure_and_agree(pair_runs: dict[str, str]) -> None:
    from tfdbg_tui.core.compare import EQUAL, Tolerance, compare

    A, B = open_logdir(pair_runs["tf1"]), open_logdir(pair_runs["tf2"])
    c = compare(A, B, Tolerance(rtol=1e-5))
    p = c.pairs
    graph = p.kind == GRAPH
    for tf1_name, keras_name in TF1_TF2.items():
        rows = np.flatnonzero(A.traces.op_name == A.strings.lookup(tf1_name))
        assert len(rows) == 3, tf1_name  # one per training step
        for step, row in enumerate(rows.tolist()):
            (k,) = np.flatnonzero(graph & (p.a_row == row))
            other = int(p.b_row[k])
            assert B.op_name_of_trace(other) == keras_name
            assert int(p.status[k]) == EQUAL, (tf1_name, step)
            assert int(p.how[k]) != 0  # aligned by structure: the names differ
    code, r = diff_json(pair_runs["tf1"], pair_runs["tf2"], "--rtol", "1e-5")
    assert code == 0 and r["equivalent"]
    assert r["graphs"] == [{"a": "", "b": "train_step", "aligned_by": "structure"}]


def test_migration_needs_its_tolerance(pair_runs: dict[str, str]) -> None:
    """Graph mode and a tf.function round differently: exact comparison must tell."""
    code, r = diff_json(pair_runs["tf1"], pair_runs["tf2"], "--rtol", "0", "--atol", "0")
    assert code == 1 and r["different"] > 0
    assert 0 < r["first_divergence"]["max_abs_error"] < 1e-5


def test_migration_changed_weight_diverges_at_the_initial_value(pair_runs: dict[str, str]
                                                                ) -> None:
    """A changed initial weight is a step-0 `variable` divergence; A's line is the one that
    creates and initialises the variable (issue 18's contract), B's the line reading it (B
    set its weights before recording began, so nothing else of B names that variable)."""
    code, r = diff_json(pair_runs["tf1"], pair_runs["tf2_perturbed"], "--rtol", "1e-5")
    assert code == 1 and r["verdict"] == "diverge"
    first = r["first_divergence"]
    assert first["step"] == 0 and first["quantity"] == "variable"
    assert _line(first["a"], "migration_tf1.py") == marker_line("migration_tf1.py", "w1")
    assert _line(first["b"], "migration_tf2.py") == marker_line("migration_tf2.py", "layer1")
    assert first["occurrence"] == 0
    assert first["worst_index"] == [0, 0]  # the kernel itself: one weight moved by 0.5
    assert first["max_abs_error"] == pytest.approx(0.5, rel=1e-6)


def test_human_output_shows_both_lines(pair_runs: dict[str, str]) -> None:
    code, out, err = run_diff(pair_runs["base"], pair_runs["relu6"])
    assert code == 1 and not err
    assert "First divergence" in out and "The runs diverge" in out
    assert "tf.nn.relu(z)  # line: relu" in out and "tf.nn.relu6(z)  # line: relu6" in out
    code, out, _ = run_diff(pair_runs["base"], pair_runs["base_again"])
    assert code == 0 and "Equivalent within" in out


def test_limit_shortens_the_lists_never_the_first_divergence(pair_runs: dict[str, str]) -> None:
    _, full = diff_json(pair_runs["base"], pair_runs["relu6"])
    code, r = diff_json(pair_runs["base"], pair_runs["relu6"], "--limit", "0")
    assert code == 1 and r["first_divergence"] == full["first_divergence"]
    assert r["divergences"] == r["divergent_tensors"] == r["aligned_by_structure"] == []
    assert len(full["divergences"]) == 9 and len(full["divergent_tensors"]) == 10
