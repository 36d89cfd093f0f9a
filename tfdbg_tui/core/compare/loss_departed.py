"""The lines of a loss that differs: where the two runs' loss computations depart
(`lines.place`).

Why: a loss is shown, before the values are known, at the first op of the loss function on
the model's output (`contract.loss_node.loss_entry`). A loss written over several statements
(`true = tf.gather(logits, labels, batch_dims=1)`, then `tf.reduce_logsumexp(logits) - true`
without its axis on the next line) starts where nothing is wrong yet; the mistake is
wherever the values first part. With the values at hand, each run's loss computation — the
forward ops from the model's output to the loss, in order — is walked against the other's:

- where both runs write the loss alike (their op sequences mostly the same: `difflib`, as
  the schedules' chains are paired), op by op: the first aligned pair whose values differ
  departs — or, where a stretch of ops only one run computes lies before it (`reduce_max`
  taken for the true class's logit where the other sums `onehot * logits`), that stretch:
  the recipes part there, and nothing after it agrees again. A stretch the next aligned pair
  agrees after is an equivalent rewrite, passed over;
- else (one run calls a fused loss, `sparse_softmax_cross_entropy`, whose inside has no
  tensors), at the **per-example terms**: each run's last tensor of more than one element
  every path from the output to the loss passes through (the terms the batch reduction
  averages). Where they differ, the loss departs there or before it (what comes before
  cannot be compared with a fused op); where they agree, it departs at the reduction — the
  first op after them (`reduce_sum` where the other averages).

A departure on the prediction's own line before where the loss function starts
(`loss_entry`: `prediction = tf.exp(logits)`, an op the other run lacks) is shown at that
start, as before: what the prediction computes is the prediction's, not the loss's.

Nothing is moved where neither decides (a loss of several terms, `ce - β·entropy`, has no
per-example tensor of its own): the entry's line stays.
"""

from __future__ import annotations

from difflib import SequenceMatcher

from reader import ReaderError
from reader.index.frames import Frame
from reader.io.tensors import TensorValue
from tfdbg_tui.core.compare.contract import Q_LOSS, node_frames
from tfdbg_tui.core.compare.contract.dataflow import FORWARD, READS, Flow
from tfdbg_tui.core.compare.contract.loops import feeding
from tfdbg_tui.core.compare.contract.model import RunModel
from tfdbg_tui.core.compare.contract.tensors import SHAPE_ONLY
from tfdbg_tui.core.compare.pairs import DIFFERENT, R_NONE
from tfdbg_tui.core.compare.result import Comparison
from tfdbg_tui.core.compare.values import RecordReader, Tolerance, compare_values

_ALIKE = 0.75  # op sequences at least this alike (difflib's ratio) are aligned op by op
_MAX_OPS = 400  # a loss computation longer than this is not walked


class _Side:
    """One run's loss computation at one step: its nodes in forward order, their values."""

    def __init__(self, model: RunModel, reader: RecordReader, step: int) -> None:
        self.model, self.reader, self.step = model, reader, step
        self.flow, _, roles = model.steps[step]
        self.nodes: list[int] = []
        self.out = next((t[0] for _, t in reversed(roles.layers)
                         if _weighted(self.flow, t[0]) or _activation(self.flow, t[0])), -1)
        self.loss = roles.loss[0] if roles.loss is not None else -1
        self.entry = roles.loss_entry if roles.loss_entry is not None else -1
        if self.out >= 0 and self.loss > self.out:
            self.nodes = _computation(self.flow, self.out, self.loss)

    def on_out_line(self, node: int) -> bool:
        """Whether `node` is on the user line of the model's output."""
        line = self.flow.line
        return 0 <= max(node, self.out) < len(line) and line[node] == line[self.out]

    def size(self, node: int) -> int:
        """The node's element count from the run's signature table (-1: unknown)."""
        table = self.model.cache.get(("sig", id(self.flow)))
        if table is None or not 0 <= node < table.shape[0]:
            return -1
        return int(table[node, 0][2])

    def value(self, node: int) -> TensorValue | None:
        got = self.model.row(self.step, (node, 0))
        if got is None:
            return None
        try:
            return self.reader.tensor(*got)
        except (ReaderError, KeyError, ValueError, IndexError):
            return None


def _weighted(flow: Flow, node: int) -> bool:
    """Whether `node` reads a variable among its operands (through a cast or identity): a
    weighted layer's own output. The loss computation is taken from the last one, not from
    the last layer output, which may be an op inside the loss (a `where` in a logsumexp)."""
    for j, _ in flow.inputs[node] if 0 <= node < len(flow) else []:
        while 0 <= j < len(flow) and flow.op_type[j] in ("Identity", "Cast") \
                and flow.inputs[j]:
            j = flow.inputs[j][0][0]
        if 0 <= j < len(flow) and flow.op_type[j] in READS:
            return True
    return False


def _activation(flow: Flow, node: int) -> bool:
    """Whether `node` is a one-operand op of a weighted output (Dense(4, "tanh")'s tanh)."""
    ins = flow.inputs[node] if 0 <= node < len(flow) else []
    return len(ins) == 1 and _weighted(flow, ins[0][0])


