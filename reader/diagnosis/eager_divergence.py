"""Training that diverges, run eagerly: the divergence story (`reader.diagnosis.divergence`)
told from eager records, so the same program gives the same cause and the same line to fix
whether its step is eager, a tf.function, Keras' fit or a TF1 Session.run.

A traced op's earlier calls are its earlier traces; an eager op has no name, so "the same op"
is an execution of the same op type from the same stack (the same line of the same step
function, called again every step). The rest mirrors the graph's evidence:
- the weights: the op's eager inputs are followed back by tensor id (through eager ops only,
  MAX_DEPTH deep) to a ReadVariableOp; the variable's last write before that read must come
  after the first of those earlier executions — written between the steps (an optimizer's
  update), not only by its initializer;
- the learning rate: the update's value is a Mul (or RealDiv) of a variable read (through a
  Cast) whose last write is named — the optimizer's creation, for Keras' optimizers; with
  momentum, the value is the slot, whose own update holds that Mul;
- the data a bad batch would come in by: the tensors it depends on that no recorded op made
  (numpy arrays, tf.constant) or that an iterator handed out;
- FULL_TENSOR: the weights read now and at the earliest of those reads (`growth`).
"""

from __future__ import annotations

import numpy as np

from reader.diagnosis.data import ITERATOR_OPS
from reader.diagnosis.divergence import (
    GROWING,
    MAX_DEPTH,
    MIN_EARLIER,
    Divergence,
    batch_story,
    story,
)
from reader.diagnosis.growth import growth
from reader.diagnosis.index import DiagIndex, Health, Ref
from reader.diagnosis.places import Place, place_of_ref
from reader.diagnosis.rate_code import scheduled_by_user, written_rate
from reader.diagnosis.schedules import from_schedule, schedule_place
from reader.diagnosis.variables import READ_OPS, Write, is_write, write_place
from reader.diagnosis.walk import Walker
from reader.errors import ReaderError
from reader.index.logdir import DebugLogdir
from reader.index.schema import EAGER
from reader.modes import FULL_TENSOR

MAX_BACK = 1 << 16  # executions looked at backwards for earlier runs of the same op
MAX_SAME = 256  # of those, executions of the same op type whose records are read
MAX_NODES = 256  # eager ops visited upstream of the op
MAX_LR_OPS = 16  # eager ops visited from an update's value to its learning rate
_RATE_PATH = frozenset({"Mul", "RealDiv", "Sub", "AddV2", "Add", "Neg"})


def eager_divergence(walker: Walker, origin: Ref, op_type: str, out: Health,
                     inputs_finite: bool) -> Divergence | None:
    """The divergence story for an eager overflow, when the records support it (see above)."""
    idx = walker.idx
    if origin.kind != EAGER or op_type not in GROWING or not inputs_finite:
        return None
    if out.nan is None or not (out.pos_inf or out.neg_inf):
        return None
    if idx.exec_graph(origin.index) is not None:  # a tf.function call: not one op
        return None
    earlier, capped = _same_op_before(idx, origin.index)
    finite = [e for e in earlier if idx.is_bad(Ref(EAGER, e, origin.slot)) == 0]
    if len(finite) < MIN_EARLIER:
        return None
    reads, data = _upstream(walker, origin.index)
    for read in reads:
        w = walker.variable_write(read)
        if w is None or not is_write(w.op_type) or w.index is None or w.index <= min(finite):
            continue  # its initializer, or a write before the op ever ran
        weights = write_place(idx, w)
        seen = growth(idx, _first_and_now(idx, reads))  # FULL_TENSOR: did they grow?
        if seen is not None and not seen.grew:
            return Divergence(batch_story(op_type, out, seen, ", ".join(data)), None,
                              weights, "forward")
        lr, lr_said = _learning_rate(walker, w)
        here = place_of_ref(idx, origin).user_frame
        at = f" at {here.file.rsplit('/', 1)[-1]}:{here.line}" if here else ""
        wf = weights.user_frame
        w_at = f" at {wf.file.rsplit('/', 1)[-1]}:{wf.line}" if wf else ""
        names = ", ".join(data) if out.mode != FULL_TENSOR else ""
        text = story(
            op_type, out,
            f"the same {op_type}{at} was finite in {'at least ' if capped else ''}"
            f"{len(finite):,} earlier executions (the earlier steps)",
            f"it depends on a variable (read by eager #{read.index}) written between those "
            f"executions, every step ({w.op_type}{w_at})", names, lr,
            seen.said() if seen is not None else "", lr_said)
        return Divergence(text, lr if lr is not None else weights, weights)
    return None


def _same_op_before(idx: DiagIndex, e: int) -> tuple[list[int], bool]:
    """Earlier executions of execution `e`'s op type from the same stack (latest first), and
    whether the search stopped at a cap before the run's start."""
    L = idx.L
    try:
        stack = tuple(L.read_execution(e).stack_frame_ids)
    except ReaderError:
        return [], False
    types = L.executions.col("op_type")
    lo = max(0, e - MAX_BACK)
    same = np.flatnonzero(np.asarray(types[lo:e]) == int(types[e]))[::-1] + lo
    capped = lo > 0 or len(same) > MAX_SAME
    out = []
    for k in same[:MAX_SAME].tolist():
        try:
            if tuple(L.read_execution(k).stack_frame_ids) == stack:
                out.append(k)
        except ReaderError:
            continue
    return out, capped


