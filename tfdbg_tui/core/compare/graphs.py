"""Which graph of run A is which graph of run B, and one numbering of each run's ops.

Graph ids are random per run, so graphs pair by name (the k-th graph called `train_step` in A
with the k-th in B: a retraced function has several), then by name without TensorFlow's
numeric suffix (`while_body_57` / `while_body_61`), then — for a renamed function or a TF1
graph against a TF2 function — by how alike their op-type sequences are. Ops and graphs
number in the thousands, so this is plain Python; rows are never touched here.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from difflib import SequenceMatcher

import numpy as np

from reader import DebugLogdir
from reader.index.graphs import Graph

NAME, STRUCTURE = 0, 1
_SUFFIX = re.compile(r"_\d+$")
# op types that do the same arithmetic under different names (TF1 `x + b` is AddV2 where
# Keras writes BiasAdd): one token each for the sequence alignment
_FAMILY = {"AddV2": "Add", "BiasAdd": "Add", "RealDiv": "Div", "DivNoNan": "Div",
           "TrueDiv": "Div", "BatchMatMulV2": "MatMul", "BatchMatMulV3": "MatMul",
           "Identity": "ReadVariableOp"}
_SIMILAR = 0.3  # least difflib ratio for two differently named graphs to pair
_RATIO_OPS = 3000  # ops per graph looked at when judging that


_FLOATS = frozenset({1, 2, 14, 19})  # one class: mixed precision must still align
# Outputs of one op numbered for pairing. The count comes from the file (an op record's
# num_outputs, a trace's output_slot): a claim of 2**31 would number (and pair, slot by slot)
# billions of tensors. Past this many, as the reader does for executions, it is not believed;
# traces of slots past it stay unpaired.
MAX_OUTPUTS = 4096


class Tokens:
    """An op's structural identity as a small int shared by both runs: its op type (families
    collapsed) and, when both runs record shapes, the dtype class, rank and size of its first
    traced output — so a `Const` holding a shape does not align with a float scalar."""

    def __init__(self, use_shape: bool) -> None:
        self.use_shape = use_shape
        self._ids: dict[tuple[str, int, int, int], int] = {}

    def __call__(self, ops: OpTable, op: int) -> int:
        family = _FAMILY.get(ops.types[op], ops.types[op])
        dtype, rank, size = ops.shape[op] if self.use_shape else (-1, -1, -1)
        key = (family, 1 if dtype in _FLOATS else dtype, rank, size)
        return self._ids.setdefault(key, len(self._ids))


@dataclass
class OpTable:
    """One run's ops numbered 0..n-1, graph by graph in creation order, and their tensors.

    Ops seen in traces but missing from `.graphs` (a damaged file) are added with what the
    trace knows, so their rows still align by name.
    """

    keys: list[tuple[str, str]] = field(default_factory=list)  # (graph id, op name)
    types: list[str] = field(default_factory=list)
    index: dict[tuple[str, str], int] = field(default_factory=dict)
    by_graph: dict[str, list[int]] = field(default_factory=lambda: defaultdict(list))
    n_out: list[int] = field(default_factory=list)
    first_tensor: np.ndarray = field(default_factory=lambda: np.zeros(1, np.int64))
    row_op: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))  # per trace
    # (dtype, rank, size) of each op's first trace, -1s when it has none (see `Tokens`)
    shape: list[tuple[int, int, int]] = field(default_factory=list)
    # when the traces have kinds (`reader.index.kinds`): each row's kind, and per kind its op
    # (-1: a kind no row has) and output slot — per-row work done once per kind (`rows`)
    row_kind: np.ndarray | None = None
    kind_op: np.ndarray | None = None
    kind_slot: np.ndarray | None = None

    def add(self, graph_id: str, name: str, op_type: str, n_out: int) -> int:
        i = self.index.get((graph_id, name))
        if i is None:
            i = len(self.keys)
            self.keys.append((graph_id, name))
            self.types.append(op_type)
            self.index[(graph_id, name)] = i
            self.by_graph[graph_id].append(i)
            self.n_out.append(min(max(n_out, 1), MAX_OUTPUTS))
        return i

    @property
    def n_tensors(self) -> int:
        return int(self.first_tensor[-1])

    def tensor(self, op: int, slot: int) -> int:
        return int(self.first_tensor[op]) + slot if 0 <= slot < self.n_out[op] else -1


_DENSE = 1 << 24  # (graph, op name) grid small enough to count in place of sorting


def _combos(graph: np.ndarray, name: np.ndarray, width: int) -> tuple[np.ndarray, np.ndarray]:
    """The distinct (graph, op name) string-id pairs as `graph·width + name`, and which one
    each row has. A few graphs × the string table is a small grid, so the rows are counted
    into it in O(n) rather than sorted."""
    graphs = np.unique(graph) if len(graph) < 4096 else np.flatnonzero(
        np.bincount(graph.astype(np.int64) + 1, minlength=width + 1)) - 1
    if len(graphs) * width > _DENSE or (len(graphs) and graphs[0] < 0):
        combo = graph.astype(np.int64) * width + name
        return np.unique(combo, return_inverse=True)
    dense_of = np.zeros(int(graphs.max(initial=0)) + 1, np.int64)
    dense_of[graphs] = np.arange(len(graphs))
    cell = dense_of[graph] * width + name
    present = np.flatnonzero(np.bincount(cell, minlength=len(graphs) * width))
    index = np.zeros(len(graphs) * width, np.int64)
    index[present] = np.arange(len(present))
    uniq = graphs[present // width].astype(np.int64) * width + present % width
    return uniq, index[cell]


TraceOps = tuple[np.ndarray, np.ndarray, Callable[[np.ndarray], np.ndarray],
                 Callable[[np.ndarray], np.ndarray] | None]


def _trace_ops(logdir: DebugLogdir, width: int) -> TraceOps:
    """The distinct (graph, op name) of the trace rows (as `_combos` numbers them), the first
    row of each, a function mapping a per-combo array to one per row, and (with kinds) one
    mapping it to one per kind (-1 for a kind no row has), else None.

    A row's graph and op name are fields of its kind (`reader.index.kinds`): thousands of
    kinds for millions of rows, so the combos are found over the kinds and only two
    row-sized arrays are made (where each kind first occurs, and the answer)."""
    t = logdir.traces
    n = len(t)
    kinds = logdir.trace_kinds()
    if kinds is None or not n:
        uniq, inverse = _combos(np.asarray(t.graph_id), np.asarray(t.op_name), width)
        first_row = np.zeros(len(uniq), np.int64)
        first_row[inverse[::-1]] = np.arange(n - 1, -1, -1)
        return uniq, first_row, lambda per_combo: per_combo[inverse], None
    kind = kinds.of_row
    n_kinds = len(kinds.graph_id)
    used = np.flatnonzero(np.bincount(kind, minlength=n_kinds))  # kinds some row has
    uniq_all, combo_of_kind = _combos(kinds.graph_id[used], kinds.op_name[used], width)
    first_of_kind = np.full(n_kinds, n, np.int64)
    first_of_kind[kind[::-1]] = np.arange(n - 1, -1, -1)
    first_row = np.full(len(uniq_all), n, np.int64)
    np.minimum.at(first_row, combo_of_kind, first_of_kind[used])
    combo = np.zeros(n_kinds, np.int64)
    combo[used] = combo_of_kind
    unused = np.ones(n_kinds, bool)
    unused[used] = False

    def per_kind(per_combo: np.ndarray) -> np.ndarray:
        return np.where(unused, -1, per_combo[combo])

    return uniq_all, first_row, lambda per_combo: per_combo[combo][kind], per_kind


def op_table(logdir: DebugLogdir) -> OpTable:
    """Number the run's ops and map every graph trace to its op (vectorised over rows)."""
    table = OpTable()
    for gid, graph in logdir.graphs.graphs.items():
        for name, op in graph.ops.items():
            table.add(gid, name, op.op_type, op.num_outputs)
    t = logdir.traces
    n = len(t)
    width = len(logdir.strings) + 1
    uniq, first_row, op_of, op_of_kind = _trace_ops(logdir, width)
    lut = np.empty(len(uniq), np.int64)
    for k, u in enumerate(uniq.tolist()):
        gid, name = logdir.strings[u // width], logdir.strings[u % width]
        lut[k] = table.add(gid, name, logdir.op_type_of_trace(int(first_row[k])), 1)
    table.row_op = op_of(lut) if n else np.zeros(0, np.int64)
    kinds = logdir.trace_kinds() if op_of_kind is not None else None
    if kinds is not None and kinds.slot is not None:  # (a row's slot is its kind's)
        assert op_of_kind is not None
        table.row_kind = kinds.of_row
        table.kind_op = op_of_kind(lut)
        table.kind_slot = kinds.slot
    table.shape = [(-1, -1, -1)] * len(table.keys)
    if n:
        health = t.health_columns(first_row) if hasattr(t, "health_columns") else {
            c: getattr(t, c)[first_row] for c in ("dtype", "rank", "size")}
        cols = (health["dtype"], health["rank"], health["size"])
        for op, d, r, z in zip(lut.tolist(), *(c.tolist() for c in cols), strict=True):
            if table.shape[op] == (-1, -1, -1):
                table.shape[op] = (d, r, z)
    most = np.zeros(len(table.keys), np.int64)
    if table.kind_op is not None and table.kind_slot is not None:  # over kinds, not rows
        op_k, slot_k = table.kind_op, table.kind_slot
        multi = np.flatnonzero((op_k >= 0) & (slot_k > 0) & (slot_k < MAX_OUTPUTS))
        op_multi = op_k[multi]
    else:
        slot_k = np.asarray(t.slot)
        multi = np.flatnonzero((slot_k > 0) & (slot_k < MAX_OUTPUTS))  # few: multi-output
        op_multi = table.row_op[multi]
    if len(multi):
        np.maximum.at(most, op_multi, slot_k[multi].astype(np.int64) + 1)
    table.n_out = [max(k, int(m)) for k, m in zip(table.n_out, most.tolist(), strict=True)]
    table.first_tensor = np.concatenate([[0], np.cumsum(table.n_out)]).astype(np.int64)
    return table


@dataclass(frozen=True)
class GraphPair:
    a: str  # graph id in run A
    b: str
    how: int  # NAME or STRUCTURE
    name_a: str
    name_b: str


def _graphs(logdir: DebugLogdir, ops: OpTable) -> list[tuple[str, Graph]]:
    """Graphs that hold ops, in order of appearance."""
    return [(gid, g) for gid, g in logdir.graphs.graphs.items() if ops.by_graph.get(gid)]


def pair_graphs(a: DebugLogdir, b: DebugLogdir, ops_a: OpTable, ops_b: OpTable,
                tokens: Tokens) -> list[GraphPair]:
    """Pair the graphs of two runs: by name, by name less its numeric suffix, by structure."""
    left, right = _graphs(a, ops_a), _graphs(b, ops_b)
    pairs: list[GraphPair] = []
    for key in (lambda g: g.name, lambda g: _SUFFIX.sub("", g.name)):
        queues: dict[str, list[tuple[str, Graph]]] = defaultdict(list)
        for gid, g in right:
            queues[key(g)].append((gid, g))
        rest = []
        for gid, g in left:
            q = queues.get(key(g))
            if q:
                bid, bg = q.pop(0)
                pairs.append(GraphPair(gid, bid, NAME, g.name, bg.name))
            else:
                rest.append((gid, g))
        taken = {p.b for p in pairs}
        left, right = rest, [(gid, g) for gid, g in right if gid not in taken]
    pairs.extend(_by_structure(left, right, ops_a, ops_b, tokens))
    return pairs


def _by_structure(left: list[tuple[str, Graph]], right: list[tuple[str, Graph]],
                  ops_a: OpTable, ops_b: OpTable, tokens: Tokens) -> list[GraphPair]:
    """Greedy: the most alike pair of leftover graphs first, while alike enough."""
    if not left or not right:
        return []
    seq_a = {gid: [tokens(ops_a, i) for i in ops_a.by_graph[gid][:_RATIO_OPS]]
             for gid, _ in left}
    seq_b = {gid: [tokens(ops_b, i) for i in ops_b.by_graph[gid][:_RATIO_OPS]]
             for gid, _ in right}
    scored = []
    for ga, g in left:
        for gb, h in right:
            m = SequenceMatcher(None, seq_a[ga], seq_b[gb], autojunk=False)
            if m.real_quick_ratio() >= _SIMILAR and m.quick_ratio() >= _SIMILAR:
                ratio = m.ratio()
                if ratio >= _SIMILAR:
                    scored.append((-ratio, ga, gb, g.name, h.name))
    scored.sort()
    used_a: set[str] = set()
    used_b: set[str] = set()
    out = []
    for _, ga, gb, na, nb in scored:
        if ga not in used_a and gb not in used_b:
            used_a.add(ga)
            used_b.add(gb)
            out.append(GraphPair(ga, gb, STRUCTURE, na, nb))
    return out