def _computation(flow: Flow, out: int, loss: int) -> list[int]:
    """The forward nodes computed from the model's output `out` that the loss is computed
    from, the loss included, in forward order (shapes and constants left out)."""
    feeds = feeding(flow, loss)
    reach = {out}
    got = []
    for k in range(out + 1, loss + 1):
        if flow.phase[k] not in FORWARD or not feeds[k] or flow.op_type[k] in SHAPE_ONLY:
            continue
        if any(j in reach for j, _ in flow.inputs[k]):
            reach.add(k)
            got.append(k)
    return got if len(got) <= _MAX_OPS else []


def loss_departed(c: Comparison, p: int) -> tuple[list[Frame] | None, list[Frame] | None]:
    """Each side's stack holding the line where loss pair `p`'s computations depart (None:
    keep the loss's line); both None unless `p` is a loss that differs."""
    pairs = c.pairs
    if int(pairs.quantity[p]) != Q_LOSS or int(pairs.status[p]) != DIFFERENT:
        return None, None
    step = int(pairs.step[p])
    ma, mb = c.training.a, c.training.b
    if not (0 <= step < ma.n_steps and 0 <= step < mb.n_steps):
        return None, None
    a = _Side(ma, RecordReader(c.a), step)
    b = _Side(mb, RecordReader(c.b), step)
    if not a.nodes or not b.nodes:
        return None, None
    tol = c.tolerance.for_step(step)
    got = _aligned(a, b, tol) or _per_example(a, b, tol)
    if got is None:
        return None, None
    # an op on the prediction's own line before the loss's entry is the prediction's (an
    # `exp` of the logits): the loss departs at its start then
    na, nb = (side.entry if n is not None and n < side.entry and side.on_out_line(n) else n
              for n, side in ((got[0], a), (got[1], b)))
    return (node_frames(c.a, a.flow, na) or None if na is not None else None,
            node_frames(c.b, b.flow, nb) or None if nb is not None else None)


def _differ(a: _Side, na: int, b: _Side, nb: int, tol: Tolerance) -> bool | None:
    """Whether the two nodes' values differ (None: a value was not recorded)."""
    va, vb = a.value(na), b.value(nb)
    if va is None or vb is None:
        return None
    return compare_values(va, vb, tol).reason != R_NONE


def _aligned(a: _Side, b: _Side, tol: Tolerance) -> tuple[int | None, int | None] | None:
    """Where two loss computations written alike depart, op by op (see the module
    docstring); None where they are not alike or nothing aligned differs."""
    ta = [a.flow.op_type[n] for n in a.nodes]
    tb = [b.flow.op_type[n] for n in b.nodes]
    m = SequenceMatcher(None, ta, tb, autojunk=False)
    if m.ratio() < _ALIKE:
        return None
    pending: tuple[int | None, int | None] | None = None
    for tag, i1, i2, j1, j2 in m.get_opcodes():
        if tag != "equal":
            if pending is None:
                pending = (a.nodes[i1] if i1 < i2 else None, b.nodes[j1] if j1 < j2 else None)
            continue
        for i, j in zip(range(i1, i2), range(j1, j2), strict=True):
            differ = _differ(a, a.nodes[i], b, b.nodes[j], tol)
            if differ is None:
                continue
            if differ:
                here = (a.nodes[i], b.nodes[j])
                if pending is None:
                    return here
                return (pending[0] if pending[0] is not None else here[0],
                        pending[1] if pending[1] is not None else here[1])
            pending = None  # agreeing again: what lay before was an equivalent rewrite
    return pending


def _per_example(a: _Side, b: _Side, tol: Tolerance) -> tuple[int, int] | None:
    """Each side's per-example terms when their values differ, else the reduction after
    them (see the module docstring); None where a run has no per-example tensor."""
    pa, pb = _terms(a), _terms(b)
    if pa is None or pb is None:
        return None
    differ = _differ(a, pa, b, pb, tol)
    if differ is None:
        return None
    if differ:
        return pa, pb
    ra, rb = _after(a, pa), _after(b, pb)
    return (ra, rb) if ra is not None and rb is not None else None


def _terms(side: _Side) -> int | None:
    """The last node of more than one element that every path from the model's output to the
    loss passes through (the per-example terms), or None."""
    inside = set(side.nodes)
    for d in reversed(side.nodes[:-1]):
        if side.size(d) <= 1:
            continue
        reach = {side.out}
        for k in side.nodes:
            if k != d and any(j in reach for j, _ in side.flow.inputs[k] if j in inside
                              or j == side.out):
                reach.add(k)
        if side.loss not in reach:
            return d
    return None


def _after(side: _Side, node: int) -> int | None:
    """The first node of the loss computation reading `node` (the batch reduction)."""
    return next((k for k in side.nodes if k > node
                 and any(j == node for j, _ in side.flow.inputs[k])), None)


__all__ = ["loss_departed"]
