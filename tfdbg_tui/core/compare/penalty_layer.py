"""The line building the layer whose `activity_regularizer` made a penalty term, in an eager
run where one statement builds several layers of that class.

Why: Keras applies a layer's activity regularizer inside the layer's `__call__`, under the
user's one line calling the model (`model(x)`), and eager ops carry no names; when one
statement builds the model's layers (`Sequential([Dense(..., activity_regularizer=...),
Dense(...)])`), neither the stack nor the weights' creation (`layer_weights`, which asks for
a statement building exactly one layer of the class) tells which construction it was. The
order does: the statement builds its layers of the class in the order it lists them, and
the forward pass uses them in that order, so the penalized layer — the one owning the first
weight the penalty is computed from — is the construction at its rank among the layers of
that class the statement built.
"""

from __future__ import annotations

from reader import EAGER, GRAPH, DebugLogdir, ReaderError
from reader.index.frames import Frame, program_frames
from tfdbg_tui.core.compare.contract.dataflow import READS, Flow
from tfdbg_tui.core.compare.contract.penalty_pairing import penalized
from tfdbg_tui.core.compare.creation import Creation, constructions_at, find_layer_creation
from tfdbg_tui.core.compare.result import Comparison


def pair_penalty_node(c: Comparison, p: int, side: str) -> tuple[Flow, int] | None:
    """The flow and node of the penalty term pair `p` holds on `side`, or None."""
    model = c.training.a if side == "a" else c.training.b
    step = int(c.pairs.step[p])
    if not 0 <= step < model.n_steps:
        return None
    flow, _, roles = model.steps[step]
    kind = int(c.pairs.kind[p] if side == "a" else c.pairs.kind_b[p])
    if side == "b" and kind < 0:
        kind = int(c.pairs.kind[p])
    row = int(c.pairs.a_row[p] if side == "a" else c.pairs.b_row[p])
    node = next((t[0] for t in roles.penalties if model.row(step, t) == (kind, row)), None)
    return (flow, node) if node is not None else None


def penalty_creation(c: Comparison, p: int, side: str, owner: str) -> Creation | None:
    """The construction of the `owner` layer whose weights penalty pair `p` is computed
    from on `side` (see the module docstring); None when the run is no eager one or the
    statement's constructions of `owner` do not match its layers one to one."""
    model = c.training.a if side == "a" else c.training.b
    logdir = c.a if side == "a" else c.b
    whole = model.training.whole
    got = pair_penalty_node(c, p, side)
    if whole is None or got is None or got[0].kind == GRAPH:
        return None
    flow, node = got
    roles = model.steps[int(c.pairs.step[p])][2]
    h = penalized(flow, node, roles.variables)
    seen: set[str] = set()
    layers: list[tuple[Frame | None, bool]] = []  # per layer: its building line, penalized?
    for key, _ in roles.layers:
        own = [v for v in roles.variables if v in key and v not in seen]
        seen.update(key)
        if own:
            makers = {whole.inputs[k][0][0] for k in range(len(whole))
                      if whole.handle[k] == own[-1] and whole.op_type[k] in READS
                      and whole.inputs[k]}
            layers.append((_built_at(logdir, whole, makers, owner), h in own))
    mine = [at for at, hit in layers if hit]
    if len(mine) != 1 or mine[0] is None:
        return None
    here = (mine[0].host, mine[0].file, mine[0].line)
    rank = [i for i, (at, _) in enumerate(layers)
            if at is not None and (at.host, at.file, at.line) == here]
    sites = constructions_at(logdir, mine[0], owner)
    if len(sites) != len(rank):
        return None
    return sites[rank.index(next(i for i, (_, hit) in enumerate(layers) if hit))]


def _built_at(logdir: DebugLogdir, whole: Flow, makers: set[int], owner: str) -> Frame | None:
    """The user's line whose `owner` layer's `build` created the variable (`makers`: its
    `VarHandleOp`s), or None when it is not one such line."""
    found: set[tuple[str, str, int]] = set()
    at: Frame | None = None
    for j in sorted(m for m in makers if m >= 0 and whole.op_type[m] == "VarHandleOp"):
        try:
            stack = logdir.alert_stack(EAGER, j)
        except (ReaderError, KeyError, ValueError, IndexError):
            continue
        built = find_layer_creation(logdir, stack, None, None, "build")
        uf = logdir.user_frame(program_frames(stack)[0])
        if built is None or built.owner != owner or uf is None:
            return None
        at = uf
        found.add((uf.host, uf.file, uf.line))
    return at if len(found) == 1 else None
