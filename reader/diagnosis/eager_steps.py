"""The training steps of an eager `train_step` (no `tf.function`): what a step *is*, found in
the execution records.

A training step updates every trained variable. Whatever the optimizer, an update is an op
that writes a variable (`writes_variable`): Keras 3 writes with AssignAddVariableOp (SGD
with momentum, Adadelta), AssignSubVariableOp (Adam, RMSprop, …), a plain AssignVariableOp
(Ftrl; every optimizer's own state: slots, the iteration count, a loss scale), TF1-style
optimizers with their fused `ResourceApply…`, embeddings with `ResourceScatter…`. Variables
are told apart by the handle tensor each write consumes (its input 0, read from the write's
execution record: only writes are read, and only in runs of at most `max_eager` executions;
a longer run is said to be too long, not guessed).

Not every write is an update: a variable is made with its value (VarHandleOp, then a write),
so the first write of a variable made in the run is its initial value; and a write before
the run's first backward pass (a restore, a set-up) is not a step's. The variables a step
updates once each — the trained ones, the optimizer's slots and iteration count — then share
one count of updates, the most common one: a metric reset each epoch, a learning rate set
once or AdamW's two writes a step to a weight (its decay, then its update) have other counts
and do not decide the steps. Step k's update ends with the k-th update of every variable of
that count; step k + 1 begins where its forward pass does, so what the loop logs after an
update is that update's step (`reader.diagnosis.eager_gaps`).

An update compiled apart (`@tf.function def apply(grads)`, the forward and `tape.gradient`
eager) writes inside its call: each call of a graph that writes variables (itself or in a
function it calls) is one update of that graph's variables, counted as one variable's.

A step whose update was skipped — a mixed-precision `LossScaleOptimizer` skips a step whose
gradients are not finite, the very step a NaN hunt is after — has no update to end it: a span
holding two backward passes (ops run by `tape.gradient`) is two steps (`_split_skipped`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from itertools import pairwise

import numpy as np

from reader.diagnosis.eager_gaps import steps_from_forward
from reader.diagnosis.source import in_loop
from reader.diagnosis.step_model import EAGER_STEP, TrainingSteps, no_steps
from reader.errors import ReaderError
from reader.index.graphs import Graph
from reader.index.logdir import DebugLogdir

BACKPROP_FILES = ("tensorflow/python/eager/backprop.py",
                  "tensorflow/python/eager/imperative_grad.py")
_ASSIGNS = frozenset({"AssignVariableOp", "AssignAddVariableOp", "AssignSubVariableOp",
                      "Assign", "AssignAdd", "AssignSub"})
# fused optimizer updates and sparse writes, resource (TF2) and reference (TF1) forms
_WRITE_PREFIXES = ("ResourceApply", "ResourceSparseApply", "ResourceScatter", "Apply",
                   "SparseApply", "Scatter")
_PURE = frozenset({"ScatterNd"})  # a "Scatter…" op that makes a tensor and writes nothing


def writes_variable(op_type: str) -> bool:
    """Whether an op writes a variable (its input 0): an assignment, a fused optimizer
    update, a sparse write."""
    return op_type in _ASSIGNS or (op_type.startswith(_WRITE_PREFIXES) and op_type not in _PURE)


def eager_steps(logdir: DebugLogdir, max_eager: int) -> TrainingSteps | None:
    """Eager steps (see the module docstring); None when the run updates no variable."""
    e = logdir.executions
    n = len(e)
    if not n or e.kinds is None:
        return None
    kind_types = e.kinds.col("op_type")
    names = {int(s): logdir.strings[int(s)] for s in np.unique(kind_types)}
    write_ids = [s for s, name in names.items() if writes_variable(name)]
    made_ids = [s for s, name in names.items() if name == "VarHandleOp"]
    # through the kinds: an op type per execution is 2.5M lookups and ~50 MB of temporaries
    # for a long run, which is said to be too long just below. A run that writes no more
    # often than it makes variables gives each its initial value and trains nothing.
    kind_col = e.col("kind")
    n_writes = int(np.count_nonzero(np.isin(kind_col, np.flatnonzero(np.isin(kind_types,
                                                                             write_ids)))))
    n_made = int(np.count_nonzero(np.isin(kind_col, np.flatnonzero(np.isin(kind_types,
                                                                           made_ids)))))
    writing = _writing_graphs(logdir)
    eager_updates = n_writes > n_made
    if not eager_updates and not writing:
        return None
    if n > max_eager:  # (said only of a run that updates eagerly, as before)
        return no_steps(logdir, (f"{n:,} eager executions: too many to find training steps "
                                 f"in (at most {max_eager:,} are read)",)) \
            if eager_updates else None
    per: dict[int, list[int]] = {}
    if writing:  # a graph's calls: handles are tensor ids (≥ 0), a graph's key is below 0
        graph_col = np.asarray(e.graph_id[np.arange(n)])
        for sid in writing:
            calls = np.flatnonzero(graph_col == sid).tolist()
            if calls:
                per[-1 - sid] = calls
    if not per and not eager_updates:
        return None
    types = np.asarray(e.op_type[np.arange(n)])
    per.update(_updates(logdir, types, write_ids, made_ids))
    if not per:
        return None
    m = Counter(len(v) for v in per.values()).most_common(1)[0][0]
    trained = [v for v in per.values() if len(v) == m]
    ends = _split_skipped(logdir, types,
                          np.array([max(v[s] for v in trained) for s in range(m)], np.int64))
    m = len(ends)
    exec_step = np.searchsorted(ends, np.arange(n), "left").astype(np.int64)
    exec_step[exec_step >= m] = -1
    exec_step = steps_from_forward(logdir, types, ends, exec_step, backprop_frames(logdir),
                                   np.isin(types, write_ids))
    function, loop = None, None
    try:
        frames = logdir.stack(logdir.read_execution(int(trained[0][0])).stack_frame_ids)
        uf = logdir.user_frame(frames)
        function = uf.function if uf is not None and uf.function != "<module>" else None
        loop = in_loop(logdir, uf) if uf is not None else None  # "eager loop in main"
    except (ReaderError, KeyError, ValueError):
        pass
    trace_step = np.full(len(logdir.traces), -1, np.int64)
    if len(logdir.traces):  # a call's traces are its step's (its record follows them)
        enclosing = np.searchsorted(e.wall_time, logdir.traces.wall_time, "left")
        inside = enclosing < n
        trace_step[inside] = exec_step[enclosing[inside]]
    return TrainingSteps(EAGER_STEP, m, trace_step, exec_step, function, loop=loop)


def _writing_graphs(logdir: DebugLogdir) -> list[int]:
    """String ids of the graphs that write a variable, in their own ops or in a function
    they call (the graphs a tf.function call of the run may be)."""
    graphs = logdir.graphs.graphs
    own = [gid for gid, g in graphs.items()
           if any(writes_variable(op.op_type) for op in g.ops.values())]
    reach = graphs_reaching(graphs, own)
    out = [gid for gid in graphs if gid in reach]
    return [s for s in (logdir.strings.lookup(g) for g in out) if s >= 0]


def graphs_reaching(graphs: Mapping[str, Graph], marked: Iterable[str]) -> set[str]:
    """The graphs that are one of `marked` or call one, through any depth of inner graphs
    (`Graph.inner_ids`; ids not in `graphs` lead nowhere): one walk back from `marked`
    over who calls whom, each graph and call once. A walk down from every graph instead
    was quadratic in nested graphs: 5,000 each inside the previous one (a hostile logdir)
    took 12.5M steps, seconds of a report."""
    callers: dict[str, list[str]] = {}
    for gid, g in graphs.items():
        for inner in g.inner_ids:
            if inner in graphs:
                callers.setdefault(inner, []).append(gid)
    out = {gid for gid in marked if gid in graphs}
    stack = list(out)
    while stack:
        for caller in callers.get(stack.pop(), ()):
            if caller not in out:
                out.add(caller)
                stack.append(caller)
    return out


def _updates(logdir: DebugLogdir, types: np.ndarray, write_ids: list[int],
             made_ids: list[int]) -> dict[int, list[int]]:
    """Each written variable's updates (execution indices, in order), by handle tensor id:
    its writes, less its initial value and what was written before the first backward
    pass."""
    made: set[int] = set()
    for i in np.flatnonzero(np.isin(types, made_ids)).tolist():
        out = logdir.read_execution(i).output_tensor_ids
        if out:
            made.add(int(out[0]))
    per: dict[int, list[int]] = {}
    initial: set[int] = set()
    for i in np.flatnonzero(np.isin(types, write_ids)).tolist():
        ins = logdir.read_execution(i).input_tensor_ids
        if not ins:
            continue
        h = int(ins[0])
        if h in made and h not in initial:
            initial.add(h)  # made in the run: its first write is its value
            continue
        per.setdefault(h, []).append(i)
    start = _first_backward(logdir, min((v[0] for v in per.values()), default=0))
    if start:
        per = {h: kept for h, v in per.items() if (kept := [i for i in v if i > start])}
    return per


def _first_backward(logdir: DebugLogdir, first_update: int) -> int:
    """The first execution of the run's first backward pass when it comes after the first
    write taken for an update (which then was a restore or a set-up); 0 otherwise. Reads the
    records up to it, only when the run has backward passes at all."""
    backprop = backprop_frames(logdir)
    if not backprop:
        return 0
    for i in range(len(logdir.executions)):
        try:
            if any(f in backprop for f in logdir.read_execution(i).stack_frame_ids):
                return i if i > first_update else 0
        except ReaderError:
            return 0
    return 0


def backprop_frames(logdir: DebugLogdir) -> frozenset[str]:
    """Ids of the stack frames in TensorFlow's backprop code (`tape.gradient`)."""
    ids = set()
    for fid, _host, file, _line, _func, _col in logdir.sources.frame_rows():
        if file.replace("\\", "/").endswith(BACKPROP_FILES):
            ids.add(fid)
    return frozenset(ids)


