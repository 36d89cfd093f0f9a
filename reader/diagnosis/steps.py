"""Which training step each recorded tensor belongs to ("the first NaN is in step 2 of 40").

A user hunting a NaN thinks in training steps, not in row numbers; the logdir records no step
counter, so the steps are found from the shape of the run, in whichever form it trained:
- **a `tf.function` step, or Keras `fit`**: every eager call of a graph that trains (it holds
  gradient ops — `gradient_tape/…`, `gradients/…` — and variable updates, itself or in a
  graph it calls) is one step; an update is any op that writes a variable (an assignment, a
  fused optimizer update, a sparse write: `writes_variable`). A graph trace belongs to the
  call recorded next (TensorFlow writes a call's execution record when it returns, after its
  traces); an eager op to the next call (the batch a step is fed is made before it), unless
  it reads what the call before returned (the user's logging of that step's loss), under
  `fit` to the call before (it reads its batch inside the call; after it come its logs).
  For `fit`, an epoch starts where Keras resets its metrics (or makes a new dataset
  iterator) between two calls. Calls that only accumulate gradients are no steps of their
  own (`reader.diagnosis.step_calls`).
- **an eager `train_step`** (no `tf.function`): a step ends with the k-th update of every
  trained variable, whichever op writes it (`reader.diagnosis.eager_steps`); what the loop
  runs after it (the user's logging) is still that step's, the next one begins with its
  forward pass (`reader.diagnosis.eager_gaps`).
- **TF1 `Session.run`**: the traces of the training graph; its gradient ops run once per
  step, so step k starts at the first row of their k-th runs. Rows before step 0 (the
  initializer's run) belong to no step.
The input pipeline's traces (tf.data functions) belong to no step in any form: they run
ahead of the training, on threads of their own (`_pipeline_outside`).
Learned from `tfdbg_tui.core.compare`'s model of a step (which also pairs each step's
quantities between two runs); this module only numbers steps, in O(rows) numpy work, and
imports nothing of the app. Steps are 0-based; -1 means "outside every training step".
"""

from __future__ import annotations

import threading
import weakref
from collections import Counter
from dataclasses import replace

import numpy as np

from reader.diagnosis.eager_steps import backprop_frames as backprop_frames
from reader.diagnosis.eager_steps import eager_steps, graphs_reaching, writes_variable
from reader.diagnosis.step_calls import periodic_updates, update_calls
from reader.diagnosis.step_model import (
    FIT,
    FUNCTION,
    SESSION,
    TrainingSteps,
    no_steps,
)
from reader.errors import ReaderError
from reader.index.logdir import DebugLogdir
from reader.index.queries import TraceKinds

DATASET_GRAPH = "Dataset_"  # the name TensorFlow gives a tf.data function's graph
MAX_EAGER = 20_000  # eager execution records read to find an eager run's steps
GRADIENT_MARKS = ("gradient_tape/", "gradients/")
# eager ops Keras runs between two epochs of `fit` and never between two of its batches:
# the metrics reset (an assignment each) and, for data it re-reads, a new iterator
_EPOCH_OPS = frozenset({"AnonymousIteratorV3", "AnonymousIteratorV2", "AnonymousIterator",
                        "MakeIterator", "IteratorV2", "AssignVariableOp"})
_FIT_NAMES = ("train_function", "one_step_on_iterator", "multi_step_on_iterator",
              "one_step_on_data")


_cache: weakref.WeakKeyDictionary[DebugLogdir, tuple[tuple[int, ...], TrainingSteps]] = \
    weakref.WeakKeyDictionary()
_lock = threading.Lock()


def training_steps(logdir: DebugLogdir) -> TrainingSteps:
    """The run's training steps (see the module docstring), remembered per logdir until it
    grows. Call it on an index that is not being read (a finished read, or under its lock)."""
    key = (len(logdir.traces), len(logdir.executions), len(logdir.graphs.graphs))
    with _lock:
        got = _cache.get(logdir)
        if got is not None and got[0] == key:
            return got[1]
    try:
        found = _find(logdir)
    except (ReaderError, KeyError, ValueError, IndexError) as exc:
        found = no_steps(logdir, (f"training steps not found: {exc}",))
    with _lock:
        _cache[logdir] = (key, found)
    return found