def _first_and_now(idx: DiagIndex, reads: list[Ref]) -> list[tuple[str, Ref, Ref]]:
    """(name, its earliest run from the same stack, the read) for each variable read."""
    out = []
    for r in reads:
        before, _ = _same_op_before(idx, r.index)
        if before:
            out.append((f"ReadVariableOp, eager #{r.index}", Ref(EAGER, before[-1], 0), r))
    return out


def _upstream(walker: Walker, e: int) -> tuple[list[Ref], list[str]]:
    """The variable reads execution `e` depends on (eager ops only, nearest first), and the
    data it depends on: tensors no recorded op made, and iterator outputs, named."""
    idx, L = walker.idx, walker.L
    reads: list[Ref] = []
    outside: list[int] = []
    batches: list[str] = []
    frontier, seen = [e], {e}
    for _ in range(MAX_DEPTH):
        nxt: list[int] = []
        for cur in frontier:
            try:
                tids = L.read_execution(cur).input_tensor_ids
            except ReaderError:
                continue
            for tid in tids:
                ref = idx.eager_producer(int(tid), cur)
                if ref is None:
                    outside.append(int(tid))
                    continue
                if ref.index in seen or len(seen) >= MAX_NODES:
                    continue
                seen.add(ref.index)
                kind = L.op_type_of_execution(ref.index)
                if kind in READ_OPS:
                    reads.append(ref)
                elif kind in ITERATOR_OPS:
                    batches.append(f"{kind} batch (eager #{ref.index})")
                elif idx.exec_graph(ref.index) is None:
                    nxt.append(ref.index)
        frontier = nxt
    data = sorted(set(batches))[:2]
    if outside:
        made = sorted(set(outside))
        # tensor ids, never `#N`: everywhere else `#N` is an execution a user can go to
        shown = ", ".join(str(t) for t in made[:3]) + (", …" if len(made) > 3 else "")
        data.append(f"input tensor{'s' if len(made) > 1 else ''} made outside any recorded "
                    f"op (numpy arrays, tf.constant; tensor id{'s' if len(made) > 1 else ''} "
                    f"{shown})")
    return reads, data


def _learning_rate(walker: Walker, w: Write) -> tuple[Place | None, str | None]:
    """Where the learning rate an eager update multiplies the gradient by was last written,
    and, for a rate a Keras schedule computes, what to say of it (`schedules`).

    The update's value is a Mul (or RealDiv) of the gradient by a variable's read (through a
    Cast), or, with momentum, a read of the optimizer's slot (Keras' `w += m` after
    `m = 0.9·m − lr·g`): that slot's last write is followed to the Mul inside it (through
    Sub/Add/Neg, at most MAX_LR_OPS ops). Of the variables read by those Muls, the one last
    written earliest is the learning rate (set when the optimizer was made; a slot read
    there, `0.9·m`, was written the step before). A factor no variable read makes, made by
    a schedule's code, is a schedule's rate: where the schedule was made, when no variable
    was found."""
    idx, L = walker.idx, walker.L
    if w.kind != EAGER or w.index is None or w.value_tid is None:
        return None, None
    todo = [idx.eager_producer(w.value_tid, w.index)]
    best: Write | None = None
    scheduled = False
    for _ in range(MAX_LR_OPS):
        if not todo:
            break
        src = _through_casts(walker, todo.pop(0))
        if src is None:
            continue
        op = L.op_type_of_execution(src.index)
        if op in READ_OPS:  # a slot: what its last write wrote
            lw = walker.variable_write(src)
            if lw is not None and lw.kind == EAGER and lw.index is not None \
                    and lw.value_tid is not None:
                todo.append(idx.eager_producer(lw.value_tid, lw.index))
            continue
        if op not in _RATE_PATH:
            continue
        try:
            tids = L.read_execution(src.index).input_tensor_ids
        except ReaderError:
            continue
        ups = [idx.eager_producer(int(t), src.index) for t in tids]
        if op in ("Mul", "RealDiv"):
            for up in ups:
                read = _through_casts(walker, up)
                if read is None:
                    continue
                if L.op_type_of_execution(read.index) not in READ_OPS:
                    scheduled = scheduled or _by_schedule(L, read.index)
                    mine = scheduled_by_user(walker, place_of_ref(idx, read))
                    if mine is not None:  # a schedule class's __call__: the user's formula
                        return mine.place, mine.said
                    continue
                lw = walker.variable_write(read)
                if lw is not None and (lw.kind != EAGER or lw.index is not None) and (
                        best is None or (lw.index or 0) < (best.index or 0)):
                    best = lw
        else:
            todo.extend(ups)
    if best is not None:
        place = write_place(idx, best)
        code = written_rate(walker, place)  # a callback's or a helper's formula
        return (code.place, code.said) if code is not None else (place, None)
    sched = schedule_place(walker) if scheduled else None
    return (sched.place, sched.said) if sched is not None else (None, None)


def _by_schedule(L: DebugLogdir, e: int) -> bool:
    try:
        return from_schedule(L.stack(L.read_execution(e).stack_frame_ids))
    except ReaderError:
        return False


def _through_casts(walker: Walker, src: Ref | None) -> Ref | None:
    """`src`, or what it casts or copies (at most 4 Casts/Identities up)."""
    L, idx = walker.L, walker.idx
    for _ in range(4):
        if src is None or L.op_type_of_execution(src.index) not in ("Cast", "Identity"):
            return src
        try:
            up = tuple(L.read_execution(src.index).input_tensor_ids)
        except ReaderError:
            up = ()
        src = idx.eager_producer(int(up[0]), src.index) if up else None
    return src
