"""Which op of a graph in run A is which op of its paired graph in run B.

Three steps, per graph pair, all on ops (thousands), never on rows (millions):
1. **Names.** Same op name and op type. TensorFlow names ops `add`, `add_1`, … in creation
   order, so one inserted or removed `+` renames every later `add_k`: a name pair whose
   inputs come from ops paired *elsewhere* is a false friend and is dropped (repeated until
   stable, so a true pair downstream of a false one is kept). The rest must also keep creation
   order (longest increasing run), since the graph-building program is the same code path.
2. **Structure.** Between consecutive name pairs, the unpaired ops are aligned by op type in
   creation order (`seqalign`): inserted ops stay unmatched, a changed op (`Relu` → `Relu6`)
   pairs with its replacement. Graphs paired by structure skip step 1 entirely.
3. **Role.** An op still unpaired whose consumer is paired (a dropped `BiasAdd` feeding
   `Relu`) is paired with the tensor the other run's consumer reads in that input: that is
   where the data path changed, so a divergence is reported there and not one op later.
"""

from __future__ import annotations

import bisect
from collections.abc import Collection
from dataclasses import dataclass
from itertools import pairwise

import numpy as np

from reader import DebugLogdir
from reader.index.graphs import parse_tensor_name
from tfdbg_tui.core.compare.graphs import NAME, STRUCTURE, GraphPair, OpTable, Tokens
from tfdbg_tui.core.compare.seqalign import Budget, align

ROLE = 2


@dataclass
class TensorPairs:
    """Pairs of tensors (op output slots, numbered by `OpTable.tensor`) and how each paired."""

    a: list[int]
    b: list[int]
    how: list[int]

    def add(self, ta: int, tb: int, how: int) -> None:
        if ta >= 0 and tb >= 0:
            self.a.append(ta)
            self.b.append(tb)
            self.how.append(how)


class _Side:
    """One graph's ops: positions, inputs and consumers as op numbers."""

    def __init__(self, logdir: DebugLogdir, ops: OpTable, graph_id: str) -> None:
        self.ids = ops.by_graph.get(graph_id, [])
        self.pos = {op: k for k, op in enumerate(self.ids)}
        graph = logdir.graphs.graphs.get(graph_id)
        self.inputs: dict[int, list[tuple[int, int]]] = {}
        self.consumers: dict[int, list[tuple[int, int, int]]] = {}
        for op in self.ids:
            record = graph.ops.get(ops.keys[op][1]) if graph else None
            if record is None:
                continue
            ins = []
            for name in record.input_names:
                parsed = parse_tensor_name(name)
                if parsed is not None:
                    ins.append((ops.index.get((graph_id, parsed[0]), -1), parsed[1]))
            self.inputs[op] = ins
            self.consumers[op] = [(ops.index.get((graph_id, c), -1), k, s)
                                  for c, k, s in record.consumers]


def pair_ops(a: DebugLogdir, b: DebugLogdir, ops_a: OpTable, ops_b: OpTable,
             graph_pairs: list[GraphPair], tokens: Tokens, budget: Budget) -> TensorPairs:
    """Tensor pairs of every paired graph (see the module docstring for the rules)."""
    out = TensorPairs([], [], [])
    for gp in graph_pairs:
        sa, sb = _Side(a, ops_a, gp.a), _Side(b, ops_b, gp.b)
        pairs: dict[int, tuple[int, int]] = {}  # A op → (B op, how)
        if gp.how == NAME:
            for op_a, op_b in _name_anchors(sa, sb, ops_a, ops_b):
                pairs[op_a] = (op_b, NAME)
        _fill_gaps(sa, sb, ops_a, ops_b, pairs, tokens, budget,
                   f"graph {gp.name_a or '(Session graph)'}")
        _drop_unwitnessed(sa, sb, pairs)
        for op_a, (op_b, how) in pairs.items():
            for slot in range(min(ops_a.n_out[op_a], ops_b.n_out[op_b])):
                out.add(ops_a.tensor(op_a, slot), ops_b.tensor(op_b, slot), how)
        named = {k: v[0] for k, v in pairs.items() if v[1] == NAME}
        _roles(sa, sb, ops_a, ops_b, named, out, False, pairs.keys())
        _roles(sb, sa, ops_b, ops_a, {v: k for k, v in named.items()}, out, True,
               {v[0] for v in pairs.values()})
    return out


