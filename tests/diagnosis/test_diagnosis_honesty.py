"""The diagnosis names a cause only where the records support it (issue 9's rule).

"Its inputs were finite, so the result overflowed" is true of sums, products and dot
products; of an op with no rule of its own it is a guess, of an op that only moves values it
is impossible, and of a reduction over an empty tensor it is wrong (0/0). A float16 gradient
that the program itself checks with IsFinite is mixed precision's loss scaling at work.

Each logdir here is one small graph written with the TF-free writer (no TensorFlow run): the
ops and health counts are the facts, the expected words follow from them, not from the code.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support.tui import T0, health

from dumper.writer import LogdirWriter
from reader import GRAPH, DebugLogdir, open_logdir
from reader.diagnosis import diagnose

GID = "0b7c1d2e-0000-4000-8000-00000000000a"
F16 = 19


def _h(size: int, *, dtype: int = 1, **counts: int) -> list[float]:
    vec = health(0, size, rank=1, **counts)
    vec[2] = dtype
    return vec


def _logdir(tmp: Path, ops: list[tuple[str, str, list[str], list[float] | None]]) -> DebugLogdir:
    """One graph `step`; each op (type, name, inputs, health of output 0 or None = untraced),
    traced in list order."""
    w = LogdirWriter(tmp / "logdir", run_id="run-1", hostname="host",
                     tensorflow_version="2.21.0", file_timestamp=int(T0))
    src = w.add_source_file(str(tmp / "prog.py"), [f"line {i}" for i in range(1, 40)])
    w.add_graph(GID, "step")
    for k, (op_type, name, inputs, _health) in enumerate(ops):
        w.add_op(GID, op_type, name, inputs, stack_frame_ids=[w.add_stack_frame(src, k + 1,
                                                                              "step")])
    wall = T0
    for _type, name, _inputs, h in ops:
        if h is not None:
            wall += 0.001
            w.add_graph_trace(GID, name, 0, "FULL_HEALTH", h, wall_time=wall)
    w.close()
    return open_logdir(str(tmp / "logdir"))


def _diagnose_last_bad(L: DebugLogdir, op_name: str) -> tuple[str, str]:
    rows = [i for i in range(len(L.traces)) if L.op_name_of_trace(i) == op_name]
    d = diagnose(L, GRAPH, rows[-1])
    assert d.origin_op_name == op_name, d.explanation
    return d.explanation, d.cause


def test_an_op_without_a_rule_does_not_claim_an_overflow(tmp_path: Path) -> None:
    """An op the op table does not know (a custom kernel): overflow is one possibility."""
    L = _logdir(tmp_path, [("Placeholder", "x", [], _h(4, pos=4)),
                           ("MyCustomKernel", "k", ["x:0", "x:0"], _h(4, pinf=1, pos=3))])
    text, cause = _diagnose_last_bad(L, "k")
    assert cause == "forward"
    assert "overflowed float32 (" not in text.split("whether")[0]
    assert "no rule for MyCustomKernel" in text and "cannot tell" in text


def test_an_unknown_op_with_an_unrecorded_input_guesses_nothing(tmp_path: Path) -> None:
    """One input not recorded, the other finite, an op the table does not know: neither
    "overflowed" (even conditionally) nor that the NaN came in through the unknown input."""
    L = _logdir(tmp_path, [("Placeholder", "x", [], _h(4, pos=4)),
                           ("Placeholder", "y", [], None),
                           ("MyCustomKernel", "k", ["x:0", "y:0"], _h(4, nan=1, pos=3))])
    text, _ = _diagnose_last_bad(L, "k")
    assert "y:0 was not recorded" in text and "is not known" in text, text
    assert "no rule for MyCustomKernel" in text
    assert "overflowed" not in text and "came in" not in text, text


def test_an_op_of_a_table_family_says_its_family(tmp_path: Path) -> None:
    """Zeta has no rule of its own; the op table puts it with the poles: its explanation
    names the pole and quotes the input's zeros, and does not claim an overflow."""
    L = _logdir(tmp_path, [("Placeholder", "x", [], _h(4, zero=1, pos=3)),
                           ("Placeholder", "q", [], _h(4, pos=4)),
                           ("Zeta", "zeta", ["x:0", "q:0"], _h(4, pinf=1, pos=3))])
    text, cause = _diagnose_last_bad(L, "zeta")
    assert cause == "forward"
    assert "pole" in text and "x:0 holds 1 zero" in text, text
    assert "overflow" not in text and "no rule" not in text


def test_an_op_that_only_moves_values_says_what_is_unknown(tmp_path: Path) -> None:
    L = _logdir(tmp_path, [("Placeholder", "x", [], _h(6, pos=6)),
                           ("Reshape", "r", ["x:0"], _h(6, nan=2, pos=4))])
    text, _ = _diagnose_last_bad(L, "r")
    assert "overflow" not in text
    assert "cannot make NaN/∞ itself" in text and "not known" in text


def test_a_sum_still_overflows(tmp_path: Path) -> None:
    L = _logdir(tmp_path, [("Placeholder", "x", [], _h(6, pos=6)),
                           ("MatMul", "mm", ["x:0", "x:0"], _h(4, pinf=4))])
    text, _ = _diagnose_last_bad(L, "mm")
    assert "overflowed float32" in text


@pytest.mark.parametrize(("op", "law"), [("Mean", "0/0 = NaN"), ("Max", "−∞")])
def test_a_reduction_of_an_empty_tensor(tmp_path: Path, op: str, law: str) -> None:
    out = _h(1, nan=1) if op == "Mean" else _h(1, ninf=1)
    L = _logdir(tmp_path, [("Placeholder", "x", [], _h(0)),
                           (op, "red", ["x:0"], out)])
    text, _ = _diagnose_last_bad(L, "red")
    assert "is empty (0 elements" in text and law in text
    assert "overflow" not in text


@pytest.mark.parametrize("checked", [True, False])
def test_a_float16_gradient_the_program_checks_is_loss_scaling(tmp_path: Path,
                                                                checked: bool) -> None:
    ops: list[tuple[str, str, list[str], list[float] | None]] = [
        ("Placeholder", "x", [], _h(8, dtype=F16, pos=8)),
        ("Placeholder", "b", [], _h(2, dtype=F16, pos=2)),
        ("BiasAdd", "seq/dense/BiasAdd", ["x:0", "b:0"], _h(8, dtype=F16, pos=8)),
        ("Placeholder", "upstream", [], _h(8, dtype=F16, pos=8)),
        ("BiasAddGrad", "gradient_tape/seq/dense/BiasAdd/BiasAddGrad", ["upstream:0"],
         _h(2, dtype=F16, pinf=2)),
        ("Cast", "Cast", ["gradient_tape/seq/dense/BiasAdd/BiasAddGrad:0"], None),
    ]
    if checked:
        ops.append(("IsFinite", "IsFinite", ["Cast:0"], None))
    L = _logdir(tmp_path, ops)
    text, cause = _diagnose_last_bad(L, "gradient_tape/seq/dense/BiasAdd/BiasAddGrad")
    assert cause == "gradient", text
    assert "float16" in text
    assert ("LossScaleOptimizer" in text) == checked, text
