"""`tfdbg-tui diff` on a TF1 Session program against its TF2 rewrites with one mistake each.

The acceptance cases of the migration journey (issue 18, JOURNEY.md §4). Run A is
tests/programs/migration/tf1_session.py; run B one of its rewrites (`tf2_custom.py` eager or
in `tf.function`, `tf2_keras.py` through `fit`), recorded unmodified with `tfdbg-tui run`.
Every expectation below was written from the programs before running the tool:
- the step: 0-based; a mistake in the schedule's end value or in the optimizer's momentum
  changes nothing at step 0 (lr(0) is the initial rate whatever the end rate; momentum's first
  update equals plain SGD's), so those first differ at step 1;
- the quantity: the first thing the guide's checks would see differ, in the order a step
  computes it (variables, layer outputs, loss, gradients, learning rate, updates);
- the lines: `# MIGRATION-A: <variant>` in the TF1 program, `# MIGRATION-BUG: <variant>` in
  the rewrite — the lines the user would look at and change: for a variable's initial value
  or dtype, the line that creates it; for a schedule or optimizer setting, the line that
  creates the schedule or optimizer (each written on one line, as is the TF1 counterpart).
Tolerances as the guide's float32 comparisons need them (graph mode and eager round
differently): atol 1e-6, rtol 1e-5.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from compare.migration_fixtures import (
    CUSTOM,
    KERAS,
    MIGRATION,
    STEPS,
    TF1,
    diff_json,
    frame_line,
    marked_line,
    marked_lines,
    migration_runs,
    run_diff,
)

from reader import open_logdir
from tfdbg_tui.core.compare import Tolerance, compare
from tfdbg_tui.core.compare.verdict import decide

pytestmark = pytest.mark.tf
__all__ = ["migration_runs"]  # the session fixture, used by name

TOL = ("--atol", "1e-6", "--rtol", "1e-5")


@dataclass(frozen=True)
class Mistake:
    variant: str  # the name in the programs' MIGRATION-* marks
    run_b: str  # migration_fixtures.RUNS
    program_b: str
    step: int
    quantity: str
    run_a: str = "tf1"


MISTAKES = [
    # the schedule's end_learning_rate: lr(0) is equal, lr(1) is not; but the schedule's
    # own (init - end) differs from step 0 on, and it is part of the learning-rate quantity
    # (the schedule's computation: the bug itself, as shared/migration-pairs' fn_lr says)
    Mistake("end_lr", "eager_end_lr", CUSTOM, 0, "learning_rate"),
    # ReLU after layer 2: layer 2's output differs at once (22 of its 40 values are < 0)
    Mistake("relu", "eager_relu", CUSTOM, 0, "layer_output"),
    # from_logits=False on logits: same layers, a different loss
    Mistake("from_logits", "function_from_logits", CUSTOM, 0, "loss"),
    # layer 1's kernel from Glorot instead of the shared weights: the initial value
    Mistake("initializer", "fit_initializer", KERAS, 0, "variable"),
    # layer 2 without a bias: five variables against six; the first *value* that differs is
    # layer 2's output (the step contract compares values; the bias without a partner is
    # named in the verdict, and is the divergence only when no value differs)
    Mistake("nobias", "fit_nobias", KERAS, 0, "layer_output"),
    # the output layer in float16: its variables' dtype (and rounded values)
    Mistake("dtype", "fit_dtype", KERAS, 0, "variable"),
    # momentum 0.9: step 0's update is plain SGD's, step 1's is not
    Mistake("momentum", "fit_momentum", KERAS, 1, "update"),
    # TF1 recorded in FULL_HEALTH, the rewrite in FULL_TENSOR: the counts of negative
    # values after layer 2 differ (ReLU removes them)
    Mistake("relu", "eager_relu", CUSTOM, 0, "layer_output", run_a="tf1_health"),
]
IDS = [f"{m.variant}-{m.run_a}-{m.run_b}" for m in MISTAKES]

# What the tool gets wrong today (filled in after running it; removed as the engine catches up)
XFAIL_VERDICT: dict[str, str] = {}
# (B's schedule/optimizer constructor line is on no recorded stack; the tool finds it from the
# class whose method made the op, in the captured sources: core/compare/creation.py)
XFAIL_LINES: dict[str, str] = {}


def _params(xfail: dict[str, str]) -> list[object]:
    return [pytest.param(m, id=i, marks=[pytest.mark.xfail(strict=True, reason=xfail[i])]
                         if i in xfail else []) for m, i in zip(MISTAKES, IDS, strict=True)]


@pytest.mark.parametrize("m", _params(XFAIL_VERDICT))
def test_mistake_diverges_at_its_step_and_quantity(migration_runs: dict[str, str],
                                                   m: Mistake) -> None:
    code, r = diff_json(migration_runs[m.run_a], migration_runs[m.run_b], *TOL)
    assert (code, r.get("verdict"), r["equivalent"]) == (1, "diverge", False)
    first = r["first_divergence"]
    assert first is not None
    assert (first.get("step"), first.get("quantity")) == (m.step, m.quantity)


@pytest.mark.parametrize("m", _params(XFAIL_LINES))
def test_mistake_is_shown_on_both_programs_lines(migration_runs: dict[str, str],
                                                m: Mistake) -> None:
    _, r = diff_json(migration_runs[m.run_a], migration_runs[m.run_b], *TOL)
    first = r["first_divergence"]
    assert first is not None
    assert frame_line(first["a"], TF1) in marked_lines(TF1, "A", m.variant)
    assert frame_line(first["b"], m.program_b) == marked_line(m.program_b, "BUG", m.variant)


def _code(program: str, line: int) -> str:
    return (MIGRATION / program).read_text().splitlines()[line - 1].strip()


def test_human_output_names_step_quantity_and_both_lines(migration_runs: dict[str, str]
                                                         ) -> None:
    """What a user reads: the step, the quantity, and both programs' marked lines."""
    code, out, err = run_diff(migration_runs["tf1"], migration_runs["eager_relu"], *TOL)
    assert code == 1 and "Traceback" not in err
    assert re.search(r"\bstep 0\b", out, re.I), out
    assert re.search(r"layer[ _]output", out, re.I), out
    a = _code(TF1, marked_line(TF1, "A", "relu"))
    b = _code(CUSTOM, marked_line(CUSTOM, "BUG", "relu"))
    flat = " ".join(out.split())  # the text may wrap a long source line anywhere
    assert " ".join(a.split()) in flat and " ".join(b.split()) in flat, out


