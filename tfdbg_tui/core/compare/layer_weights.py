"""The line building a layer that an eager model call ran, told by the layer's own weights.

Why: calling a functional or Sequential model eagerly (`model(x)` in a `GradientTape`)
runs every layer's ops under that one line, and eager ops carry no names, so when the
user's code constructs the layer's class more than once (three `Dense(`), nothing on the
op's stack says which construction made it (`creation.find_layer_creation` gives up). The
dataflow does: a layer's output depends on its own weights — of the variables it depends
on, the one the forward pass reads last — and each was created by the layer's `build`, an eager
`VarHandleOp` whose stack holds the user's line that built the layer (a functional model's
`Dense(6, name="gate")(inputs)`). That line is the one to change when it constructs
exactly one layer of the class whose `call` made the op.
"""

from __future__ import annotations

import re

from reader import EAGER, GRAPH, ReaderError
from reader.index.frames import Frame, program_frames, user_frame_index
from tfdbg_tui.core.compare.contract.dataflow import READS, node_frames
from tfdbg_tui.core.compare.contract.penalty_pairing import penalized
from tfdbg_tui.core.compare.creation import Creation, constructions_at, find_layer_creation
from tfdbg_tui.core.compare.penalty_layer import pair_penalty_node
from tfdbg_tui.core.compare.result import Comparison
from tfdbg_tui.core.compare.verdict import step_offset


def weights_creation(c: Comparison, p: int, side: str, owner: str) -> Creation | None:
    """The construction of the `owner` layer whose output pair `p` holds on `side`, found
    from where the layer's own weights were created (see the module docstring); None when
    the run is no eager one, the tensor is no layer output with weights of its own, or the
    weights' line does not construct exactly one `owner`."""
    model = c.training.a if side == "a" else c.training.b
    logdir = c.a if side == "a" else c.b
    whole = model.training.whole
    step = int(c.pairs.step[p])
    if whole is None or not 0 <= step < model.n_steps:
        return None
    flow, _, roles = model.steps[step]
    if flow.kind == GRAPH:
        return None
    kind = int(c.pairs.kind[p] if side == "a" else c.pairs.kind_b[p])
    if side == "b" and kind < 0:
        kind = int(c.pairs.kind[p])
    row = int(c.pairs.a_row[p] if side == "a" else c.pairs.b_row[p])
    groups = [g for g, t in roles.layers if model.row(step, t) == (kind, row)]
    if not groups:  # a layer output compared at its reshape's input (`unflattened`)
        groups = [g for g, t in roles.layers if 0 <= t[0] < len(flow)
                  and flow.op_type[t[0]] == "Reshape" and flow.inputs[t[0]]
                  and model.row(step, flow.inputs[t[0]][0]) == (kind, row)]
    if not groups:
        return None
    # the layer's own weight: of the variables its output depends on, the one the forward
    # pass reads last (earlier layers' weights are read before theirs are used)
    own = [h for h in roles.variables if h in groups[0]][-1:]
    makers = {whole.inputs[k][0][0] for k in range(len(whole))
              if whole.handle[k] in own and whole.op_type[k] in READS and whole.inputs[k]}
    found: set[tuple[str, str, int]] = set()
    result: Creation | None = None
    for j in sorted(m for m in makers if m >= 0 and whole.op_type[m] == "VarHandleOp"):
        try:
            stack = logdir.alert_stack(EAGER, j)
        except (ReaderError, KeyError, ValueError, IndexError):
            continue
        built = find_layer_creation(logdir, stack, None, None, "build")
        if built is None or built.owner != owner:
            continue
        if built.frame is not None:
            result = built
        else:
            uf = logdir.user_frame(program_frames(stack)[0])
            result = _the_one(c, side, uf, owner)
        if result is None or result.frame is None:
            return None
        found.add((result.frame.host, result.frame.file, result.frame.line))
    return result if len(found) == 1 else None


def _the_one(c: Comparison, side: str, uf: Frame | None, owner: str) -> Creation | None:
    """The construction of `owner` in the statement at the user's frame `uf`, when that
    statement constructs exactly one."""
    if uf is None:
        return None
    logdir = c.a if side == "a" else c.b
    hits = constructions_at(logdir, uf, owner)
    return hits[0] if len(hits) == 1 else None


def penalized_read(c: Comparison, p: int, side: str) -> tuple[list[Frame], str] | None:
    """For a penalty pair `p` whose line on `side` is the penalty's, run by Keras' `fit`
    (whose ops carry only the `model.fit` line: the regularizer is called by the trainer,
    not by the layer): the stack and op name of the step's read of the weight it
    regularizes — made in that layer's `call`, so its construction, where the regularizer
    is given, can be found from it. None when the penalty's node or the weight is unknown."""
    sp = c.training.sp
    model = c.training.a if side == "a" else c.training.b
    step = int(c.pairs.step[p])
    got = (sp.where_a if side == "a" else sp.where_b).get(p - step_offset(c)) if sp else None
    got = got or pair_penalty_node(c, p, side)  # a term both runs have: its own node
    flow = got[0] if got is not None else None
    if got is None or flow is None or not 0 <= step < model.n_steps:
        return None
    node = got[1]
    _, _, roles = model.steps[step]
    h = penalized(flow, node, roles.variables)
    if h is None:
        return None
    logdir = c.a if side == "a" else c.b
    # of the weight's reads, one a layer's `call` made (the regularizer reads it too)
    for k in range(min(len(flow), len(flow.name))):
        if flow.handle[k] != h or flow.op_type[k] not in READS:
            continue
        frames = node_frames(logdir, flow, k)
        if any(f.function == "call" and _LAYERS.search(f.file) for f in frames):
            return frames, flow.name[k]
    return None


_LAYERS = re.compile(r"[/\\]layers[/\\]")
_KERAS_LAYER = re.compile(r"[/\\]keras[/\\]src[/\\]layers[/\\]layer\.py$")


def made_in_layer(frames: list[Frame]) -> bool:
    """Whether a tensor was made inside a Keras layer's `__call__` that the user's line
    called (`model(x)`: an `activity_regularizer` the layer applies to its output, so the
    line to show is the layer's construction, where the regularizer is given), not by the
    user's own statement."""
    i = user_frame_index(frames)
    return i is not None and any(f.function == "__call__" and _KERAS_LAYER.search(f.file)
                                 for f in frames[i + 1:])


__all__ = ["penalized_read", "weights_creation"]