def _find(logdir: DebugLogdir) -> TrainingSteps:
    training = _training_graphs(logdir)
    found = None
    if training:
        found = _called_steps(logdir, training) or _session_steps(logdir, training)
    found = found or eager_steps(logdir, MAX_EAGER)
    return _pipeline_outside(logdir, found) if found is not None else no_steps(logdir)


def _pipeline_outside(logdir: DebugLogdir, found: TrainingSteps) -> TrainingSteps:
    """The input pipeline's traces belong to no step. A tf.data function (dataset.map…,
    a graph named `Dataset_…`, and the graphs inside it) runs on tf.data's own threads,
    ahead of the training (prefetching), and Keras' fit maps one over the whole arrays it
    is given: by time, its traces fell in whichever step was running — fit's first step
    held a NaN its batch 4 brought, a parallel map's element came a step early."""
    kinds = logdir.trace_kinds()
    graphs = logdir.graphs.graphs
    if kinds is None or not len(kinds.of_row) or not found.count:
        return found
    ids = [logdir.strings.lookup(gid) for gid in graphs
           if any(graphs[c].name.startswith(DATASET_GRAPH)
                  for c in logdir.graphs.graph_chain(gid) if c in graphs)]
    pipeline = np.isin(kinds.graph_id, [i for i in ids if i >= 0])
    if not pipeline.any():
        return found
    rows = pipeline[np.asarray(kinds.of_row, np.int64)]
    return replace(found, trace_step=np.where(rows, -1, found.trace_step))


def _training_graphs(logdir: DebugLogdir) -> set[str]:
    """Ids of graphs that train (gradient ops and updates, in them or in graphs they call),
    and of every graph around one that does: those that reach a graph with gradient ops and
    one with updates (`graphs_reaching`: one walk back each — a walk down from every graph
    was quadratic in nested graphs, seconds of a report on a hostile logdir of 5,000)."""
    graphs = logdir.graphs.graphs
    grads = [gid for gid, g in graphs.items()
             if any(m in name for name in g.ops for m in GRADIENT_MARKS)]
    updates = [gid for gid, g in graphs.items()
               if any(writes_variable(op.op_type) for op in g.ops.values())]
    if not grads or not updates:
        return set()
    return graphs_reaching(graphs, grads) & graphs_reaching(graphs, updates)


def _called_steps(logdir: DebugLogdir, training: set[str]) -> TrainingSteps | None:
    e = logdir.executions
    if not len(e):
        return None
    sids = [s for s in (logdir.strings.lookup(g) for g in training) if s >= 0]
    graph_col = np.asarray(e.graph_id[np.arange(len(e))])
    applies = [logdir.strings.lookup(g) for g in update_calls(logdir, training, graph_col)]
    calls = np.flatnonzero(np.isin(graph_col, sids + applies))
    if not len(calls):
        return None
    # the calls that update the trained variables: every one, unless they accumulate
    # (`step_calls`): a step is an update, the calls before it are its micro-batches
    ends: np.ndarray | None = (np.flatnonzero(np.isin(graph_col[calls], applies)) if applies
                               else periodic_updates(logdir, training, calls))
    if ends is None:
        ends = np.arange(len(calls))
    if not len(ends):
        return None
    call_step = np.searchsorted(ends, np.arange(len(calls)), "left").astype(np.int64)
    call_step[call_step >= len(ends)] = -1  # micro-batches no update followed
    n_exec = len(e)
    idx = np.arange(n_exec)
    names = [logdir.graphs.graphs[g].name for g in training if g in logdir.graphs.graphs]
    fit = any(n.startswith(_FIT_NAMES) or n.endswith(_FIT_NAMES) for n in names if n)
    if fit:
        # Keras reads its batch inside the call: what runs eagerly after one (its logs out of
        # their Optional, the metrics) is that call's step, not the next one's
        before = np.searchsorted(calls, idx, "right") - 1
        exec_step = np.where(before >= 0, call_step[np.maximum(before, 0)], -1)
    else:
        at = np.searchsorted(calls, idx, "left")  # the call made next (or this one)
        exec_step = np.where(at < len(calls), call_step[np.minimum(at, len(calls) - 1)], -1)
        exec_step = _readers_of_calls(logdir, calls, call_step, exec_step)
    exec_step = exec_step.astype(np.int64)
    trace_step = np.full(len(logdir.traces), -1, np.int64)
    if len(logdir.traces):
        # a trace belongs to the execution recorded next (a call's record follows its traces)
        enclosing = np.searchsorted(e.wall_time, logdir.traces.wall_time, "left")
        inside = enclosing < n_exec
        trace_step[inside] = exec_step[enclosing[inside]]
    step_calls = calls[ends]
    called = logdir.graph_of_execution(int(step_calls[0]))
    g0 = logdir.graphs.graphs.get(called or "")
    function = g0.name if g0 is not None and g0.name else None
    if fit:
        return TrainingSteps(FIT, len(ends), trace_step, exec_step, function,
                             _epoch_starts(logdir, step_calls), calls=step_calls)
    return TrainingSteps(FUNCTION, len(ends), trace_step, exec_step, function,
                         calls=step_calls)