def _split_skipped(logdir: DebugLogdir, types: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """`ends` (each step's last update) with the end of every skipped step added: a span
    between two ends at least 1.5 times a step's usual length, holding two backward passes,
    is two steps. The second begins where the ops before its backward pass stop being those
    before a whole step's (the same forward pass; the skipped step's check and skip differ
    from an applied update's bookkeeping). Only long spans' records are read."""
    if len(ends) < 3:
        return ends
    starts = np.concatenate([[0], ends[:-1] + 1])
    lengths = ends - starts + 1
    usual = float(np.median(lengths[1:]))  # step 0 holds the set-up (variables made)
    long = np.flatnonzero(lengths >= 1.5 * usual)
    backprop = backprop_frames(logdir) if len(long) else frozenset()
    if not backprop:
        return ends

    def backward(i: int) -> bool:
        try:
            return any(f in backprop for f in logdir.read_execution(i).stack_frame_ids)
        except ReaderError:
            return False

    k = next((k for k in range(1, len(ends)) if lengths[k] < 1.5 * usual), None)
    if k is None:
        return ends
    lo = int(starts[k])
    whole = next((i for i in range(lo, int(ends[k]) + 1) if backward(i)), None)
    if whole is None:
        return ends
    out = []
    for k in range(len(ends)):
        if lengths[k] >= 1.5 * usual:
            a, b = int(starts[k]), int(ends[k])
            flags = [backward(i) for i in range(a, b + 1)]
            runs = [(a + j, a + j + next((n for n, f in enumerate(flags[j:]) if not f),
                                         len(flags) - j))
                    for j in range(len(flags)) if flags[j] and (j == 0 or not flags[j - 1])]
            for (_, after_first), (second, _) in pairwise(runs):
                j = 0  # ops just before this backward that match those before a whole one's
                while (second - j - 1 >= after_first and whole - j - 1 >= lo
                       and types[second - j - 1] == types[whole - j - 1]):
                    j += 1
                out.append(second - j - 1)
        out.append(int(ends[k]))
    return np.array(out, np.int64)
