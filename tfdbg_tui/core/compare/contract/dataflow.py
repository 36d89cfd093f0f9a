"""One model of "a training step" that a Session graph, eager ops and tf.function graphs map into.

A migration compares a TF1 `Session.run` (graph traces of one graph) with a TF2 `train_step`
run eagerly (executions, linked by their input/output tensor ids), in a `tf.function`, or
through Keras `fit` (graph traces of the train function). Whatever the form, a step is a small
dataflow graph — a `Flow`: nodes (graph ops, or eager executions) with their inputs, the
variable each resource op touches (`handle`), the phase the program was in when the node was
made (forward, backward = inside the gradient code, optimizer, metric: read from the node's
creation or execution stack, the one thing every form records alike), and for every step the
rows (trace or output rows) holding its tensors.

Stage 1's model (`find_steps` fills it). Steps are found from the variable updates: a
variable is *trained* when it is read by the
forward pass and updated with a float value (by an optimizer, or by hand from a gradient);
step k ends with the k-th update of every trained variable. In a graph, the ops each step runs
are traced once per step; rows of extra `Session.run`s (an initializer, the learning rate
fetched again to log it) fall outside the steps or are overridden by the step's own row.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from reader import GRAPH, DebugLogdir, ReaderError
from reader.index.frames import Frame

FWD, BWD, OPT, METRIC, LOSS = 0, 1, 2, 3, 4


PHASE_NAMES = {FWD: "forward", BWD: "backward", OPT: "optimizer", METRIC: "metric",
               LOSS: "loss function"}


FORWARD = frozenset({FWD, LOSS})  # a loss function's ops are forward ops, but no layer


MAX_STEPS = 256  # steps modelled per run (later steps still pair row by row)


MAX_EXECUTIONS = 20_000  # eager records read to find steps (each is a file read)


MAX_SLOTS = 8


# a read of a variable; `ResourceGather` reads only the rows it gathers (an embedding lookup
# on a TF1 resource variable), which is all of the variable the step reads
READS = frozenset({"ReadVariableOp", "ResourceGather"})


# update ops: (gradient input, learning-rate input); input 0 is the variable
APPLY = {"ResourceApplyGradientDescent": (2, 1), "ApplyGradientDescent": (2, 1),
         "ResourceApplyMomentum": (3, 2), "ApplyMomentum": (3, 2),
         "ResourceApplyKerasMomentum": (3, 2), "ResourceApplyAdam": (9, 5),
         "ApplyAdam": (9, 5), "ResourceApplyAdamWithAmsgrad": (10, 6),
         "ResourceApplyAdaMax": (8, 4), "ApplyAdaMax": (8, 4),
         "ResourceApplyRMSProp": (7, 3), "ApplyRMSProp": (7, 3),
         "ResourceApplyCenteredRMSProp": (8, 4), "ApplyCenteredRMSProp": (8, 4),
         "ResourceApplyAdagrad": (3, 2), "ApplyAdagrad": (3, 2),
         "ResourceApplyAdagradV2": (4, 2), "ResourceApplyAdagradDA": (3, 4),
         "ResourceApplyProximalAdagrad": (5, 2), "ResourceApplyProximalGradientDescent": (4, 1),
         "ResourceApplyAdadelta": (6, 3), "ApplyAdadelta": (6, 3),
         "ResourceApplyAddSign": (6, 2), "ResourceApplyPowerSign": (6, 2),
         "ResourceApplyFtrl": (3, 4), "ApplyFtrl": (3, 4), "ResourceApplyFtrlV2": (3, 4),
         # sparse updates (an embedding's rows): the gradient input is the IndexedSlices'
         # values, the rows' indices come next
         "ResourceSparseApplyRMSProp": (7, 3), "ResourceSparseApplyCenteredRMSProp": (8, 4),
         "ResourceSparseApplyMomentum": (3, 2), "ResourceSparseApplyKerasMomentum": (3, 2),
         "ResourceSparseApplyAdagrad": (3, 2), "ResourceSparseApplyAdagradV2": (4, 2),
         "ResourceSparseApplyAdagradDA": (3, 5), "ResourceSparseApplyProximalAdagrad": (5, 2),
         "ResourceSparseApplyProximalGradientDescent": (4, 1),
         "ResourceSparseApplyAdadelta": (6, 3), "ResourceSparseApplyFtrl": (3, 5),
         "ResourceSparseApplyFtrlV2": (3, 5)}


ASSIGNS = frozenset({"AssignSubVariableOp", "AssignAddVariableOp", "AssignVariableOp",
                     "AssignSub", "AssignAdd", "Assign"})


# sparse assignments (var, indices, values): Keras' and TF1's updates of an embedding's rows
SCATTERS = frozenset({"ResourceScatterSub", "ResourceScatterAdd", "ResourceScatterUpdate"})


UPDATES = frozenset(APPLY) | ASSIGNS | SCATTERS


def value_input(op_type: str) -> int:
    """Which input of an assignment is the value written (a scatter's input 1 is indices)."""
    return 2 if op_type in SCATTERS else 1


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
    line: list[int] = field(default_factory=list)  # `Frames.line` of each node
    steps: list[int] = field(default_factory=list)  # global step numbers this flow covers
    rows: np.ndarray = field(default_factory=lambda: np.zeros((0, 0, 1), np.int64))
    gid: str = ""  # a graph flow's graph id
    op_ids: list[int] = field(default_factory=list)  # a graph flow's `OpTable` op per node
    # node → its graph where not `gid`: a conditional's branch, a function training with
    # another (`graph_flow`)
    node_graph: dict[int, str] = field(default_factory=dict)
    index: list[int] = field(default_factory=list)  # an eager flow's execution per node
    # handle → (kind, row) of the value assigned to it before its first read
    init: dict[str, tuple[int, int]] = field(default_factory=dict)
    # handle → where its last assignment before step 0's read is: (GRAPH, node of this flow)
    # or (EAGER, execution index) — the line that gave step 0 the value it reads (a
    # `set_weights`, a checkpoint restore, an initializer), whatever was assigned before it
    assigned: dict[str, tuple[int, int]] = field(default_factory=dict)
    truncated: bool = False  # more steps ran than were modelled
    state: set[str] = field(default_factory=set)  # non-trainable state (`state_handles`)
    # node → the variables whose handles a loop or call node is given (`loops.passed_handles`)
    passes: dict[int, frozenset[str]] = field(default_factory=dict)
    # lines that call a library's layer (`model(x)`, `self.bn(h)`, `model.fit`: Keras' own
    # code between the user's line and the ops), not a statement of ops the user wrote
    library_lines: set[int] = field(default_factory=set)
    # eager updates taken as training ones though their slot's read went unrecorded
    # (`slot_reads`)
    slot_updates: set[int] = field(default_factory=set)
    # (nodes, consumers, handle → where its reads go: `reach`)
    slot_memo: tuple[int, dict[int, list[int]], dict[str, Reach]] | None = field(
        default=None, repr=False, compare=False)

    def __len__(self) -> int:
        return len(self.op_type)

    def add(self, op_type: str, name: str, inputs: list[tuple[int, int]], handle: str | None,
            phase: int, line: int = -1) -> None:
        self.op_type.append(op_type)
        self.name.append(name)
        self.inputs.append(inputs)
        self.handle.append(handle)
        self.phase.append(phase)
        self.line.append(line)


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
    # the eager executions as one flow (node i = execution i), when they were read
    whole: Flow | None = None


# a layer library's code on a stack: Keras' layers and models (keras/src/layers,
# keras/src/models, tf_keras, TF1's legacy tf.compat.v1.layers)
_LAYER_CODE = re.compile(r"[\\/](keras|tf_keras)[\\/](src[\\/])?(layers|models|engine|"
                         r"legacy_tf_layers)[\\/]")


class Frames:
    """Phase per stack (frame ids tuple), resolved once per distinct stack."""

    def __init__(self, logdir: DebugLogdir) -> None:
        self.logdir = logdir
        self.cache: dict[tuple[str, ...], int] = {}
        self.lines: dict[tuple[str, ...], int] = {}
        self.line_ids: dict[tuple[str, int], int] = {}
        self.library: set[int] = set()  # line numbers whose ops a library layer made

    def line(self, ids: tuple[str, ...]) -> int:
        """A number for the user's line a node was made or run at (-1: none): the nodes of
        one line of a program (`x = self.bn(x)`, `flat = tf.reshape(...)`) are one layer."""
        got = self.lines.get(ids)
        if got is None:
            try:
                frames = self.logdir.stack(ids)
                uf = self.logdir.user_frame(frames)
            except (ReaderError, KeyError, ValueError):
                frames, uf = [], None
            key = (uf.file, uf.line) if uf is not None else None
            got = -1 if key is None else self.line_ids.setdefault(key, len(self.line_ids))
            self.lines[ids] = got
            if got >= 0 and any(_LAYER_CODE.search(f.file) for f in frames):
                self.library.add(got)
        return got

    def phase(self, ids: tuple[str, ...]) -> int:
        got = self.cache.get(ids)
        if got is None:
            try:
                files = [f.file for f in self.logdir.stack(ids)]
            except (ReaderError, KeyError, ValueError):
                files = []
            got = self.cache[ids] = phase_of(files)
        return got


def float_update(flow: Flow, k: int, dtype_of: dict[int, int]) -> bool:
    """Whether update node k writes a float value (unknown counts as float)."""
    if flow.op_type[k] in APPLY:
        return True
    v = value_input(flow.op_type[k])
    if len(flow.inputs[k]) <= v:
        return False
    src = flow.inputs[k][v][0]
    d = dtype_of.get(src, -1)
    return d < 0 or d in _FLOATS


STATE_REACH = 4096  # nodes walked from one variable's reads


def training_update(flow: Flow, k: int, dtype_of: dict[int, int]) -> bool:
    """Whether node k updates a variable as training does: a float value, not a metric's,
    and not a plain assignment in forward code (a variable's initial value) unless its value
    comes from the backward pass."""
    t = flow.op_type[k]
    if not (t in UPDATES and flow.phase[k] != METRIC and float_update(flow, k, dtype_of)):
        return False
    if t in APPLY or k in flow.slot_updates or flow.phase[k] not in FORWARD:
        return True
    # an assignment in the user's or a layer's code: training when its value comes from the
    # gradients. A graph holds the whole dataflow, so a moving average (batch norm's
    # statistics: assign_sub((mean - batch mean) * 0.1)) is told apart; eager tape results
    # have no recorded producer, so there only a plain assignment must show its gradient
    if flow.kind == GRAPH or t in ("AssignVariableOp", "Assign"):
        return _from_gradient(flow, k)
    return True


def _from_gradient(flow: Flow, k: int) -> bool:
    """Whether an assignment's value comes (within a few ops) from the backward pass. A read
    of an optimizer's own variable stands for the values assigned to it: a hand-written
    Adam's `p.assign_sub(lr * m_t / ...)` reads `m`, assigned `b1 * m + (1 - b1) * g`."""
    todo = [j for j, _ in flow.inputs[k][1:]]
    seen: set[int] = set()
    while todo and len(seen) < 48:
        j = todo.pop()
        if j < 0 or j in seen:
            continue
        seen.add(j)
        if flow.phase[j] == BWD:
            return True
        todo.extend(i for i, _ in flow.inputs[j])
        h = flow.handle[j]
        if flow.op_type[j] in READS and h and h != flow.handle[k]:
            got = reach(flow, h)
            if got.optimizer_own:
                todo.extend(got.assigned)
    return False


@dataclass(frozen=True)
class Reach:
    """Where a variable's value goes: whether its reads reach the backward pass (the loss is
    computed from it), the variables whose updates they reach, what is assigned to it."""

    backward: bool
    updates: frozenset[str]
    assigned: tuple[int, ...]

    @property
    def optimizer_own(self) -> bool:
        """Optimizer state (a hand-written Adam's moments, its step counter): never read by
        what the loss is computed from, read by another variable's update."""
        return not self.backward and bool(self.updates)


def reach(flow: Flow, h: str) -> Reach:
    """Where variable `h`'s reads go, walking their consumers up to the updates (memoised on
    the flow); a walk cut short counts as reaching the backward pass."""
    if flow.slot_memo is None or flow.slot_memo[0] != len(flow):
        consumers: dict[int, list[int]] = {}
        for i, ins in enumerate(flow.inputs):
            for j, _ in ins:
                consumers.setdefault(j, []).append(i)
        flow.slot_memo = (len(flow), consumers, {})
    _, consumers, memo = flow.slot_memo
    got = memo.get(h)
    if got is None:
        mine = [i for i in range(len(flow)) if flow.handle[i] == h]
        todo = [c for i in mine if flow.op_type[i] in READS for c in consumers.get(i, [])]
        seen: set[int] = set()
        backward, updates = False, set()
        while todo and not backward:
            i = todo.pop()
            if i in seen:
                continue
            seen.add(i)
            backward = flow.phase[i] == BWD or len(seen) >= STATE_REACH
            if flow.op_type[i] in UPDATES:
                if flow.handle[i] and flow.handle[i] != h:
                    updates.add(flow.handle[i] or "")
            else:
                todo.extend(consumers.get(i, []))
        assigned = tuple(flow.inputs[i][value_input(flow.op_type[i])][0] for i in mine
                         if flow.op_type[i] in ASSIGNS | SCATTERS
                         and len(flow.inputs[i]) > value_input(flow.op_type[i]))
        got = memo[h] = Reach(backward, frozenset(updates), assigned)
    return got


def node_frames(logdir: DebugLogdir, flow: Flow, node: int) -> list[Frame]:
    """Where node `node` of a flow was created (graph op) or run (eager execution)."""
    try:
        if flow.kind == GRAPH:
            graph = logdir.graphs.graphs.get(flow.node_graph.get(node, flow.gid))
            op = graph.ops.get(flow.name[node]) if graph is not None else None
            return logdir.op_stack(op) if op is not None else []
        if 0 <= node < len(flow.index):
            return logdir.stack(logdir.read_execution(flow.index[node]).stack_frame_ids)
    except (ReaderError, KeyError, ValueError):
        pass
    return []