def _readers_of_calls(logdir: DebugLogdir, calls: np.ndarray, call_step: np.ndarray,
                      exec_step: np.ndarray) -> np.ndarray:
    """`exec_step` with each eager op run after a call that reads what the call returned
    (or what such an op made) given to that call's step, and so the ops that only feed
    those (`tf.reduce_mean`'s eager Range of axes): `shown = tf.reduce_mean(loss)` after
    `loss = train_step(x, y)` logs step k's loss, and was counted in step k + 1 (the last
    step's outside every step). Ops that read nothing of the call (the next batch made
    ready) stay with the call after them. Reads the records of the ops between calls and of
    the calls around them, when at most MAX_EAGER ops run between calls; a longer run keeps
    the steps as they were."""
    n = len(exec_step)
    ends = [*(int(c) for c in calls), n]
    gaps = [(k, ends[k] + 1, ends[k + 1]) for k in range(len(calls))
            if int(call_step[k]) >= 0 and ends[k + 1] > ends[k] + 1]
    if sum(hi - lo for _, lo, hi in gaps) > MAX_EAGER:
        return exec_step
    out = np.array(exec_step, np.int64)
    for k, lo, hi in gaps:  # the records of a gap, its call and the call after it
        try:
            recs = [logdir.read_execution(i) for i in range(lo - 1, min(hi + 1, n))]
        except ReaderError:
            return exec_step
        ins = [{int(t) for t in r.input_tensor_ids} for r in recs]
        outs = [{int(t) for t in (r.output_tensor_ids or ())} for r in recs]
        made, logs = set(outs[0]), set[int]()  # what the call returned, then its readers
        for j in range(1, hi - lo + 1):
            if made & ins[j]:
                logs.add(j)
                made |= outs[j]
        producer = {t: j for j in range(1, hi - lo + 1) for t in outs[j]}
        readers: dict[int, set[int]] = {}  # op of the gap → the ops (and next call) reading it
        for r in range(1, len(recs)):
            for t in ins[r] & producer.keys():
                readers.setdefault(producer[t], set()).add(r)
        for j in range(hi - lo, 0, -1):  # what feeds only those readers
            if j not in logs and j in readers and readers[j] <= logs:
                logs.add(j)
        for j in logs:
            out[lo - 1 + j] = int(call_step[k])
    return out


def _epoch_starts(logdir: DebugLogdir, calls: np.ndarray) -> tuple[int, ...]:
    """Steps of `fit` that start an epoch: Keras reset its metrics (or made a dataset
    iterator) since the last call."""
    e = logdir.executions
    types = np.asarray(e.op_type[np.arange(len(e))])
    iter_ids = [s for s in (logdir.strings.lookup(t) for t in _EPOCH_OPS) if s >= 0]
    made = np.flatnonzero(np.isin(types, iter_ids))
    if not len(made):
        return (0,)
    starts = [0]
    prev = np.searchsorted(made, calls, "left")  # iterators made before each call
    for k in range(1, len(calls)):
        if prev[k] > prev[k - 1]:
            starts.append(k)
    return tuple(starts)