def _name_anchors(sa: _Side, sb: _Side, ops_a: OpTable,
                  ops_b: OpTable) -> list[tuple[int, int]]:
    b_by_name = {ops_b.keys[op][1]: op for op in sb.ids}
    cand: dict[int, int] = {}
    for op in sa.ids:
        other = b_by_name.get(ops_a.keys[op][1])
        if other is not None and ops_b.types[other] == ops_a.types[op]:
            cand[op] = other
    kept = dict(cand)
    for _ in range(4):  # false friends: inputs paired elsewhere; recheck against survivors
        now = {op: other for op, other in cand.items() if _consistent(op, other, kept, sa, sb)}
        if now.keys() == kept.keys():
            break
        kept = now
    ordered = sorted(kept.items(), key=lambda kv: sa.pos[kv[0]])
    keep = _increasing([sb.pos[other] for _, other in ordered])
    return [ordered[k] for k in keep]


def _consistent(op: int, other: int, pairs: dict[int, int], sa: _Side, sb: _Side) -> bool:
    ins_b = sb.inputs.get(other, [])
    for k, (src, slot) in enumerate(sa.inputs.get(op, [])):
        if k >= len(ins_b) or src < 0 or src not in pairs:
            continue
        if pairs[src] != ins_b[k][0] or slot != ins_b[k][1]:
            return False
    return True


def _increasing(values: list[int]) -> list[int]:
    """Indexes of a longest strictly increasing subsequence (patience sorting)."""
    tails: list[int] = []
    tail_at: list[int] = []
    back = [-1] * len(values)
    for i, v in enumerate(values):
        k = bisect.bisect_left(tails, v)
        if k == len(tails):
            tails.append(v)
            tail_at.append(i)
        else:
            tails[k], tail_at[k] = v, i
        back[i] = tail_at[k - 1] if k else -1
    out = []
    i = tail_at[-1] if tail_at else -1
    while i >= 0:
        out.append(i)
        i = back[i]
    return out[::-1]


def _fill_gaps(sa: _Side, sb: _Side, ops_a: OpTable, ops_b: OpTable,
               pairs: dict[int, tuple[int, int]], tokens: Tokens, budget: Budget,
               what: str) -> None:
    """Align the unpaired ops between consecutive anchors by op type (creation order)."""
    anchors = sorted((sa.pos[op], sb.pos[other]) for op, (other, _) in pairs.items())
    bounds = [(-1, -1), *anchors, (len(sa.ids), len(sb.ids))]
    for (pa, pb), (qa, qb) in pairwise(bounds):
        gap_a, gap_b = sa.ids[pa + 1:qa], sb.ids[pb + 1:qb]
        if not gap_a or not gap_b:
            continue
        ta = np.array([tokens(ops_a, op) for op in gap_a], np.int64)
        tb = np.array([tokens(ops_b, op) for op in gap_b], np.int64)
        if len(gap_a) == len(gap_b) == 1:
            pairs[gap_a[0]] = (gap_b[0], STRUCTURE)
            continue
        got = align(ta, tb, budget, what)
        for i, j in zip(got.a.tolist(), got.b.tolist(), strict=True):
            pairs[gap_a[i]] = (gap_b[j], STRUCTURE)


def _drop_unwitnessed(sa: _Side, sb: _Side, pairs: dict[int, tuple[int, int]]) -> None:
    """Drop structure pairs the dataflow argues against: one whose paired consumer reads
    something else in the other run, or an op without inputs (a `Const`, a `Placeholder`:
    the many alike ones align by accident) that no paired consumer confirms."""
    mapping = {k: v[0] for k, v in pairs.items()}
    drop = []
    for op, (other, how) in pairs.items():
        if how != STRUCTURE:
            continue
        support = against = False
        for consumer, k, _ in sa.consumers.get(op, []):
            partner = mapping.get(consumer)
            ins = sb.inputs.get(partner, []) if partner is not None else []
            if k < len(ins):
                if ins[k][0] == other:
                    support = True
                else:
                    against = True
        if not support and (against or not sa.inputs.get(op)):
            drop.append(op)
    for op in drop:
        del pairs[op]


def _roles(sa: _Side, sb: _Side, ops_a: OpTable, ops_b: OpTable, pairs: dict[int, int],
           out: TensorPairs, swapped: bool, paired: Collection[int]) -> None:
    """Unpaired ops of `sa` whose consumer is paired by name: pair with what that consumer
    reads in the other run (only name pairs are trusted to say what a role is)."""
    for op in sa.ids:
        if op in paired:
            continue
        done: set[int] = set()
        for consumer, k, slot in sa.consumers.get(op, []):
            other = pairs.get(consumer)
            if slot in done or other is None:
                continue
            ins = sb.inputs.get(other, [])
            if k < len(ins) and ins[k][0] >= 0:
                ta, tb = ops_a.tensor(op, slot), ops_b.tensor(ins[k][0], ins[k][1])
                out.add(*((tb, ta) if swapped else (ta, tb)), ROLE)
                done.add(slot)