def test_human_output_names_a_later_step(migration_runs: dict[str, str]) -> None:
    code, out, err = run_diff(migration_runs["tf1"], migration_runs["eager_end_lr"], *TOL)
    assert code == 1 and "Traceback" not in err
    assert re.search(r"\bstep 1\b", out, re.I), out
    assert re.search(r"learning[ _]rate", out, re.I), out


def test_human_output_names_the_session_graph(migration_runs: dict[str, str]) -> None:
    """The TF1 side's graph has no function name; it is the Session's graph, not "unnamed"."""
    code, out, err = run_diff(migration_runs["tf1"], migration_runs["function_from_logits"],
                              *TOL)
    assert code == 1 and "Traceback" not in err
    assert "unnamed" not in out.lower(), out


OLD_TOP = {"equivalent": bool, "compared": int, "different": int, "unmatched_a": int,
           "unmatched_b": int}
OLD_SIDE = {"kind": str, "index": int, "op_type": str}  # and op_name: None for an eager op


def test_json_keeps_the_fields_scripts_use(migration_runs: dict[str, str]) -> None:
    """Scripts written against today's `diff --json` keep working: nothing renamed."""
    _, r = diff_json(migration_runs["tf1"], migration_runs["eager_relu"], *TOL)
    for key, kind in OLD_TOP.items():
        assert isinstance(r[key], kind), key
    first = r["first_divergence"]
    for key in ("max_abs_error", "max_rel_error", "reason", "step", "quantity"):
        assert key in first, key
    for side, program in (("a", TF1), ("b", CUSTOM)):
        entry = first[side]
        for key, kind in OLD_SIDE.items():
            assert isinstance(entry[key], kind), (side, key)
        assert entry["index"] >= 0 and entry["op_type"] and "op_name" in entry
        if entry["kind"] == "graph":
            assert isinstance(entry["op_name"], str) and entry["op_name"]
        frame = entry["user_frame"]
        assert isinstance(frame["line"], int) and "function" in frame and "code" in frame
        assert frame["file"].endswith(program), frame


