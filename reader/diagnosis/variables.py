"""A variable that already holds NaN/∞ when it is read: which write put it there.

A variable has no value record of its own; what the logdir has is its reads (ReadVariableOp,
traced or eager) and its writes (Assign/AssignAdd/AssignSub and the fused optimizer updates,
eager executions or ops inside a tf.function). The variable is identified by its resource
handle: an eager tensor id (the VarHandleOp's output), passed into each tf.function that uses
it as an argument — or, in one graph (TF1, or a write in the same tf.function), the same
handle op. The last write before the read, with the value it wrote, is what the walk follows
back (to the gradient that went NaN, usually) and what the diagnosis names when the value
written was not recorded (a NaN assigned from numpy, a restored checkpoint).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from reader.diagnosis.explain.common import produced
from reader.diagnosis.index import DiagIndex, Health, Ref
from reader.diagnosis.nested import CONTROL_FLOW_PREFIXES, NestedCalls
from reader.diagnosis.places import Place, place_of_op, place_of_ref
from reader.errors import ReaderError
from reader.index.graphs import Graph, Op
from reader.index.schema import EAGER, GRAPH

READ_OPS = frozenset({"ReadVariableOp", "ResourceGather", "ResourceGatherNd"})
WRITE_OPS = frozenset({"AssignVariableOp", "AssignSubVariableOp", "AssignAddVariableOp"})
APPLY_PREFIX = "ResourceApply"  # fused optimizer updates (TF1 optimizers): the value is computed
# row updates (a gradient of a gather, as Keras' SGD applies it): (handle, indices, updates)
SCATTER_OPS = frozenset(f"ResourceScatter{k}" for k in (
    "Add", "Sub", "Mul", "Div", "Min", "Max", "Update", "NdAdd", "NdSub", "NdUpdate"))
MAX_SCAN = 4096  # executions looked at backwards for an eager write
MAX_NESTING = 8  # functions called within functions, looked into for a write


@dataclass(frozen=True)
class Write:
    """A write to the variable: the op (eager execution or graph op) and its value input."""

    kind: int  # EAGER (execution `index`) or GRAPH (op `op` of graph `graph`, in call `index`)
    index: int | None
    op_type: str
    graph: Graph | None = None
    op: Op | None = None
    value_tid: int | None = None  # eager: the written tensor's id
    value: tuple[str, int] | None = None  # graph: the written tensor's name


def is_write(op_type: str) -> bool:
    return op_type in WRITE_OPS or op_type in SCATTER_OPS or op_type.startswith(APPLY_PREFIX)


def last_write(idx: DiagIndex, ref: Ref, tid: int | None,
               nested: NestedCalls | None = None) -> Write | None:
    """The last write before read `ref` to the variable whose eager handle is tensor `tid`
    (`nested`: to look for it inside the functions a called one calls too).

    Without an eager handle (TF1: one graph, no executions) the graph's own last write op on
    the same handle op is the answer.
    """
    L = idx.L
    if tid is None:
        op = L.op_of_trace(ref.index) if ref.kind == GRAPH else None
        g = L.graph(op.graph_id) if op is not None else None
        if g is None or op is None or not op.inputs:
            return None
        return _same_graph_write(g, op.inputs[0][0])
    before = _read_execution(idx, ref)
    if before is None:
        return None
    types = L.executions.col("op_type")
    write_ids = [L.strings.lookup(t) for t in WRITE_OPS | SCATTER_OPS]
    lo = max(0, before - MAX_SCAN)
    window = types[lo:before]
    calls = idx.calls_between(lo, before)
    cand = np.flatnonzero(np.isin(window, write_ids) | calls)[::-1] + lo
    for e in cand:
        w = write_in(idx, int(e), tid, nested)
        if w is not None:
            return w
    return None


def _read_execution(idx: DiagIndex, ref: Ref) -> int | None:
    """The execution index the read belongs to (itself, or the call whose trace it is)."""
    if ref.kind == EAGER:
        return ref.index
    L = idx.L
    gid = L.graph_of_trace(ref.index)
    chain = L.graphs.graph_chain(gid)
    top = chain[1] if len(chain) > 1 else gid
    return idx.calling_execution(top, float(L.traces.col("wall_time")[ref.index]))


def write_in(idx: DiagIndex, e: int, tid: int, nested: NestedCalls | None) -> Write | None:
    """A write to handle `tid` done by execution `e` (an eager write, or inside its call)."""
    L = idx.L
    try:
        rec = L.read_execution(e)
    except ReaderError as exc:
        L.warn(str(exc))
        return None
    ins = [int(t) for t in rec.input_tensor_ids]
    if tid not in ins:
        return None
    gid = idx.exec_graph(e)
    if gid is None:
        if (rec.op_type in WRITE_OPS or rec.op_type in SCATTER_OPS) and ins and ins[0] == tid:
            k = 2 if rec.op_type in SCATTER_OPS else 1
            return Write(EAGER, e, rec.op_type, value_tid=ins[k] if len(ins) > k else None)
        return None
    g = L.graph(gid)
    if g is None:
        return None
    phs = idx.placeholders(g)
    k = ins.index(tid)
    if k >= len(phs):
        return None
    return _same_graph_write(g, phs[k].op_name, e) or (
        _nested_write(idx, nested, g, phs[k].op_name, e) if nested is not None else None)


def _nested_write(idx: DiagIndex, nested: NestedCalls, g: Graph, handle: str, call: int,
                  depth: int = 0) -> Write | None:
    """A write, inside a function that `g` calls, to the variable `g` holds as `handle`:
    the callee captured it, and TensorFlow lifted that capture to a Placeholder of `g`
    (`NestedCalls.lifted_capture`). Keras' fit: multi_step_on_iterator gets the metrics'
    variables, one_step_on_data adds to them. Callees that ran are looked at first."""
    if depth > MAX_NESTING:
        return None
    callees = [c for c in (idx.L.graph(gid) for gid in g.inner_ids) if c is not None
               and not c.name.startswith(CONTROL_FLOW_PREFIXES)]
    for callee in sorted(callees, key=lambda c: not nested.traced(c)):
        for ph in idx.placeholders(callee):
            outer = nested.lifted_capture(g, callee, ph, idx.placeholders)
            if outer is None or outer.op_name != handle:
                continue
            w = _same_graph_write(callee, ph.op_name, call) or _nested_write(
                idx, nested, callee, ph.op_name, call, depth + 1)
            if w is not None:
                return w
    return None


def _same_graph_write(g: Graph, handle: str, call: int | None = None) -> Write | None:
    """The last-created write op in `g` whose resource input is `handle`."""
    best: Op | None = None
    for op in g.ops.values():  # creation order: the last one written is the last created
        if is_write(op.op_type) and op.inputs and op.inputs[0][0] == handle:
            best = op
    if best is None:
        return None
    k = 2 if best.op_type in SCATTER_OPS else 1
    value = (best.inputs[k] if len(best.inputs) > k
             and (best.op_type in WRITE_OPS or best.op_type in SCATTER_OPS) else None)
    return Write(GRAPH, call, best.op_type, g, best, value=value)


def write_place(idx: DiagIndex, w: Write) -> Place:
    """The write as a place of the program (an eager execution, or an op of a graph)."""
    if w.kind == EAGER and w.index is not None:
        return place_of_ref(idx, Ref(EAGER, w.index))
    assert w.graph is not None and w.op is not None
    return place_of_op(idx, w.graph, w.op)


def explain_read(op_type: str, out: Health, write: Place | None, value_note: str) -> str:
    """A read of a variable that already held NaN/∞: name the write that put it there."""
    head = produced(op_type, out)
    if write is None:
        return (f"{head}: the variable already held it when read, and no write to it was "
                "recorded (it was restored or assigned before dumping started, or in another "
                "thread)")
    uf = write.user_frame
    at = f" at {uf.file.rsplit('/', 1)[-1]}:{uf.line}" if uf else ""
    where = f" in {write.graph_name}" if write.graph_name else (
        f" (eager #{write.index})" if write.index is not None else "")
    return (f"{head}: the variable already held it when read; the last write to it was "
            f"{write.op_type}{where}{at}" + (f", and the value it wrote {value_note}"
                                               if value_note else ""))
