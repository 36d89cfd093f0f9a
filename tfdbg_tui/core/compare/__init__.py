"""Compare two runs and find the first tensor where they diverge (`tfdbg-tui diff A B`).

Textual- and Rich-free, on the reader's queries and columns only. The steps:
1. `graphs` — pair the graphs (by name, by name less its numeric suffix, by structure) and
   number each run's ops and tensors;
2. `opmatch` — pair the ops of each graph pair (by name with a dataflow sanity check, then by
   op-type sequence alignment, then by role), giving tensor pairs;
3. `rows` — pair the rows: graph traces by (tensor pair, occurrence), eager outputs by aligning
   the two timelines; vectorised, so a million rows cost a few numpy sorts;
4. `checks` then `values` — decide equal or different per pair on what both runs recorded
   (health columns vectorised; FULL_TENSOR values and SHAPE dimensions from the records);
5. `result.Comparison` — counts, the first divergence in run A's order, summaries, and
   per-row status arrays for the TUI.
Beside steps 2–3, when both runs train, the `contract` package (its stages read top to
bottom) finds their training steps (a `Session.run`, an eager `train_step`, a tf.function or
`fit` step) and pairs what each tensor *is* in its step — variables as the step reads them,
layer outputs, loss and penalties, gradients raw and applied, learning rate, updates, state —
across forms (a TF1 graph against TF2 eager ops), keeping the op pairs that do not contradict
them; `verdict` says equivalent only when every step's loss, gradients and updates were
compared.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np

from reader import EAGER, GRAPH, DebugLogdir, ReaderError
from reader.modes import FULL_HEALTH, FULL_TENSOR, SHAPE
from tfdbg_tui.core.compare.alike import same_at_step0
from tfdbg_tui.core.compare.checks import judge, take
from tfdbg_tui.core.compare.contract import (
    Q_LAYER,
    Q_LOSS,
    Q_OTHER,
    QUANTITIES,
    Mapping,
    RunModel,
    StepPairs,
    merge,
    model_run,
    pair_steps,
    read_map,
    step_order,
)
from tfdbg_tui.core.compare.contract import Training as RunTraining
from tfdbg_tui.core.compare.derived_state import derived_pairs, judge_derived
from tfdbg_tui.core.compare.explain import Detail, explain
from tfdbg_tui.core.compare.graphs import GraphPair, OpTable, Tokens, op_table, pair_graphs
from tfdbg_tui.core.compare.keyed import by_id_pairs, judge_by_id
from tfdbg_tui.core.compare.opmatch import pair_ops
from tfdbg_tui.core.compare.pairs import (
    BY_NAME,
    DIFFERENT,
    EQUAL,
    HOW_NAMES,
    R_MISSING,
    REASON_NAMES,
    SKIPPED,
    UNMATCHED,
    Pairs,
)
from tfdbg_tui.core.compare.rates import infer_rates, judge_rates, rate_pairs
from tfdbg_tui.core.compare.result import Comparison, TensorGroup, Training
from tfdbg_tui.core.compare.rows import eager_rows, graph_rows
from tfdbg_tui.core.compare.seqalign import DEFAULT_BUDGET, Budget
from tfdbg_tui.core.compare.values import Outcome, RecordReader, Tolerance, compare_records

__all__ = [
    "BY_NAME",
    "DIFFERENT",
    "EQUAL",
    "HOW_NAMES",
    "QUANTITIES",
    "REASON_NAMES",
    "SKIPPED",
    "UNMATCHED",
    "Comparison",
    "Detail",
    "GraphPair",
    "Mapping",
    "Outcome",
    "RecordReader",
    "TensorGroup",
    "Tolerance",
    "compare",
    "compare_records",
    "explain",
    "read_map",
]


_SHAPED = frozenset({FULL_HEALTH, SHAPE, FULL_TENSOR})  # modes recording dtype, rank, size


def _timeline_order(logdir: DebugLogdir, a_row: np.ndarray, n_graph: int) -> np.ndarray:
    """Pair ids by run A's wall time, the first `n_graph` pairs graph traces and the rest
    eager outputs (as `compare` builds them); ties keep the pairs' own order, which is
    graph before eager and then run A's file order (both row builders return pairs so)."""
    wall = np.empty(len(a_row))
    wall[:n_graph] = take(logdir.traces.wall_time, a_row[:n_graph])
    wall[n_graph:] = take(logdir.executions.wall_time,
                          take(logdir.outputs.execution, a_row[n_graph:]))
    return np.argsort(wall, kind="stable")


