"""Diagnosis rules on real TensorFlow logdirs: one case per rule family, graph and eager.

`tests/programs/diag_program.py` runs every case as a tf.function and eagerly, in one process
per debug mode, and writes the input data of each case. Expected counts are computed here
with numpy from that data; the tensors to diagnose are found from the program's facts (the
tf.function's name, the eager output's tensor id), never from the diagnosis itself.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from support.paths import PROGRAMS
from support.recordings import local_imports, recorded
from support.tf_fork import run_program

from reader import EAGER, GRAPH, DebugLogdir, ReaderError, open_logdir
from reader.diagnosis import Diagnosis, diagnose

pytestmark = pytest.mark.tf


def _record(tmp_path_factory: pytest.TempPathFactory, mode: str
            ) -> tuple[DebugLogdir, dict[str, dict[str, Any]]]:
    """diag_program.py's logdir in `mode` and its cases (kept for the next runs:
    support.recordings)."""
    pytest.importorskip("tensorflow")

    def record(logdir: Path) -> list[dict[str, Any]]:
        with tempfile.TemporaryDirectory() as tmp:
            cases = Path(tmp) / "cases.json"
            status, output = run_program([PROGRAMS / "diag_program.py", logdir, mode, cases])
            if status != 0:
                pytest.fail(f"diag_program {mode} failed (status {status}):\n{output[-3000:]}")
            out: list[dict[str, Any]] = json.loads(cases.read_text())
            return out

    program = PROGRAMS / "diag_program.py"
    logdir, cases = recorded(tmp_path_factory, f"diag-{mode.lower()}", local_imports(program),
                             record, extra=mode)
    return open_logdir(logdir), {c["name"]: c for c in cases}


@pytest.fixture(scope="session")
def full_health(tmp_path_factory: pytest.TempPathFactory) -> tuple[DebugLogdir, dict]:
    return _record(tmp_path_factory, "FULL_HEALTH")


@pytest.fixture(scope="session")
def curt_health(tmp_path_factory: pytest.TempPathFactory) -> tuple[DebugLogdir, dict]:
    return _record(tmp_path_factory, "CURT_HEALTH")


@pytest.fixture(scope="session")
def full_tensor(tmp_path_factory: pytest.TempPathFactory) -> tuple[DebugLogdir, dict]:
    return _record(tmp_path_factory, "FULL_TENSOR")


def graph_rows(L: DebugLogdir, graph_name: str) -> np.ndarray:
    ids = {L.strings.lookup(gid) for gid, g in L.graphs.graphs.items() if g.name == graph_name}
    return np.flatnonzero(np.isin(L.traces.graph_id, list(ids)))


def last_bad_trace(L: DebugLogdir, graph_name: str) -> int:
    rows = graph_rows(L, graph_name)
    bad = rows[L.traces.bad[rows] == 1]
    assert len(bad), f"no NaN/∞ recorded in {graph_name}"
    return int(bad[-1])


def eager_output(L: DebugLogdir, tensor_id: int) -> tuple[int, int]:
    rows = np.flatnonzero(L.outputs.tensor_id == tensor_id)
    assert len(rows) == 1, f"eager tensor #{tensor_id} recorded {len(rows)} times"
    r = int(rows[0])
    return int(L.outputs.execution[r]), int(L.outputs.slot[r])


def both_ways(L: DebugLogdir, case: dict[str, Any]) -> dict[str, Diagnosis]:
    """Diagnose the case's final tensor in its tf.function and in its eager run."""
    ex, slot = eager_output(L, case["eager_tensor_id"])
    return {"graph": diagnose(L, GRAPH, last_bad_trace(L, case["graph"])),
            "eager": diagnose(L, EAGER, ex, slot)}


def f32(a: list[Any]) -> np.ndarray:
    return np.asarray(a, dtype=np.float32)