def _session_steps(logdir: DebugLogdir, training: set[str]) -> TrainingSteps | None:
    """TF1: the training graph's gradient ops run once per `Session.run` that trains, so
    their count is the step count; step k starts at the first row of the k-th run of any of
    the graph's ops that ran that many times (its forward pass comes first)."""
    kinds = logdir.trace_kinds()
    if kinds is None or not len(kinds.of_row):
        return None
    sids = [s for s in (logdir.strings.lookup(g) for g in training) if s >= 0]
    in_graph = np.isin(kinds.graph_id, sids)
    marks = np.array([in_graph[k] and any(m in logdir.strings[int(kinds.op_name[k])]
                                          for m in GRADIENT_MARKS)
                      for k in range(len(kinds.graph_id))], dtype=bool)
    if not marks.any():
        return None
    of_row = np.asarray(kinds.of_row, np.int64)
    counts = np.bincount(of_row, minlength=len(marks))
    mark_counts = counts[marks & (counts > 0)]
    if not len(mark_counts):
        return None
    n = Counter(mark_counts.tolist()).most_common(1)[0][0]
    n = min(n, _accumulated_updates(logdir, training, kinds, counts) or n)
    exact = in_graph & (counts == n)
    rows = np.flatnonzero(exact[of_row])
    k = of_row[rows]
    order = np.argsort(k, kind="stable")
    occ = np.empty(len(rows), np.int64)
    sorted_k = k[order]
    first_of_group = np.r_[0, np.flatnonzero(np.diff(sorted_k)) + 1]
    group_start = np.repeat(first_of_group, np.diff(np.r_[first_of_group, len(sorted_k)]))
    occ[order] = np.arange(len(rows)) - group_start
    starts = np.full(n, np.iinfo(np.int64).max, np.int64)
    np.minimum.at(starts, occ, rows)
    last_end = int(rows[occ == n - 1].max())
    starts = np.minimum.accumulate(starts[::-1])[::-1]
    all_rows = np.arange(len(logdir.traces))
    trace_step = np.searchsorted(starts, all_rows, "right").astype(np.int64) - 1
    trace_step[all_rows > last_end] = -1
    return TrainingSteps(SESSION, int(n), trace_step,
                         np.full(len(logdir.executions), -1, np.int64))


_APPLY_PREFIXES = ("ResourceApply", "Apply", "ResourceSparseApply")
_WALK = 256  # graph ops walked up from one optimizer apply op


def _accumulated_updates(logdir: DebugLogdir, training: set[str], kinds: TraceKinds,
                         counts: np.ndarray) -> int | None:
    """How many `Session.run`s applied the gradients, when they were accumulated: every
    optimizer apply op's inputs come from a variable's read (the accumulator its gradient
    runs add into), never from a gradient op. A step is an update of the trained variables:
    the gradient runs before it are its micro-batches. None when not accumulated."""
    ran: dict[tuple[str, str], int] = {}
    for k, c in enumerate(counts.tolist()):
        if c:
            key = (logdir.strings[int(kinds.graph_id[k])], logdir.strings[int(kinds.op_name[k])])
            ran[key] = max(ran.get(key, 0), c)
    found: list[int] = []
    for gid in training:
        graph = logdir.graphs.graphs.get(gid)
        if graph is None:
            continue
        for op in graph.ops.values():
            if not op.op_type.startswith(_APPLY_PREFIXES):
                continue
            direct = [name for name, _ in op.inputs]
            todo, seen, reads = list(direct), set[str](), False
            while todo and len(seen) < _WALK:
                name = todo.pop()
                if name in seen:
                    continue
                seen.add(name)
                if any(m in name for m in GRADIENT_MARKS):
                    return None  # the gradients reach this update directly
                up = graph.ops.get(name)
                if up is None:
                    continue
                if up.op_type == "ReadVariableOp":
                    reads = True
                    continue
                todo.extend(n for n, _ in up.inputs)
            if not reads or len(seen) >= _WALK:
                return None
            found += [ran[(gid, name)] for name in direct if (gid, name) in ran]
    return Counter(found).most_common(1)[0][0] if found else None