# TensorFlow's DataType numbers of floating and complex tensors (values, not operands)
_VALUED = np.zeros(128, bool)
_VALUED[[1, 2, 8, 14, 18, 19]] = True


def _valued(logdir: DebugLogdir, ops: OpTable, kind: np.ndarray, rows: np.ndarray
            ) -> np.ndarray:
    """Per pair, whether its tensor on this side holds values (a floating or complex dtype,
    or one not known); False for integer, boolean and string tensors."""
    out = np.ones(len(rows), bool)
    g = np.flatnonzero(kind == GRAPH)
    if len(g) and len(ops.shape):
        dtype = np.array([s[0] for s in ops.shape], np.int64)[ops.row_op[rows[g]]]
        out[g] = (dtype < 0) | _VALUED[dtype.clip(0, 127)]
    e = np.flatnonzero(kind == EAGER)
    if len(e):
        dtype = np.asarray(logdir.outputs.dtype, np.int64)[rows[e]]
        out[e] = (dtype <= 0) | _VALUED[dtype.clip(0, 127)]
    return out


def _constant(ops: OpTable, kind: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Per pair, whether its tensor on this side is a graph's `Const`."""
    out = np.zeros(len(rows), bool)
    g = np.flatnonzero(kind == GRAPH)
    if len(g) and len(ops.types):
        const = np.array([t == "Const" for t in ops.types], bool)
        out[g] = const[ops.row_op[rows[g]]]
    return out


def _model(logdir: DebugLogdir, ops: OpTable, side: str) -> RunModel:
    """The run's training steps; a damaged file (a graph that contradicts itself) leaves the
    run without steps — compared op by op — and says why, in one line."""
    try:
        return model_run(logdir, ops)
    except (ReaderError, ValueError, IndexError, KeyError) as exc:
        empty = RunModel(RunTraining([], 0, set()), [], {})
        empty.training.notes.append(f"{side}: training steps not modelled: {exc!r}"[:300])
        return empty


def compare(a: DebugLogdir, b: DebugLogdir, tolerance: Tolerance | None = None,
            budget_tokens: int = DEFAULT_BUDGET, mapping: Mapping | None = None) -> Comparison:
    """Align run A with run B and judge every aligned pair of tensors."""
    tol = tolerance or Tolerance()
    budget = Budget(budget_tokens, budget_tokens)
    # one side's tables and training steps on a second thread: the work is numpy over
    # millions of rows (which releases the GIL), and a diff has a second core once both
    # runs are read
    with ThreadPoolExecutor(1) as pool:
        f_ops = pool.submit(op_table, a)
        ops_b = op_table(b)
        ops_a = f_ops.result()
        f_models = pool.submit(lambda: (_model(a, ops_a, "A"), _model(b, ops_b, "B")))
        tokens = Tokens(bool(a.modes | b.modes) and (a.modes | b.modes) <= _SHAPED)
        graph_pairs = pair_graphs(a, b, ops_a, ops_b, tokens)
        tensors = pair_ops(a, b, ops_a, ops_b, graph_pairs, tokens, budget)
        ga, gb, ghow = graph_rows(a, b, ops_a, ops_b, tensors)
        ea, eb, ehow = eager_rows(a, b, graph_pairs, budget)
        ma, mb = f_models.result()
    kind = np.concatenate([np.full(len(ga), GRAPH, np.int8), np.full(len(ea), EAGER, np.int8)])
    a_row, b_row = np.concatenate([ga, ea]), np.concatenate([gb, eb])
    how = np.concatenate([ghow, ehow]).astype(np.int8, copy=False)
    sp = (pair_steps(ma, mb, mapping, same_at_step0(a, b, ma, mb, tol))
          if ma.n_steps and mb.n_steps else None)
    if sp is not None:
        infer_rates(sp, a, b, ma, mb)  # a Python number's rate: its update ÷ its gradient
        # integer and boolean tensors (shape, index and axis operands: a reshape's [-1, 36]
        # against Flatten's [8, 36]) never decide a verdict on their own when the runs
        # train: what they shape is compared where it has a role
        keep = ((_valued(a, ops_a, kind, a_row) & _valued(b, ops_b, kind, b_row)
                 # two constants (an epsilon, a momentum written into the graph) are
                 # hyper-parameters: what they change is compared where it has a role
                 & ~(_constant(ops_a, kind, a_row) & _constant(ops_b, kind, b_row)))
                | (how == BY_NAME))  # the same program twice: its operands are its own
        kind, a_row, b_row, how = kind[keep], a_row[keep], b_row[keep], how[keep]
        pairs = merge(a, b, kind, a_row, b_row, how, sp, ma, mb)
        # a variable one run lacks is a divergence, but the first *value* that differs
        # (the layer output the missing bias changes) is the one to show when there is one
        lacking = len(pairs) - len(sp.row_a) + np.asarray(sp.lacking, np.int64)
        pairs.order = step_order(a, pairs, ma, last=lacking, run_b=(b, mb))
    else:
        pairs = Pairs.build(kind, a_row, b_row, how, order=_timeline_order(a, a_row, len(ga)))
    need = judge(a, b, pairs, tol.rtol)
    if sp is not None and sp.rates:  # judged on their two scalars, not on their rows
        need[rate_pairs(pairs, sp)] = False
    if sp is not None and sp.derived:  # a value against a value before ± an amount
        need[derived_pairs(pairs, sp)] = False
    if sp is not None and sp.by_id:  # an embedding's rows by id, not row against row
        need[by_id_pairs(pairs, sp)] = False
    notes = list(dict.fromkeys(budget.notes + ma.training.notes + mb.training.notes))
    todo = pairs.order[need[pairs.order]] if need.any() else np.zeros(0, np.int64)
    if len(todo):
        from tfdbg_tui.core.compare.values import record_checks

        said: list[str] = []
        off = len(pairs) - len(sp.row_a) if sp is not None else 0
        relaid = {off + i: alt for i, alt in sp.relaid.items()} if sp is not None else None
        record_checks(a, b, pairs, todo, tol, said.append, relaid)
        notes += _once(said)
    if sp is not None and sp.rates:
        judge_rates(pairs, sp, tol)
    if sp is not None and sp.derived:
        said_derived: list[str] = []
        judge_derived(a, b, pairs, sp, tol, said_derived.append)
        notes += _once(said_derived)
    if sp is not None and sp.by_id:
        said_by_id: list[str] = []
        judge_by_id(a, b, pairs, sp, tol, said_by_id.append)
        notes += _once(said_by_id)
    if sp is not None and (sp.lacking or sp.one_sided or sp.alone):  # a variable only one
        # run has or trains, state only one run keeps: a divergence whatever the values
        at = len(pairs) - len(sp.row_a) + np.asarray(sp.lacking + sp.one_sided + sp.alone,
                                                     np.int64)
        pairs.status[at], pairs.reason[at] = DIFFERENT, R_MISSING
    formulation = _formulation(pairs, sp, notes) if sp is not None else None
    if sp is not None and formulation is None:
        formulation = _washed_out(pairs, notes)
    out = Comparison(a, b, tol, pairs, graph_pairs, ops_a, ops_b, notes,
                     training=Training(ma, mb, sp))
    if formulation is not None:
        out.formulation = formulation
    return out


def _once(said: list[str]) -> list[str]:
    """The values' notes, each once, in order: one layer laid out another way is said for
    every step it was not compared in (how many times, not the line again)."""
    from collections import Counter

    times = Counter(said)
    return [n if times[n] == 1 else f"{n} ({times[n]} times)" for n in times]


def _washed_out(pairs: Pairs, notes: list[str]) -> np.ndarray | None:
    """Layer outputs that differ at a step whose loss was compared and agrees: a forward
    difference that does not reach the loss of its own step is not where the runs part (one
    run's intermediate taken for a layer's output — `gamma * (h - mean)` of a batch norm
    written by hand against Keras' `x * inv` — while the layer's real output and everything
    after it agree). The first divergence is then looked for after them; a mistake in a layer
    changes the loss it feeds. Only where the loss was compared by value."""
    layer = np.flatnonzero((pairs.status == DIFFERENT) & (pairs.quantity == Q_LAYER))
    if not len(layer):
        return None
    loss = pairs.quantity == Q_LOSS
    # agreeing on values (FULL_TENSOR on both sides): equal sign counts of a health mode
    # say nothing of a loss that moved
    by_value = (pairs.status == EQUAL) & ~np.isnan(pairs.max_abs)
    agree = {int(s) for s in np.unique(pairs.step[loss & by_value])}
    agree -= {int(s) for s in np.unique(pairs.step[loss & (pairs.status == DIFFERENT)])}
    out = layer[np.isin(pairs.step[layer], np.fromiter(agree, np.int64, len(agree)))]
    if not len(out):
        return None
    steps = sorted({int(s) for s in pairs.step[out]})
    notes.append(f"{len(out):,} layer output(s) differ beyond the tolerance at step(s) "
                 f"{', '.join(map(str, steps[:8]))}{'…' if len(steps) > 8 else ''} while that "
                 "step's loss agrees: the difference does not reach the loss (an "
                 "intermediate of a layer computed in other ops taken for its output), so "
                 "they decide nothing")
    return out


def _formulation(pairs: Pairs, sp: StepPairs, notes: list[str]) -> np.ndarray | None:
    """The differing op pairs that decide nothing: when every difference is between two
    tensors without a role in the step (`other`: one run writes a layer in other ops — a
    layer norm by hand against Keras') while every variable paired and every step's loss,
    gradients and updates were compared and agree, the two trainings are the same; the
    intermediates are listed in a note, not made the divergence."""
    bad = np.flatnonzero(pairs.status == DIFFERENT)
    # "every gradient and every update agree" is said only where each was compared: a
    # gradient not recorded or without a partner (`sp.missing`) leaves it unknown
    if (not len(bad) or sp.lacking or sp.unpaired_a or sp.unpaired_b or not sp.required
            or sp.missing):
        return None
    layer = pairs.quantity[bad] == Q_LAYER
    if not np.all((pairs.quantity[bad] == Q_OTHER) | layer):
        return None
    off = len(pairs) - len(sp.row_a)
    required = [off + p for step in sp.required for p in step]
    if not required or not np.all(pairs.status[np.asarray(required, np.int64)] == EQUAL):
        return None
    if layer.any():  # a layer computed in other ops (a group or batch norm by hand against
        # Keras'): another intermediate taken for its output, or its rounding — nothing of it
        # that differs reaches the loss, the gradients or the updates
        notes.append(f"{int(layer.sum()):,} layer output(s) differ beyond the tolerance while "
                     "the loss, every gradient and every update agree at every step: the "
                     "layer is computed in other ops (another intermediate taken for its "
                     "output, or its rounding), so they decide nothing")
    if not layer.all():
        notes.append(f"{int((~layer).sum()):,} pairs of intermediate tensors without a role "
                     "in the step differ (the runs compute something in other ops); the "
                     "loss, every gradient and every update agree at every step, so they "
                     "decide nothing")
    return bad

