"""Stage 4: Join the training-step pairs (`pairing`) with the op-by-op pairs (`opmatch`, `rows`).

When both runs train, what each tensor *is* decides: the step pairs (variables, layer outputs,
loss, learning rate, gradients, updates) are authoritative, and an op-by-op pair is kept only
as an `other` quantity when neither of its tensors has a role in its run and both lie in the
same training step — so an op pairing that crosses roles (a loss with a gradient op, a loss
with a schedule evaluated a second time to log it) can no longer make a false divergence.
Pairs are then ordered by step, and within a step by run A's timeline.
"""

from __future__ import annotations

import numpy as np

from reader import EAGER, GRAPH, DebugLogdir
from tfdbg_tui.core.compare.contract.dataflow import (
    BWD,
    FWD,
    LOSS,
    METRIC,
    OPT,
    READS,
    Flow,
    Training,
)
from tfdbg_tui.core.compare.contract.model import RunModel
from tfdbg_tui.core.compare.contract.pairing import StepPairs
from tfdbg_tui.core.compare.contract.quantities import (
    CONTRACT,
    Q_GRADIENT,
    Q_LAYER,
    Q_LOSS,
    Q_METRIC,
    Q_OTHER,
    Q_UPDATE,
)
from tfdbg_tui.core.compare.contract.tensors import SHAPE_ONLY
from tfdbg_tui.core.compare.pairs import BY_NAME, BY_STEP, Pairs


def role_rows(model: RunModel) -> dict[int, np.ndarray]:
    """Per kind, the sorted rows of every tensor that has a role in some step."""
    found: dict[int, set[int]] = {GRAPH: set(), EAGER: set()}
    for k, (flow, _, roles) in enumerate(model.steps):
        tensors = [*roles.read.values(), *roles.grad.values(), roles.lr, roles.loss,
                   *(t for _, t in roles.layers), *roles.applied.values(), *roles.lr_chain,
                   *roles.state_read.values(), roles.total, *roles.penalties,
                   *roles.lr_of.values()]
        for t in tensors:
            got = model.row(k, t)
            if got is not None:
                found[got[0]].add(got[1])
        for kind, r in flow.init.values():
            found[kind].add(r)
    return {k: np.array(sorted(v), np.int64) for k, v in found.items()}


def row_steps(logdir: DebugLogdir, training: Training, kind: int, rows: np.ndarray
              ) -> np.ndarray:
    """The training step of each row (-1: outside every step)."""
    if kind == GRAPH:
        table = training.step_of_trace
        if table is None or not len(table):
            return np.full(len(rows), -1, np.int64)
        return table[rows]
    table = training.step_of_execution
    if table is None or not len(table):
        return np.full(len(rows), -1, np.int64)
    return table[np.asarray(logdir.outputs.execution)[rows]]


def _isin(rows: np.ndarray, sorted_rows: np.ndarray) -> np.ndarray:
    if not len(sorted_rows) or not len(rows):
        return np.zeros(len(rows), bool)
    at = np.searchsorted(sorted_rows, rows).clip(0, len(sorted_rows) - 1)
    return sorted_rows[at] == rows


