"""An eager tf.function call is not a primitive op: look inside it.

A call's output holding NaN/∞ says nothing about arithmetic at the call: the NaN was born
somewhere inside the function. So a call is explained by its own graph traces — the earliest
bad trace recorded during the call (between the previous execution record and its own,
which TensorFlow writes when the call returns) in the called graph or its inner graphs.

When the function's ops were not traced — TensorFlow records the backward functions of
eagerly called tf.functions (`__backward_f_N`) but never traces them — the recorded forward
values still tell a lot: a gradient is infinite exactly where a forward op's derivative is
(√ at 0, log at 0, 1/x at 0, acos at ±1…). `singular_candidates` lists the backward graph's
gradient ops of such types with the forward tensor whose values decide it, and whether the
recorded health shows the singular values. The caller states a cause only when exactly one
candidate has that evidence.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from reader.diagnosis.gradients import forward_of, gradient_hint
from reader.diagnosis.index import DiagIndex, Health, Ref
from reader.index.graphs import Graph, Op
from reader.index.schema import GRAPH


def call_graph(idx: DiagIndex, ref: Ref) -> Graph | None:
    """The graph an eager execution called, or None for a primitive op."""
    if ref.kind == GRAPH:
        return None
    gid = idx.exec_graph(ref.index)
    return idx.L.graph(gid) if gid is not None else None


def _subgraph_ids(idx: DiagIndex, g: Graph) -> list[int]:
    """String ids of `g` and every graph nested in it (those that can hold its traces)."""
    out, stack, seen = [], [g.graph_id], set()
    while stack:
        gid = stack.pop()
        if gid in seen:
            continue
        seen.add(gid)
        sid = idx.L.strings.lookup(gid)
        if sid >= 0:
            out.append(sid)
        inner = idx.L.graph(gid)
        if inner is not None:
            stack.extend(inner.inner_ids)
    return out


def call_traces(idx: DiagIndex, e: int, g: Graph) -> np.ndarray:
    """Trace rows recorded during call `e` of graph `g` (its graph and inner graphs)."""
    L = idx.L
    walls = L.executions.col("wall_time")
    hi = float(walls[e])
    lo = float(walls[e - 1]) if e > 0 else -np.inf
    tw = L.traces.col("wall_time")
    rows = np.flatnonzero((tw > lo) & (tw <= hi))
    if not len(rows):
        return rows
    return rows[np.isin(L.traces.col("graph_id")[rows], _subgraph_ids(idx, g))]


def first_bad_trace(idx: DiagIndex, e: int, g: Graph) -> Ref | None:
    """The earliest NaN/∞ trace recorded during call `e` of `g`, or None."""
    rows = call_traces(idx, e, g)
    bad = rows[idx.L.traces.col("bad")[rows] == 1]
    if not len(bad):
        return None
    r = int(bad[0])
    return Ref(GRAPH, r, int(idx.L.traces.col("slot")[r]))


# forward op type → (gradient op types that can blow up, what to look for, the law)
SINGULAR: dict[str, tuple[frozenset[str], str, str]] = {
    "Sqrt": (frozenset({"SqrtGrad"}), "output_zero", "d√x/dx = 1/(2√x) is ∞ at x = 0"),
    "Rsqrt": (frozenset({"RsqrtGrad"}), "input_zero", "d(1/√x)/dx = −1/(2x√x) is ∞ at x = 0"),
    "Log": (frozenset({"Reciprocal"}), "input_zero", "d log x/dx = 1/x is ∞ at x = 0"),
    "Log1p": (frozenset({"Reciprocal"}), "input_minus_one",
              "d log1p(x)/dx = 1/(1+x) is ∞ at x = −1"),
    "Reciprocal": (frozenset({"ReciprocalGrad"}), "input_zero", "d(1/x)/dx = −1/x² is ∞ at 0"),
    "RealDiv": (frozenset({"RealDiv"}), "divisor_zero", "d(x/y)/dy = −x/y² is ∞ at y = 0"),
    "Pow": (frozenset({"Pow", "Log", "Mul"}), "base_zero_or_negative",
            "d xʸ/dx = y·xʸ⁻¹ is ∞ at x = 0 for y < 1, and d xʸ/dy = xʸ·log x is NaN for x < 0"),
    "Acos": (frozenset({"Reciprocal", "Sqrt"}), "input_unit",
             "d acos(x)/dx = −1/√(1−x²) is ∞ at x = ±1"),
    "Asin": (frozenset({"Reciprocal", "Sqrt"}), "input_unit",
             "d asin(x)/dx = 1/√(1−x²) is ∞ at x = ±1"),
    "Atanh": (frozenset({"Reciprocal"}), "input_unit", "d atanh(x)/dx = 1/(1−x²) is ∞ at x = ±1"),
}


@dataclass(frozen=True)
class Candidate:
    """A forward op whose derivative may be what made the untraced gradient NaN/∞."""

    gradient: Op  # the gradient op (of the backward graph) that would blow up
    forward: Op
    forward_graph: Graph
    law: str
    evidence: str | None  # what the recorded forward values show, None if they don't show it
    unknown: bool  # the mode did not record what would decide it


def singular_candidates(idx: DiagIndex, backward: Graph, e: int) -> list[Candidate]:
    """Forward ops with a singular derivative whose gradient ops `backward` holds.

    Each is checked against the latest recorded value of the forward tensor that decides it
    (traced before the call `e` of the backward function).
    """
    wall = float(idx.L.executions.col("wall_time")[e])
    out: list[Candidate] = []
    seen: set[str] = set()
    for op in sorted(backward.ops.values(), key=_tid):
        fwd = forward_of(idx.L, backward, op, gradient_hint(idx.L.op_stack(op)))
        if fwd is None or fwd.op.op_name in seen:
            continue
        rule = SINGULAR.get(fwd.op.op_type)
        if rule is None or op.op_type not in rule[0]:
            continue
        seen.add(fwd.op.op_name)
        what = rule[1]
        tensor = ((fwd.op.op_name, 0) if what == "output_zero"
                  else _input(fwd.op, 1 if what == "divisor_zero" else 0))
        h = None
        if tensor is not None:
            row = idx.latest_trace(fwd.graph.graph_id, tensor[0], tensor[1],
                                   at_or_before_wall=wall)
            h = idx.health(Ref(GRAPH, row, tensor[1]), True) if row is not None else None
        name = f"{tensor[0]}:{tensor[1]}" if tensor else "its input"
        evidence, unknown = _evidence(what, name, h)
        out.append(Candidate(op, fwd.op, fwd.graph, rule[2], evidence, unknown))
    return out


def _input(op: Op, k: int) -> tuple[str, int] | None:
    ins = op.inputs
    return ins[k] if k < len(ins) else None


def _evidence(what: str, name: str, h: Health | None) -> tuple[str | None, bool]:
    if h is None:
        return None, True
    if what in ("output_zero", "input_zero", "divisor_zero"):
        if h.zero is None:
            return None, True
        return (f"{name} held {h.zero:,} zero{'s' if h.zero != 1 else ''}", False) if h.zero \
            else (None, False)
    if what == "base_zero_or_negative":
        if h.zero is None or h.negative is None:
            return None, True
        if h.zero or h.negative:
            return f"{name} held {h.zero:,} zeros and {h.negative:,} negative values", False
        return None, False
    if h.values is not None:  # input_unit / input_minus_one need the values themselves
        v = np.asarray(h.values, dtype=np.float64).reshape(-1)
        hit = int(np.count_nonzero(np.abs(v) == 1)) if what == "input_unit" else int(
            np.count_nonzero(v == -1))
        target = "±1" if what == "input_unit" else "−1"
        return (f"{name} held {hit:,} values equal to {target}", False) if hit else (None, False)
    return None, True


def _tid(op: Op) -> int:
    return op.output_tensor_ids[0] if op.output_tensor_ids else 1 << 62
