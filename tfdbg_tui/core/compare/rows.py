"""From paired tensors and paired executions to paired rows, vectorised.

Graph traces: a row is (tensor, occurrence): the k-th time op `MatMul` wrote output 0. Rows
pair when their tensors are paired (`opmatch`) and their occurrences are equal. A tensor can
sit in two pairs (an inserted op shares its input's partner), so rows are expanded per pair
before matching — almost always a no-op.

Eager outputs: executions have no names, so the two timelines are aligned as token streams
(op type, or the paired graph for a tf.function call) by `seqalign`; identical timelines take
the numpy fast path. Outputs of paired executions pair slot by slot.
"""

from __future__ import annotations

import numpy as np

from reader import DebugLogdir
from tfdbg_tui.core.compare.graphs import GraphPair, OpTable
from tfdbg_tui.core.compare.keys import match, occurrence
from tfdbg_tui.core.compare.opmatch import TensorPairs
from tfdbg_tui.core.compare.pairs import BY_NAME, BY_STRUCTURE
from tfdbg_tui.core.compare.seqalign import Budget, align

Rows = tuple[np.ndarray, np.ndarray, np.ndarray]  # rows of A, rows of B, how


def _kind_tensors(ops: OpTable) -> np.ndarray | None:
    """Per trace kind, its rows' tensor number (see `_row_tensors`; -1 also for a kind no row
    has); None when the traces have no kinds."""
    if ops.row_kind is None or ops.kind_op is None or ops.kind_slot is None:
        return None
    op = ops.kind_op
    has = op >= 0  # kinds no row has: -1, never looked up
    op = np.where(has, op, 0)
    slot = ops.kind_slot.astype(np.int64)
    n_out = np.diff(ops.first_tensor)[op]
    return np.where(has & (slot >= 0) & (slot < n_out), ops.first_tensor[op] + slot, -1)


def _row_tensors(logdir: DebugLogdir, ops: OpTable) -> np.ndarray:
    """Each trace row's tensor number (its op's first tensor + its slot), -1 for a slot past
    its op's outputs (unpaired). With kinds, worked out per kind and looked up once per row
    (a row's op and slot are its kind's): one row-sized array, not six."""
    per_kind = _kind_tensors(ops)
    if per_kind is not None:
        assert ops.row_kind is not None
        return per_kind[ops.row_kind]
    slot = logdir.traces.slot.astype(np.int64)
    n_out = np.diff(ops.first_tensor)[ops.row_op]  # a slot past its op's outputs: unpaired
    return np.where((slot >= 0) & (slot < n_out), ops.first_tensor[ops.row_op] + slot, -1)


def _expand(row_t: np.ndarray, pair_t: np.ndarray, n_tensors: int
            ) -> tuple[np.ndarray, np.ndarray]:
    """(row, pair id) for every pair each row's tensor belongs to."""
    order = np.argsort(pair_t, kind="stable")
    counts = np.bincount(pair_t, minlength=n_tensors)
    start = np.concatenate([[0], np.cumsum(counts)[:-1]])
    valid = row_t >= 0
    per_row = np.where(valid, counts[np.where(valid, row_t, 0)], 0)
    rows = np.repeat(np.arange(len(row_t), dtype=np.int64), per_row)
    within = np.arange(len(rows), dtype=np.int64) - np.repeat(np.cumsum(per_row) - per_row,
                                                             per_row)
    return rows, order[start[row_t[rows]] + within]


def graph_rows(a: DebugLogdir, b: DebugLogdir, ops_a: OpTable, ops_b: OpTable,
               tensors: TensorPairs) -> Rows:
    """Paired graph-trace rows (A rows, B rows, how each tensor pair was made)."""
    empty = np.zeros(0, np.int64)
    if not tensors.a or not len(a.traces) or not len(b.traces):
        return empty, empty, empty
    pa, pb = np.asarray(tensors.a, np.int64), np.asarray(tensors.b, np.int64)
    how = np.asarray(tensors.how, np.int8)
    same = _same_kinds(ops_a, ops_b, pa, pb, how)
    if same is not None:
        return same
    ta, tb = _row_tensors(a, ops_a), _row_tensors(b, ops_b)
    same = _same_sequence(ta, tb, pa, pb, how, ops_a.n_tensors)
    if same is not None:
        return same
    occ_a, occ_b = occurrence(ta), occurrence(tb)
    rows_a, pair_a = _expand(ta, pa, ops_a.n_tensors)
    rows_b, pair_b = _expand(tb, pb, ops_b.n_tensors)
    ia, ib = match(pair_a, occ_a[rows_a], pair_b, occ_b[rows_b])
    return rows_a[ia], rows_b[ib], how[pair_a[ia]]


def _same_sequence(ta: np.ndarray, tb: np.ndarray, pa: np.ndarray, pb: np.ndarray,
                   how: np.ndarray, n_tensors: int) -> Rows | None:
    """The fast path of two runs of one program: tensors pair one to one and B's rows are
    A's rows, tensor by tensor, in the same order — then row i pairs with row i (the
    occurrence keys would say the same, at the price of sorting millions of rows)."""
    if len(ta) != len(tb) or not len(ta) or (ta < 0).any():
        return None
    if np.bincount(pa).max() > 1 or np.bincount(pb).max() > 1:
        return None
    partner = np.full(n_tensors, -1, np.int64)
    partner[pa] = pb
    if not np.array_equal(partner[ta], tb):
        return None
    how_of = np.zeros(n_tensors, np.int8)
    how_of[pa] = how
    rows = np.arange(len(ta), dtype=np.int64)
    return rows, rows.copy(), how_of[ta]