def check_origin(d: Diagnosis, op_type: str, way: str, graph: str | None) -> None:
    assert d.origin_op_type == op_type
    assert d.origin_kind == (GRAPH if way == "graph" else EAGER)
    if way == "graph":
        assert d.origin_graph_name == graph and d.origin_op_name is not None
    else:
        assert d.origin_op_name is None
    assert "diag_program.py" in (d.origin_user_frame.file if d.origin_user_frame else "")


def out_counts(L: DebugLogdir, d: Diagnosis) -> dict[str, int]:
    h = L.tensor_health(d.origin_kind, d.origin_index, d.origin_slot)
    assert h is not None
    return h.counts("nan", "neg_inf", "pos_inf", "size")


@pytest.mark.parametrize("way", ["graph", "eager"])
def test_log_of_zero_and_of_negatives(full_health: tuple, way: str) -> None:
    L, cases = full_health
    for name, sign_col in (("log_zero", "zero"), ("log_negative", "negative")):
        case = cases[name]
        x = f32(case["data"][0])
        d = both_ways(L, case)[way]
        check_origin(d, "Log", way, case["graph"])
        (inp,) = d.inputs
        assert inp.size == x.size and inp.nan == 0
        assert getattr(inp, sign_col) == np.count_nonzero(x == 0 if name == "log_zero" else x < 0)
        with np.errstate(all="ignore"):
            y = np.log(x)
        assert out_counts(L, d)["neg_inf"] == np.count_nonzero(np.isneginf(y))
        assert out_counts(L, d)["nan"] == np.count_nonzero(np.isnan(y))
        # the claim after the opening: the input's culprits, counted, with the law they break
        claim = d.explanation.split(": ", 1)[1]
        n = int(np.count_nonzero(x == 0 if name == "log_zero" else x < 0))
        if name == "log_zero":
            assert f"holds {n} zeros (log 0 = −∞)" in claim, d.explanation
        else:
            assert f"{n} negative values (log of a negative = NaN)" in claim, d.explanation


@pytest.mark.parametrize("way", ["graph", "eager"])
def test_sqrt_of_negatives(full_health: tuple, way: str) -> None:
    L, cases = full_health
    x = f32(cases["sqrt_negative"]["data"][0])
    d = both_ways(L, cases["sqrt_negative"])[way]
    check_origin(d, "Sqrt", way, "g_sqrt_negative")
    assert d.inputs[0].negative == np.count_nonzero(x < 0)
    assert out_counts(L, d)["nan"] == np.count_nonzero(x < 0)


@pytest.mark.parametrize("way", ["graph", "eager"])
def test_division_by_zero_and_zero_by_zero(full_health: tuple, way: str) -> None:
    L, cases = full_health
    for name in ("div_zero", "zero_div_zero"):
        x, y = (f32(a) for a in cases[name]["data"])
        d = both_ways(L, cases[name])[way]
        check_origin(d, "RealDiv", way, cases[name]["graph"])
        numerator, divisor = d.inputs
        assert divisor.zero == np.count_nonzero(y == 0)
        assert numerator.zero == np.count_nonzero(x == 0)
        with np.errstate(all="ignore"):
            q = x / y
        c = out_counts(L, d)
        assert c["nan"] == np.count_nonzero(np.isnan(q))
        assert c["pos_inf"] + c["neg_inf"] == np.count_nonzero(np.isinf(q))


@pytest.mark.parametrize("way", ["graph", "eager"])
def test_exp_overflow(full_health: tuple, way: str) -> None:
    L, cases = full_health
    x = f32(cases["exp_overflow"]["data"][0])
    d = both_ways(L, cases["exp_overflow"])[way]
    check_origin(d, "Exp", way, "g_exp_overflow")
    assert d.inputs[0].positive == np.count_nonzero(x > 0)
    with np.errstate(all="ignore"):
        assert out_counts(L, d)["pos_inf"] == np.count_nonzero(np.isposinf(np.exp(x)))


