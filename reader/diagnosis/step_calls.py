"""Which calls of a run's training functions are training steps when not every call is one:
gradients accumulated over micro-batches.

A training step is an update of the trained variables. In the plain `tf.function` and `fit`
forms every call of the training function computes gradients and updates them; two forms of
accumulation do not (`steps` numbers the other calls into the step whose update follows):
- **two functions**: one computes a micro-batch's gradients and adds them into accumulators
  (variables its forward pass does not read), another, with no gradient of its own, applies
  them to the variables the first one's forward pass reads, each call after it ran. The
  calls of the second are the steps. Variables are told apart by the eager handle each call
  is given (a function's placeholders are its arguments, then what it captured: the call
  record's inputs, in order); one record is read per function.
- **a conditional update** (Keras' `gradient_accumulation_steps`): every call computes
  gradients; a branch that takes them (ops named for the gradients) and writes variables
  runs at every k-th call only (k ≥ 2: calls k-1, 2k-1, …; the k-1 calls before each are its
  micro-batches, the other branch adding them up). The calls it ran in — its ops' traces
  fall in them — are the steps. A branch that runs irregularly (a LossScaleOptimizer's
  skipped step: an update, skipped) is no accumulation: every call stays a step.
O(rows) numpy work over the traces, and only in runs whose training graphs hold such a
branch.
"""

from __future__ import annotations

import numpy as np

from reader.diagnosis.eager_steps import writes_variable
from reader.errors import ReaderError
from reader.index.graphs import Graph, parse_tensor_name
from reader.index.logdir import DebugLogdir

GRADIENT_MARKS = ("gradient_tape/", "gradients/")
_READS = frozenset({"ReadVariableOp", "ResourceGather", "ResourceGatherNd"})


def _gradient(name: str) -> bool:
    return any(m in name for m in GRADIENT_MARKS)


def _writes(g: Graph) -> list[str]:
    """Names of the ops of `g` that write a variable."""
    return [name for name, op in g.ops.items() if writes_variable(op.op_type)]


def _handles(logdir: DebugLogdir, g: Graph, call: int) -> dict[str, int] | None:
    """Placeholder name → the eager tensor call `call` gave it (its handle, for a variable);
    None when the call's inputs do not match the placeholders."""
    names = [name for name, op in g.ops.items() if op.op_type == "Placeholder"]
    try:
        tids = logdir.read_execution(call).input_tensor_ids
    except ReaderError:
        return None
    if len(tids) != len(names):
        return None
    return dict(zip(names, (int(t) for t in tids), strict=True))


def _handle_of(g: Graph, op_name: str, handles: dict[str, int]) -> int | None:
    op = g.ops.get(op_name)
    parsed = parse_tensor_name(op.input_names[0]) if op is not None and op.input_names else None
    return handles.get(parsed[0]) if parsed is not None else None


def _applies(calls: np.ndarray, grads: np.ndarray) -> bool:
    """Whether every call applies gradients computed since the one before: a gradient call
    before each (not a variables' initializer called once before the first step, nor an
    evaluation's metric updates, many in a row)."""
    seen = np.searchsorted(grads, calls, "left")  # gradient calls before each call
    return bool(len(calls)) and bool(seen[0] > 0) and bool((np.diff(seen) > 0).all())


def update_calls(logdir: DebugLogdir, training: set[str], graph_col: np.ndarray
                 ) -> set[str]:
    """Ids of the graphs called eagerly that apply accumulated gradients (the two-function
    form): no gradient op of their own, and they write a variable that a training graph's
    forward pass (its reads before its first gradient op) reads and that graph does not
    write."""
    graphs = logdir.graphs.graphs
    called = [logdir.strings[int(s)] for s in np.unique(graph_col) if s >= 0]
    calls_of = {g: np.flatnonzero(graph_col == logdir.strings.lookup(g))
                for g in called if g in graphs}
    first_call = {g: int(c[0]) for g, c in calls_of.items()}
    grads = np.sort(np.concatenate([c for g, c in calls_of.items() if g in training]
                                   or [np.zeros(0, np.int64)]))
    appliers = [g for g in first_call if g not in training and _writes(graphs[g])
                and _applies(calls_of[g], grads)
                and not any(_gradient(name) for name in graphs[g].ops)]
    if not appliers:
        return set()
    trained: set[int] = set()
    for gid in (g for g in first_call if g in training):
        g = graphs[gid]
        handles = _handles(logdir, g, first_call[gid])
        if handles is None:
            continue
        read: set[int] = set()
        for name, op in g.ops.items():
            if _gradient(name):
                break
            if op.op_type in _READS and (h := _handle_of(g, name, handles)) is not None:
                read.add(h)
        written = {_handle_of(g, name, handles) for name in _writes(g)}
        trained |= read - written
    out = set()
    for gid in appliers:
        g = graphs[gid]
        handles = _handles(logdir, g, first_call[gid])
        if handles is not None and {_handle_of(g, n, handles) for n in _writes(g)} & trained:
            out.add(gid)
    return out


def periodic_updates(logdir: DebugLogdir, training: set[str], calls: np.ndarray
                     ) -> np.ndarray | None:
    """Positions in `calls` of the calls that are steps when a branch updating from the
    gradients runs at every k-th call (see the module docstring); None when every call is
    one."""
    graphs = logdir.graphs.graphs
    called = {logdir.strings[int(s)] for s in np.unique(logdir.executions.graph_id[calls])}
    branches = [gid for gid in training if gid in graphs and gid not in called
                and _writes(graphs[gid]) and any(_gradient(n) for n in graphs[gid].ops)]
    kinds = logdir.trace_kinds() if branches and len(calls) > 2 else None
    if kinds is None or not len(kinds.of_row):
        return None
    branch_of_kind = np.full(len(kinds.graph_id), -1, np.int16)
    for b, gid in enumerate(branches[:30_000]):
        branch_of_kind[kinds.graph_id == logdir.strings.lookup(gid)] = b
    branch_of_row = branch_of_kind[kinds.of_row]  # (one small int a trace)
    rows = np.flatnonzero(branch_of_row >= 0)
    if not len(rows):
        return None
    call_walls = np.asarray(logdir.executions.wall_time[calls])
    at = np.searchsorted(call_walls, np.asarray(logdir.traces.wall_time[rows]), "left")
    n = len(calls)
    best: tuple[int, np.ndarray] | None = None
    for b in range(len(branches)):
        ran = np.unique(at[(branch_of_row[rows] == b) & (at < n)])
        if len(ran) < 2:
            continue
        k = int(ran[1] - ran[0])
        if k < 2 or ran[0] != k - 1 or not np.array_equal(ran, np.arange(k - 1, n, k)):
            continue
        writes = len(_writes(graphs[branches[b]]))
        if best is None or writes > best[0]:
            best = (writes, ran)
    return best[1] if best is not None else None