def _same_kinds(ops_a: OpTable, ops_b: OpTable, pa: np.ndarray, pb: np.ndarray,
                how: np.ndarray) -> Rows | None:
    """`_same_sequence` decided over kinds, when both runs' rows have the same kinds in the
    same order (one program twice, indexed alike): row i's tensors pair exactly when each
    kind's tensor in A pairs with that kind's in B, so thousands of kinds are checked
    instead of millions of rows (and no row-sized tensor numbers are made). None when it
    cannot tell: `_same_sequence` then asks row by row."""
    ka, kb = ops_a.row_kind, ops_b.row_kind
    tka, tkb = _kind_tensors(ops_a), _kind_tensors(ops_b)
    if (ka is None or kb is None or tka is None or tkb is None or ops_a.kind_op is None
            or len(ka) != len(kb) or not len(ka) or len(tka) != len(tkb)
            or not np.array_equal(ka, kb)):
        return None
    used = ops_a.kind_op >= 0  # the kinds rows have (B's rows have the same kinds)
    if (tka[used] < 0).any():
        return None
    if np.bincount(pa).max() > 1 or np.bincount(pb).max() > 1:
        return None
    partner = np.full(ops_a.n_tensors, -1, np.int64)
    partner[pa] = pb
    if not np.array_equal(partner[tka[used]], tkb[used]):
        return None
    how_of = np.zeros(ops_a.n_tensors, np.int8)
    how_of[pa] = how
    rows = np.arange(len(ka), dtype=np.int64)
    return rows, rows.copy(), how_of[np.where(used, tka, 0)][ka]


def _timeline_tokens(logdir: DebugLogdir, graph_key: dict[str, str],
                     vocab: dict[str, int]) -> np.ndarray:
    """One int per execution: its op type, or for a tf.function call the (paired) graph."""
    e = logdir.executions
    width = len(logdir.strings) + 1
    kinds = logdir.execution_kinds()
    if kinds is not None and len(e):
        # an execution's op type and graph are its kind's: the distinct combos are found
        # over the (few) kinds some execution has, then looked up once per execution
        of_row = kinds.of_row
        combo = ((kinds.graph_id.astype(np.int64) + 1) * width
                 + kinds.op_type.astype(np.int64))
        used = np.bincount(of_row, minlength=len(combo)) > 0
        uniq = np.unique(combo[used])  # (sorted: the tokens are numbered as below)
        inverse = np.searchsorted(uniq, np.where(used, combo, uniq[0]))[of_row]
    else:
        combo = (e.graph_id.astype(np.int64) + 1) * width + e.op_type.astype(np.int64)
        uniq, inverse = np.unique(combo, return_inverse=True)
    lut = np.empty(len(uniq), np.int64)
    for k, u in enumerate(uniq.tolist()):
        gsid, tsid = u // width - 1, u % width
        if gsid >= 0:
            gid = logdir.strings[gsid]
            key = "fn:" + graph_key.get(gid, "?" + gid)
        else:
            key = "op:" + logdir.strings[tsid]
        lut[k] = vocab.setdefault(key, len(vocab))
    return lut[inverse] if len(e) else np.zeros(0, np.int64)


def eager_rows(a: DebugLogdir, b: DebugLogdir, graph_pairs: list[GraphPair],
               budget: Budget) -> Rows:
    """Paired eager output rows: timelines aligned, then outputs slot by slot."""
    empty = np.zeros(0, np.int64)
    if not len(a.outputs) or not len(b.outputs):
        return empty, empty, empty
    vocab: dict[str, int] = {}
    tok_a = _timeline_tokens(a, {gp.a: gp.b for gp in graph_pairs}, vocab)
    tok_b = _timeline_tokens(b, {gp.b: gp.b for gp in graph_pairs}, vocab)
    ea, eb = np.asarray(a.outputs.execution), np.asarray(b.outputs.execution)
    sa, sb = np.asarray(a.outputs.slot), np.asarray(b.outputs.slot)
    if (np.array_equal(tok_a, tok_b) and np.array_equal(ea, eb)
            and np.array_equal(sa, sb)):  # one program twice: the same timeline
        rows = np.arange(len(ea), dtype=np.int64)
        return rows, rows.copy(), np.full(len(ea), BY_NAME, np.int8)
    got = align(tok_a, tok_b, budget, "eager timeline")
    same_occ = occurrence(tok_a)[got.a] == occurrence(tok_b)[got.b]
    exec_how = np.where(got.same & same_occ, BY_NAME, BY_STRUCTURE).astype(np.int8)
    pair_of_a = np.full(len(tok_a), -1, np.int64)
    pair_of_b = np.full(len(tok_b), -1, np.int64)
    pair_of_a[got.a] = np.arange(len(got.a))
    pair_of_b[got.b] = np.arange(len(got.b))
    ea, eb, sa, sb = (x.astype(np.int64) for x in (ea, eb, sa, sb))
    ga, gb = pair_of_a[ea], pair_of_b[eb]
    width = int(max(sa.max(initial=0), sb.max(initial=0))) + 1
    ga = np.where((ga >= 0) & (sa >= 0), ga * width + sa, -1)
    gb = np.where((gb >= 0) & (sb >= 0), gb * width + sb, -1)
    ia, ib = match(ga, np.zeros(len(ga), np.int64), gb, np.zeros(len(gb), np.int64))
    return ia, ib, exec_how[pair_of_a[ea[ia]]]