def test_too_little_recorded_is_not_a_verdict(migration_runs: dict[str, str],
                                              tmp_path: Path) -> None:
    """B recorded in NO_TENSOR mode has no values or counts: exit 3, not "equivalent" nor
    "diverge", and the message says how to record B so that it can be compared.

    A NO_TENSOR run is incomparable before any step is looked at; so, second, a run whose
    every step is recorded but one step is only partly readable: the `tf.function` rewrite,
    equivalent to TF1, with step 1's loss record damaged after the index was built (a file
    rewritten under the reader). Everything read compares equal, and the verdict must still
    be "incomparable", naming that step and quantity — never "equivalent" on what was left."""
    code, r = diff_json(migration_runs["tf1"], migration_runs["eager_no_tensor"], *TOL)
    assert (code, r.get("verdict"), r["equivalent"]) == (3, "incomparable", False)
    code, out, err = run_diff(migration_runs["tf1"], migration_runs["eager_no_tensor"], *TOL)
    assert code == 3 and "Traceback" not in err
    assert "NO_TENSOR" in out + err and "FULL_TENSOR" in out + err, out + err

    tol = Tolerance(rtol=1e-5, atol=1e-6)
    b_dir = tmp_path / "function"
    shutil.copytree(migration_runs["function"], b_dir)
    a, b = open_logdir(migration_runs["tf1"]), open_logdir(str(b_dir))
    assert decide(compare(a, b, tol)) == ("equivalent", [])  # the runs agree where readable
    op_types = [b.strings[int(i)] for i in b.traces.col("op_type")]
    means = [row for row, t in enumerate(op_types) if t == "Mean"]
    assert len(means) == STEPS  # `loss = tf.reduce_mean(losses)`, once per training step
    (traces,) = b_dir.glob("*.graph_execution_traces")
    blob = bytearray(traces.read_bytes())
    blob[int(b.traces.col("offset")[means[1]]) + 12 + 8] ^= 0x01  # a payload byte: bad CRC
    traces.write_bytes(bytes(blob))
    c = compare(a, b, tol)
    verdict, missing = decide(c)
    assert (verdict, c.different) == ("incomparable", 0), (verdict, missing)
    assert c.skipped >= 1 and c.compared > 0  # the rest was read and compared
    assert any("step 1" in m and "loss" in m for m in missing), missing


def test_every_mistake_is_marked_once_on_each_side() -> None:
    """The marks the tests above read exist (a lost mark must not hide behind an xfail)."""
    for m in MISTAKES:
        assert marked_lines(TF1, "A", m.variant)
        assert "MIGRATION-BUG" in _code(m.program_b, marked_line(m.program_b, "BUG", m.variant))


def _common() -> ModuleType:
    """migration_common, loaded without TensorFlow."""
    spec = importlib.util.spec_from_file_location("migration_common",
                                                  MIGRATION / "migration_common.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_programs_promise_what_the_expectations_rely_on() -> None:
    """Recomputed with numpy from the shared data: the mistakes' first visible effects."""
    c = _common()
    d = c.make_data()

    def lr(k: int, end: float) -> float:
        return (c.LR0 - end) * (1 - min(k, c.DECAY) / c.DECAY) ** c.POWER + end

    # end_lr: the same rate at step 0, a different one at step 1
    assert lr(0, c.LR_END) == lr(0, 0.0) and lr(1, c.LR_END) != lr(1, 0.0)
    # relu after layer 2 changes its output at once: some of its values are negative
    h1 = np.maximum(d["x"] @ d["w1"] + d["b1"], 0)
    h2 = h1 @ d["w2"] + d["b2"]
    assert (h2 < 0).sum() > 0
    # from_logits=False on logits: they are not probabilities
    logits = h2 @ d["w3"] + d["b3"]
    assert (logits < 0).any()
    # float16 rounds the output layer's weights beyond rtol 1e-5
    w3 = d["w3"]
    assert np.max(np.abs(w3.astype(np.float16) - w3) / np.abs(w3)) > 1e-5


@pytest.mark.parametrize("m", [pytest.param(m, id=i) for m, i in zip(MISTAKES, IDS, strict=True)])
def test_the_rewrite_as_run_a_gives_the_same_answer(migration_runs: dict[str, str],
                                                    m: Mistake) -> None:
    """`diff tf2-run tf1-run`: a user may pass the runs in either order; the step, the
    quantity and the two lines are the same, each on its own side."""
    code, r = diff_json(migration_runs[m.run_b], migration_runs[m.run_a], *TOL)
    assert (code, r.get("verdict")) == (1, "diverge")
    first = r["first_divergence"]
    assert (first.get("step"), first.get("quantity")) == (m.step, m.quantity)
    assert frame_line(first["b"], TF1) in marked_lines(TF1, "A", m.variant)