def merge(a: DebugLogdir, b: DebugLogdir, kind: np.ndarray, a_row: np.ndarray,
          b_row: np.ndarray, how: np.ndarray, sp: StepPairs, ma: RunModel, mb: RunModel
          ) -> Pairs:
    """Op pairs filtered as the module docstring says, then the step pairs; with steps set."""
    ra, rb = role_rows(ma), role_rows(mb)
    for i in sp.rates:  # a product a rate was inferred from has that role
        for rows, k, r in ((ra, sp.kind_a[i], sp.row_a[i]), (rb, sp.kind_b[i], sp.row_b[i])):
            rows[k] = np.union1d(rows[k], [r])
    keep = np.ones(len(kind), bool)
    step_a = np.full(len(kind), -1, np.int64)
    for k in (GRAPH, EAGER):
        sel = np.flatnonzero(kind == k)
        if not len(sel):
            continue
        sa = row_steps(a, ma.training, k, a_row[sel])
        sb = row_steps(b, mb.training, k, b_row[sel])
        na, nb = (len(a.traces), len(b.traces)) if k == GRAPH else (len(a.outputs), len(b.outputs))
        pa = _node_rows(ma, k, na, "phase")[a_row[sel]]
        pb = _node_rows(mb, k, nb, "phase")[b_row[sel]]
        inside = sa >= 0
        # inside a step, ops paired by structure only in the forward pass: the gradient code
        # and the optimizer differ between TF1 and TF2 by construction (their shape
        # constants, their fusions), and what matters of them — gradients, learning rate,
        # updates — is paired by role; a pair by name (one program twice) stays. Nor a
        # forward op computed from the model's variables with one computed from the inputs
        # alone (A's teacher / T, the soft targets, against B's logits / T: two divisions)
        va = _node_rows(ma, k, na, "weights")[a_row[sel]]
        vb = _node_rows(mb, k, nb, "weights")[b_row[sel]]
        ok = (~_isin(a_row[sel], ra[k]) & ~_isin(b_row[sel], rb[k]) & (sa == sb)
              & (~inside | (how[sel] == BY_NAME)
                 | ((pa == FWD) & (pb == FWD) & ((va == vb) | (va < 0) | (vb < 0)))))
        keep[sel] = ok
        step_a[sel] = sa
    n_old = int(np.count_nonzero(keep))
    n_new = len(sp.row_a)
    new_how = np.full(n_new, BY_STEP, np.int8)
    if n_new and len(kind):  # a step pair the op pairing made too keeps how it was made
        width = int(max(a_row.max(initial=0), max(sp.row_a))) + 1
        wb = int(max(b_row.max(initial=0), max(sp.row_b))) + 1
        old_key = ((kind.astype(np.int64) * width + a_row) * wb + b_row)
        new_key = ((np.asarray(sp.kind_a, np.int64) * width + np.asarray(sp.row_a)) * wb
                   + np.asarray(sp.row_b))
        same_kind = np.asarray(sp.kind_a) == np.asarray(sp.kind_b)
        order = np.argsort(old_key)
        at = np.searchsorted(old_key[order], new_key).clip(0, len(order) - 1)
        hit = same_kind & (old_key[order][at] == new_key)
        new_how[hit] = how[order[at[hit]]]
    pairs = Pairs.build(np.concatenate([kind[keep], np.asarray(sp.kind_a, np.int8)]),
                        np.concatenate([a_row[keep], np.asarray(sp.row_a, np.int64)]),
                        np.concatenate([b_row[keep], np.asarray(sp.row_b, np.int64)]),
                        np.concatenate([how[keep], new_how]),
                        np.concatenate([kind[keep], np.asarray(sp.kind_b, np.int8)]))
    pairs.step = np.concatenate([step_a[keep], np.asarray(sp.step, np.int64)])
    pairs.quantity = np.concatenate([np.full(n_old, Q_OTHER, np.int8),
                                     np.asarray(sp.quantity, np.int8)])
    pairs.label = [""] * n_old + list(sp.label)
    return pairs


# where a quantity falls within its step: the step contract's order, metrics after it
_RANK = {q: 2 * i for i, q in enumerate(CONTRACT)}
_RANK[Q_METRIC] = 2 * len(CONTRACT)
_RANK[Q_OTHER] = 2 * len(CONTRACT) + 2
# an op pair no role names ranks with the quantities of its phase (a forward op with the
# layer outputs, a backward op with the gradients, an optimizer's with the updates), then by
# run A's time: a changed activation upstream of a layer's output is where the difference
# starts; the optimizer's own intermediates come right after the updates they make (a
# changed step size is the update's divergence, not its product's); shape and index
# operands are never paired here (`compare`)
_PHASE_RANK = {FWD: _RANK[Q_LAYER], LOSS: _RANK[Q_LOSS], BWD: _RANK[Q_GRADIENT],
               OPT: _RANK[Q_UPDATE] + 1, METRIC: _RANK[Q_METRIC]}


def _on_weights(flow: Flow, trained: set[str]) -> list[int]:
    """Per node, 1 if its value is computed from a read of the model's variables (trained,
    or state such as batch norm's statistics), 0 if from the inputs alone (as `roles` finds
    what each tensor depends on: nodes in dataflow order, shapes carry none)."""
    trained = trained | flow.state
    on = [0] * len(flow)
    for k in range(len(flow)):
        if flow.op_type[k] in SHAPE_ONLY:
            continue
        on[k] = int((flow.op_type[k] in READS and flow.handle[k] in trained)
                    or any(0 <= j < k and on[j] for j, _ in flow.inputs[k])
                    or bool(flow.passes.get(k, frozenset()) & trained))
    return on


def _node_rows(model: RunModel, kind: int, n: int, what: str) -> np.ndarray:
    """Per row of `kind`, the phase (`what="phase"`), user line (`"line"`) or whether it is
    computed from the model's variables (`"weights"`) of its node in a training step (-1
    outside); made once per run, kind and `what`, one small integer a row (a run of
    millions of rows: int8 phases, int32 lines)."""
    key = (what, kind)
    got = model.cache.get(key)
    if got is not None and len(got) == n:
        return got
    dtype = np.int32 if what == "line" else np.int8
    out = np.full(n, -1, dtype)
    model.cache[key] = out
    weights: dict[int, list[int]] = {}
    for flow, local, _ in model.steps:
        if flow.kind != kind:
            continue
        rows = flow.rows[local]
        if what == "weights" and id(flow) not in weights:
            weights[id(flow)] = _on_weights(flow, model.training.trained)
        col = np.asarray(flow.phase if what == "phase" else flow.line if what == "line"
                         else weights[id(flow)], dtype)
        if len(col) < len(rows):
            col = np.concatenate([col, np.full(len(rows) - len(col), -1, dtype)])
        has = rows >= 0
        out[rows[has]] = np.broadcast_to(col[:len(rows), None], rows.shape)[has]
    return out