@pytest.mark.parametrize("way", ["graph", "eager"])
@pytest.mark.parametrize("name,op", [("inf_minus_inf", "Sub"), ("zero_times_inf", "Mul")])
def test_nan_made_from_infinities(full_health: tuple, way: str, name: str, op: str) -> None:
    """∞ − ∞ and 0 × ∞: the ∞ was born in Exp (the origin); the NaN step is named on the way."""
    L, cases = full_health
    a, b = (f32(v) for v in cases[name]["data"])
    d = both_ways(L, cases[name])[way]
    check_origin(d, "Exp", way, cases[name]["graph"])
    with np.errstate(all="ignore"):
        result = np.exp(a) - np.exp(b) if op == "Sub" else np.exp(a) * b
        assert out_counts(L, d)["pos_inf"] == np.count_nonzero(np.isposinf(np.exp(a)))
    assert len(d.path) >= 2  # from the NaN tensor back to Exp
    (step,) = d.steps
    assert step.startswith(d.path[0]) and op in step
    assert f"in {np.count_nonzero(np.isnan(result))} element" in step


@pytest.mark.parametrize("variant", ["graph", "nested", "eager"])
def test_nan_fed_into_matmul_from_another_function(full_health: tuple, variant: str) -> None:
    L, cases = full_health
    case = cases["matmul_upstream"]
    x = f32(case["data"][0])
    if variant == "eager":
        d = diagnose(L, EAGER, *eager_output(L, case["eager_tensor_id"]))
    else:
        d = diagnose(L, GRAPH, last_bad_trace(
            L, case["graph"] if variant == "graph" else case["nested_graph"]))
        assert L.op_type_of_trace(last_bad_trace(L, case["graph"])) == "MatMul"
    assert d.origin_op_type == "Sqrt" and d.origin_graph_name == case["upstream_graph"]
    assert d.origin_kind == GRAPH
    assert out_counts(L, d)["nan"] == np.count_nonzero(x < 0)
    if variant != "nested":  # argument fed by an eager op: its health is known
        assert d.inputs[0].negative == np.count_nonzero(x < 0)
    else:  # a reused nested call: TF records no edge for its argument; say so, don't guess
        assert d.inputs[0].negative is None and "not recorded" in d.explanation


def test_curt_health_says_what_is_unknown(curt_health: tuple) -> None:
    L, cases = curt_health
    d = both_ways(L, cases["log_zero"])["graph"]
    assert d.origin_op_type == "Log"
    (inp,) = d.inputs
    assert inp.zero is None and inp.negative is None and inp.nan is None
    # the claim: the mode cannot count zeros, yet Log of a NaN-free input making −∞ means
    # the input holds zeros or negatives — never that it holds none, nor that Log is not
    # the cause
    text = d.explanation
    assert "CURT_HEALTH does not count zeros" in text, text
    assert "must hold zeros or negative values" in text, text
    assert "holds no zeros" not in text and "not the cause" not in text, text


def test_full_tensor_counts_from_values(full_tensor: tuple) -> None:
    L, cases = full_tensor
    x = f32(cases["exp_overflow"]["data"][0])
    for way, d in both_ways(L, cases["exp_overflow"]).items():
        check_origin(d, "Exp", way, "g_exp_overflow")
        inp = d.inputs[0]
        assert (inp.negative, inp.zero, inp.positive) == (
            np.count_nonzero(x < 0), np.count_nonzero(x == 0), np.count_nonzero(x > 0))
        assert f"{x.max():.6g}" in d.explanation  # the largest input is quoted from the data
    xs, ys = (f32(v) for v in cases["div_zero"]["data"])
    d = both_ways(L, cases["div_zero"])["graph"]
    assert f"{np.count_nonzero((ys == 0) & (xs != 0))} element" in d.explanation


def test_clean_tensor_and_bad_index(full_health: tuple) -> None:
    L, _ = full_health
    clean = int(np.flatnonzero(L.traces.bad == 0)[0])
    d = diagnose(L, GRAPH, clean)
    assert not d.start_bad and (d.origin_kind, d.origin_index) == (GRAPH, clean)
    with pytest.raises(ReaderError):
        diagnose(L, GRAPH, len(L.traces))
    with pytest.raises(ReaderError):
        diagnose(L, EAGER, 0, slot=99)
