"""One model of "a training step" that a Session graph, eager ops and tf.function graphs map into.

A migration compares a TF1 `Session.run` (graph traces of one graph) with a TF2 `train_step`
run eagerly (executions, linked by their input/output tensor ids), in a `tf.function`, or
through Keras `fit` (graph traces of the train function). Whatever the form, a step is a small
dataflow graph — a `Flow`: nodes (graph ops, or eager executions) with their inputs, the
variable each resource op touches (`handle`), the phase the program was in when the node was
made (forward, backward = inside the gradient code, optimizer, metric: read from the node's
creation or execution stack, the one thing every form records alike), and for every step the
rows (trace or output rows) holding its tensors.

Steps are found from the variable updates: a variable is *trained* when it is read by the
forward pass and updated with a float value (by an optimizer, or by hand from a gradient);
step k ends with the k-th update of every trained variable. In a graph, the ops each step runs
are traced once per step; rows of extra `Session.run`s (an initializer, the learning rate
fetched again to log it) fall outside the steps or are overridden by the step's own row.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from reader import GRAPH, DebugLogdir, ReaderError
from reader.index.frames import Frame
from reader.index.graphs import parse_tensor_name
from tfdbg_tui.core.compare.graphs import OpTable

FWD, BWD, OPT, METRIC, LOSS = 0, 1, 2, 3, 4
PHASE_NAMES = {FWD: "forward", BWD: "backward", OPT: "optimizer", METRIC: "metric",
               LOSS: "loss function"}
FORWARD = frozenset({FWD, LOSS})  # a loss function's ops are forward ops, but no layer
MAX_STEPS = 256  # steps modelled per run (later steps still pair row by row)
MAX_EXECUTIONS = 20_000  # eager records read to find steps (each is a file read)
MAX_SLOTS = 8
_CELLS = 1 << 21  # (step, node, slot) cells of a graph's row table
READS = frozenset({"ReadVariableOp"})
# update ops: (gradient input, learning-rate input); input 0 is the variable
APPLY = {"ResourceApplyGradientDescent": (2, 1), "ApplyGradientDescent": (2, 1),
         "ResourceApplyMomentum": (3, 2), "ApplyMomentum": (3, 2),
         "ResourceApplyKerasMomentum": (3, 2), "ResourceApplyAdam": (9, 5),
         "ApplyAdam": (9, 5), "ResourceApplyRMSProp": (7, 3), "ResourceApplyAdagrad": (3, 2),
         "ResourceApplyAdagradV2": (4, 2), "ResourceApplyAdadelta": (6, 3),
         "ResourceApplyFtrl": (3, 4)}
ASSIGNS = frozenset({"AssignSubVariableOp", "AssignAddVariableOp", "AssignVariableOp",
                     "AssignSub", "AssignAdd", "Assign"})
UPDATES = frozenset(APPLY) | ASSIGNS
_VAR_SOURCES = frozenset({"VarHandleOp", "VariableV2", "Variable", "Placeholder", "_Arg"})
_FLOATS = frozenset({1, 2, 14, 19})


def phase_of(files: list[str]) -> int:
    """The phase of a node from the files on its stack (outermost first)."""
    back = opt = metric = loss = False
    for f in files:
        f = f.replace("\\", "/")
        if f.endswith(("eager/backprop.py", "ops/gradients_util.py", "ops/gradients_impl.py",
                       "eager/imperative_grad.py")):
            back = True
        elif "/optimizers/" in f or f.endswith(("/optimizer.py", "/gradient_descent.py",
                                                "/momentum.py", "/adam.py", "/rmsprop.py")):
            opt = True
        elif "/metrics/" in f:
            metric = True
        elif "/losses/" in f or f.endswith(("/losses_impl.py", "/losses.py")):
            loss = True
    return (BWD if back else OPT if opt else METRIC if metric else LOSS if loss else FWD)


@dataclass
class Flow:
    """One step's nodes (see the module docstring); `rows[s, node, slot]` is the row of that
    tensor in step s of `steps` (-1: not recorded)."""

    kind: int
    op_type: list[str] = field(default_factory=list)
    name: list[str] = field(default_factory=list)
    inputs: list[list[tuple[int, int]]] = field(default_factory=list)
    handle: list[str | None] = field(default_factory=list)
    phase: list[int] = field(default_factory=list)
    steps: list[int] = field(default_factory=list)  # global step numbers this flow covers
    rows: np.ndarray = field(default_factory=lambda: np.zeros((0, 0, 1), np.int64))
    gid: str = ""  # a graph flow's graph id
    index: list[int] = field(default_factory=list)  # an eager flow's execution per node
    # handle → (kind, row) of the value assigned to it before its first read
    init: dict[str, tuple[int, int]] = field(default_factory=dict)
    # handle → where its last assignment before step 0's read is: (GRAPH, node of this flow)
    # or (EAGER, execution index) — the line that gave step 0 the value it reads (a
    # `set_weights`, a checkpoint restore, an initializer), whatever was assigned before it
    assigned: dict[str, tuple[int, int]] = field(default_factory=dict)
    truncated: bool = False  # more steps ran than were modelled

    def __len__(self) -> int:
        return len(self.op_type)

    def add(self, op_type: str, name: str, inputs: list[tuple[int, int]], handle: str | None,
            phase: int) -> None:
        self.op_type.append(op_type)
        self.name.append(name)
        self.inputs.append(inputs)
        self.handle.append(handle)
        self.phase.append(phase)


@dataclass
class Training:
    """A run's training steps: flows in step order, the trained variables' handles, and what
    could not be modelled (said, not guessed)."""

    flows: list[Flow]
    n_steps: int
    trained: set[str]
    notes: list[str] = field(default_factory=list)
    step_of_trace: np.ndarray | None = None  # per trace row: its step, -1 outside steps
    step_of_execution: np.ndarray | None = None


class Frames:
    """Phase per stack (frame ids tuple), resolved once per distinct stack."""

    def __init__(self, logdir: DebugLogdir) -> None:
        self.logdir = logdir
        self.cache: dict[tuple[str, ...], int] = {}

    def phase(self, ids: tuple[str, ...]) -> int:
        got = self.cache.get(ids)
        if got is None:
            try:
                files = [f.file for f in self.logdir.stack(ids)]
            except (ReaderError, KeyError, ValueError):
                files = []
            got = self.cache[ids] = phase_of(files)
        return got


# ---------------------------------------------------------------------- graphs
def _graph_flow(logdir: DebugLogdir, ops: OpTable, gid: str, frames: Frames) -> Flow:
    graph = logdir.graphs.graphs[gid]
    ids = ops.by_graph.get(gid, [])
    local = {ops.keys[i][1]: k for k, i in enumerate(ids)}
    flow = Flow(GRAPH, gid=gid)
    for i in ids:
        name = ops.keys[i][1]
        op = graph.ops.get(name)
        ins: list[tuple[int, int]] = []
        if op is not None:
            for tname in op.input_names:
                parsed = parse_tensor_name(tname)
                if parsed is not None:
                    ins.append((local.get(parsed[0], -1), parsed[1]))
        phase = frames.phase(op.stack_frame_ids) if op is not None else FWD
        flow.add(ops.types[i], name, ins, None, phase)
    for k, t in enumerate(flow.op_type):  # the variable a resource op reads or writes
        if (t in READS or t in UPDATES) and flow.inputs[k]:
            src = flow.inputs[k][0][0]
            hops = 0
            while (src >= 0 and flow.op_type[src] == "Identity" and flow.inputs[src]
                   and hops < 8):
                src, hops = flow.inputs[src][0][0], hops + 1
            if src >= 0 and flow.op_type[src] in _VAR_SOURCES:
                flow.handle[k] = f"{gid}/{flow.name[src]}"
    return flow


def _float_value(flow: Flow, k: int, dtype_of: dict[int, int]) -> bool:
    """Whether update node k writes a float value (unknown counts as float)."""
    if flow.op_type[k] in APPLY:
        return True
    if len(flow.inputs[k]) < 2:
        return False
    src = flow.inputs[k][1][0]
    d = dtype_of.get(src, -1)
    return d < 0 or d in _FLOATS


def trained_handles(flow: Flow, dtype_of: dict[int, int]) -> set[str]:
    """Variables read by the forward pass and updated with a float value in the flow."""
    updated = {flow.handle[k] for k in range(len(flow))
               if flow.handle[k] and training_update(flow, k, dtype_of)}
    consumers: dict[int, list[int]] = {}
    for k, ins in enumerate(flow.inputs):
        for j, _ in ins:
            if j >= 0:
                consumers.setdefault(j, []).append(k)
    out = set()
    for k, t in enumerate(flow.op_type):
        h = flow.handle[k]
        if t in READS and h in updated:
            if any(flow.phase[c] in FORWARD and flow.op_type[c] not in UPDATES
                   and flow.op_type[c] not in READS for c in consumers.get(k, [])):
                out.add(h)
    return {h for h in out if h is not None}


def training_update(flow: Flow, k: int, dtype_of: dict[int, int]) -> bool:
    """Whether node k updates a variable as training does: a float value, not a metric's,
    and not a plain assignment in forward code (a variable's initial value) unless its value
    comes from the backward pass."""
    t = flow.op_type[k]
    return (t in UPDATES and flow.phase[k] != METRIC and _float_value(flow, k, dtype_of)
            and not (t in ("AssignVariableOp", "Assign") and flow.phase[k] in FORWARD
                     and not _from_gradient(flow, k)))


def _from_gradient(flow: Flow, k: int) -> bool:
    """Whether an assignment's value comes (within a few ops) from the backward pass."""
    todo = [j for j, _ in flow.inputs[k][1:]]
    seen: set[int] = set()
    while todo and len(seen) < 32:
        j = todo.pop()
        if j < 0 or j in seen:
            continue
        seen.add(j)
        if flow.phase[j] == BWD:
            return True
        todo.extend(i for i, _ in flow.inputs[j])
    return False


def graph_training(logdir: DebugLogdir, ops: OpTable, frames: Frames
                    ) -> list[tuple[Flow, set[str]]]:
    """The graphs holding training updates, as flows, with their trained variables."""
    found = []
    update_types = set(UPDATES)
    for gid in logdir.graphs.graphs:
        ids = ops.by_graph.get(gid, [])
        if not any(ops.types[i] in update_types for i in ids):
            continue
        flow = _graph_flow(logdir, ops, gid, frames)
        dtype_of = {k: ops.shape[i][0] for k, i in enumerate(ids)}
        trained = trained_handles(flow, dtype_of)
        if trained:
            found.append((flow, trained))
    return found


def _ancestors(flow: Flow, seeds: list[int]) -> np.ndarray:
    """Nodes the seeds depend on, through data edges and through variables: a read depends
    on the earlier assignments to its variable (an optimizer's slot: written, then read)."""
    writes: dict[str, list[int]] = {}
    for k, t in enumerate(flow.op_type):
        h = flow.handle[k]
        if t in UPDATES and h:
            writes.setdefault(h, []).append(k)
    mask = np.zeros(len(flow), bool)
    todo = list(seeds)
    while todo:
        k = todo.pop()
        if k < 0 or mask[k]:
            continue
        mask[k] = True
        todo.extend(j for j, _ in flow.inputs[k])
        h = flow.handle[k]
        if flow.op_type[k] in READS and h:
            todo.extend(w for w in writes.get(h, []) if w < k)
    return mask


def graph_steps(logdir: DebugLogdir, ops: OpTable, gid: str, flow: Flow,
                trained: set[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(ends, rows[step, node, slot], first row of each node's slot 0) of a training graph.

    Vectorised over the graph's trace rows. The backward ops (traced only when a step
    trains) give the step count and each step's span [start, end]. A tensor computed in the
    span is that step's. One computed outside it — also by other `Session.run`s: the
    initializer, a fetch of the loss and learning rate to log them — is taken from the run
    that trains: an op that ran exactly once per step has its k-th row in step k; else, for
    an op the updates depend on (the forward pass, the learning rate), its last row before
    the span; for any other (a loss fetched beside the train op), the row nearest to it."""
    ids = np.asarray(ops.by_graph.get(gid, []), np.int64)
    lut = np.full(len(ops.keys), -1, np.int64)
    lut[ids] = np.arange(len(ids))
    t = logdir.traces
    rows = np.flatnonzero(lut[ops.row_op] >= 0) if len(t) else np.zeros(0, np.int64)
    node = lut[ops.row_op[rows]]
    slot = np.asarray(t.slot)[rows].astype(np.int64) if len(rows) else np.zeros(0, np.int64)
    updates = [k for k, typ in enumerate(flow.op_type) if typ in UPDATES
               and flow.handle[k] in trained]
    step_ops = _ancestors(flow, updates)
    counts = np.bincount(node, minlength=len(flow)) if len(node) else np.zeros(len(flow), int)
    eligible = step_ops & (counts > 0)
    first = np.full(len(flow), -1, np.int64)
    if len(rows):
        first[node[::-1]] = rows[::-1]
    if not eligible.any():
        return np.zeros(0, np.int64), np.zeros((0, len(flow), 1), np.int64), first
    backward = np.asarray(flow.phase) == BWD
    if (eligible & backward).any():  # only a training run computes gradients
        eligible = eligible & backward
    # the count most of them share (an op run once, before the steps — an initial value
    # reached through a control or resource edge — must not set the step count)
    values, freq = np.unique(counts[eligible], return_counts=True)
    n = int(values[np.argmax(freq)])
    n_all = n  # the step count over the rows looked at
    exact = eligible & (counts == n)
    # steps modelled: at most MAX_STEPS, and fewer for a big graph (the step × op × slot
    # tables are bounded by _CELLS, whatever the file claims)
    slots = min(MAX_SLOTS, int(slot.max(initial=0)) + 1)
    cap = max(1, min(MAX_STEPS, _CELLS // max(1, len(flow) * slots)))
    flow.truncated = n > cap
    if n > cap + 1:  # a long run: only the rows of the first steps are looked at
        e0 = int(np.flatnonzero(exact)[0])
        limit = int(rows[node == e0][cap + 1])
        cut = rows < limit
        rows, node, slot = rows[cut], node[cut], slot[cut]
        n = n_all = cap + 1
        exact = exact & (np.bincount(node, minlength=len(flow)) == n)
    sel = exact[node]
    from tfdbg_tui.core.compare.keys import occurrence

    occ = occurrence(node[sel])
    keep_occ = occ < n
    big = np.iinfo(np.int64).max
    starts = np.full(n, big, np.int64)
    ends = np.full(n, -1, np.int64)
    np.minimum.at(starts, occ[keep_occ], rows[sel][keep_occ])
    np.maximum.at(ends, occ[keep_occ], rows[sel][keep_occ])
    n = min(n, cap)
    starts = np.minimum.accumulate(starts[::-1])[::-1][:n]
    ends = np.maximum.accumulate(ends)[:n]
    ok = (slot >= 0) & (slot < MAX_SLOTS)
    rows, node, slot = rows[ok], node[ok], slot[ok]
    k = np.searchsorted(starts, rows, side="right") - 1  # the last step started
    inside = (k >= 0) & (rows <= ends[k.clip(0)])
    after = (k >= 0) & ~inside
    before = ~inside & (k + 1 < n)
    width = int(slot.max(initial=0)) + 1
    tables = []
    for mask, step, pick in ((inside, k, np.minimum), (before, k + 1, np.maximum),
                             (after, k, np.minimum)):
        table = np.full((n, len(flow), width), -1 if pick is np.maximum else big, np.int64)
        pick.at(table, (step[mask], node[mask], slot[mask]), rows[mask])
        table[(table == big) | (table < 0)] = -1
        tables.append(table)
    inside_t, before_t, after_t = tables
    # an op run exactly once per step (counted over the whole run): its k-th row is step k's
    key = node * width + slot
    once = np.bincount(key, minlength=len(flow) * width).reshape(len(flow), width) == n_all
    sel_once = once[node, slot]
    occ_once = occurrence(key[sel_once])
    fit_in = occ_once < n
    once_t = np.full((n, len(flow), width), -1, np.int64)
    once_t[occ_once[fit_in], node[sel_once][fit_in], slot[sel_once][fit_in]] = \
        rows[sel_once][fit_in]
    # what the updates depend on: the last row before the span; anything else: the row
    # nearest to the span (a loss fetched beside the train op is computed just before the
    # gradients in a function, just after them in a TF1 graph)
    far = np.iinfo(np.int64).max // 4
    gap_before = np.where(before_t >= 0, starts[:, None, None] - before_t, far)
    gap_after = np.where(after_t >= 0, after_t - ends[:, None, None], far)
    nearest = np.where(gap_before <= gap_after, before_t, after_t)
    prefer_before = step_ops[None, :, None]
    outside = np.where(prefer_before, np.where(before_t >= 0, before_t, after_t), nearest)
    out = np.where(once_t >= 0, once_t, np.where(inside_t >= 0, inside_t, outside))
    return ends, out, first


def node_frames(logdir: DebugLogdir, flow: Flow, node: int) -> list[Frame]:
    """Where node `node` of a flow was created (graph op) or run (eager execution)."""
    try:
        if flow.kind == GRAPH:
            graph = logdir.graphs.graphs.get(flow.gid)
            op = graph.ops.get(flow.name[node]) if graph is not None else None
            return logdir.op_stack(op) if op is not None else []
        if 0 <= node < len(flow.index):
            return logdir.stack(logdir.read_execution(flow.index[node]).stack_frame_ids)
    except (ReaderError, KeyError, ValueError):
        pass
    return []