def _layer_first(pairs: Pairs, sides: list[tuple[RunModel, dict[int, int], bool]],
                 wall: np.ndarray) -> None:
    """A layer's output is named before the unroled intermediates of its own line in the
    same step, in either run (`x = self.bn(x)`: batch norm's variance + epsilon differs
    where the output does, and the output is what the user knows): its wall time moves just
    before theirs. Intermediates of other lines keep their place (an unroled layer upstream
    still comes first, at its line)."""
    fwd = (pairs.quantity == Q_OTHER) | (pairs.quantity == Q_LAYER)
    firsts = np.full(len(pairs), np.inf)
    for model, n, is_a in sides:
        kinds = pairs.kind if is_a else pairs.kind_b
        rows = pairs.a_row if is_a else pairs.b_row
        for kind in (GRAPH, EAGER):
            sel = np.flatnonzero(fwd & (kinds == kind) & (pairs.step >= 0))
            if not len(sel):
                continue
            line = _node_rows(model, kind, n[kind], "line")[rows[sel]]
            phase = _node_rows(model, kind, n[kind], "phase")[rows[sel]]
            inner = (pairs.quantity[sel] == Q_OTHER) & (phase == FWD) & (line >= 0)
            layer = pairs.quantity[sel] == Q_LAYER
            if not inner.any() or not layer.any():
                continue
            # per (step, line): the earliest unroled intermediate's time (vectorized: a run
            # of a million op pairs is one sort, not a Python loop)
            key = pairs.step[sel] * (int(line.max()) + 2) + line
            order = np.lexsort((wall[sel][inner], key[inner]))
            keys, first_at = np.unique(key[inner][order], return_index=True)
            earliest = wall[sel][inner][order][first_at]
            at = np.searchsorted(keys, key[layer]).clip(0, len(keys) - 1)
            hit = keys[at] == key[layer]
            got = np.where(hit, earliest[at], np.inf)
            firsts[sel[layer]] = np.minimum(firsts[sel[layer]], got)
    move = np.flatnonzero(firsts < wall)
    wall[move] = np.nextafter(firsts[move], -np.inf)


def step_order(a: DebugLogdir, pairs: Pairs, model: RunModel,
               last: np.ndarray | None = None,
               run_b: tuple[DebugLogdir, RunModel] | None = None) -> np.ndarray:
    """Pair ids by training step (pairs outside every step last), then by what the quantity
    is (variables, layer outputs, loss, learning rate, gradients, updates — an op pair by
    the phase of its op in A), then by run A's wall time."""
    wall = np.empty(len(pairs))
    g, e = pairs.of_kind(GRAPH), pairs.of_kind(EAGER)
    wall[g] = np.asarray(a.traces.wall_time)[pairs.a_row[g]]
    wall[e] = np.asarray(a.executions.wall_time)[np.asarray(a.outputs.execution)[pairs.a_row[e]]]
    step = np.where(pairs.step >= 0, pairs.step, np.iinfo(np.int64).max)
    lut = np.array([_RANK[q] for q in range(len(_RANK))], np.int64)
    rank = lut[pairs.quantity]
    other = pairs.quantity == Q_OTHER
    for kind, n in ((GRAPH, len(a.traces)), (EAGER, len(a.outputs))):
        sel = np.flatnonzero(other & (pairs.kind == kind))
        if len(sel):
            phase = _node_rows(model, kind, n, "phase")[pairs.a_row[sel]]
            plut = np.array([_PHASE_RANK.get(k, _RANK[Q_OTHER]) for k in range(-1, 5)],
                            np.int64)
            rank[sel] = plut[phase.astype(np.int64) + 1]
    sides = [(model, {GRAPH: len(a.traces), EAGER: len(a.outputs)}, True)]
    if run_b is not None:  # run B and its model, whose lines count too
        b, mb = run_b
        sides.append((mb, {GRAPH: len(b.traces), EAGER: len(b.outputs)}, False))
    _layer_first(pairs, sides, wall)
    late = np.zeros(len(pairs), np.int8)
    if last is not None and len(last):
        late[last] = 1  # a variable only one run has: after every compared value
    return np.lexsort((wall, rank, step, late)).astype(np.int64)
