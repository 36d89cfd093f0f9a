"""An eager op that read a tf.Variable through a value no recorded op made: the variable's
last recorded write is what it read.

TensorFlow 2.21 records no ReadVariableOp when an eager op is handed a variable itself and
converts it on the fast path (`x * w`, `x - w`, `tf.square(w)`, `tf.reduce_sum(w)`;
`tf.matmul(x, w)` and `w + b` convert in Python and do record it): the op's input is a tensor
no recorded op made. After a bad step wrote NaN into w, the next step's `x * w` holds NaN that
none of its recorded inputs held, and the walk stopped there: an incident of its own for each
later step ('inputs not recorded'), where the user has one bug, the step that wrote the NaN.

What the record does say: the variable's writes (AssignVariableOp, AssignSub/AddVariableOp,
a scatter, a fused ResourceApply*), eager executions whose first input is the variable's
handle, with the value they wrote; and tensor ids come from one counter, in the order
tensors are made. So the op C is taken to have read the variable H only when all of this
holds (otherwise C stays an origin whose inputs were not recorded, as before):
- C is an eager op (not a tf.function call, not a variable read or write) holding NaN/∞,
  every recorded input of C is finite, and some input of C no recorded op made;
- H's last recorded write before C (within MAX_SCAN executions) put NaN/∞ into it: its value
  is recorded and holds NaN/∞ (a read-modify-write whose value is finite leaves what the
  write before it put there: that one is looked at, up to MAX_WRITES writes back; an
  AssignVariableOp of a finite value makes H finite). A value that was not recorded is not
  known: no inference is made from it;
- the unrecorded input was made after that write (a higher tensor id than its inputs').
When several variables qualify, the value written earliest is followed (the earliest bad
input, as the walk does); the explanation names them all. It says the read is inferred, and
what a constant made in Python would mean. When no variable qualifies but some were last
written with a value no recorded op made (a numpy array assigned), the op stays the origin
and its explanation names those writes and says that what it read is not known
(`unknown_reads`).

A write inside a tf.function call (an optimizer's update in a compiled step, or an
`assign_sub` in a function of its own) is looked for too: the call's inputs hold the
variables' handles, and the graph's last write op on a handle's Placeholder (or, nested, in a
function it calls) is the write; the value it wrote is the graph tensor traced in that call.
An eager `x * w` after a compiled update is then explained as after an eager one. Such a
write whose value was not traced (an --op-regex run) is unknown, as a numpy write is.
"""

from __future__ import annotations

import weakref
from dataclasses import replace

import numpy as np

from reader.diagnosis.health import Health, Ref
from reader.diagnosis.unrecorded import Inferred
from reader.diagnosis.variables import (
    APPLY_PREFIX,
    READ_OPS,
    SCATTER_OPS,
    WRITE_OPS,
    Write,
    is_write,
    write_in,
    write_place,
)
from reader.diagnosis.walk import Link, Walker
from reader.errors import ReaderError
from reader.index.schema import EAGER, GRAPH

HOP_READ = "not recorded: taken to be a read of the variable"  # in the path
MAX_SCAN = 4096  # executions looked at before the op for the variables' writes
MAX_WRITES = 1024  # write records read at most (a model of many variables writes each step)
MAX_NAMED = 3  # writes of an unknown value named in an explanation
MAX_CALL_INPUTS = 4096  # a call's inputs looked at for variable handles

# per walker: (graph id, input position) → the write the graph does on that input's variable
# (its call index left to fill in), so that each graph's ops are searched once per input
_CALL_WRITES: weakref.WeakKeyDictionary[Walker, dict[tuple[str, int], Write | None]] = \
    weakref.WeakKeyDictionary()


def _value_tids(op_type: str, ins: list[int]) -> list[int]:
    """The inputs of a write that make the value written (not the handle)."""
    if op_type in WRITE_OPS:
        return ins[1:2]
    if op_type in SCATTER_OPS:
        return ins[2:3]
    return ins[1:]  # a fused update: its slots' handles are never bad, its gradient may be


class _Found:
    """Per variable handle: its last write before the op, and what it put there."""

    def __init__(self) -> None:
        self.bad: dict[int, tuple[Write, Ref]] = {}  # handle → the write and its bad value
        self.unknown: list[Write] = []  # last writes of a value no recorded op made
        self.settled: set[int] = set()  # handles whose content is decided (or unknown)


def _writes(walker: Walker, cur: Ref, newest_read: int) -> _Found:
    """The variables whose content at `cur` came from a recorded write holding NaN/∞, each
    written before tensor `newest_read` was made."""
    idx, L = walker.idx, walker.L
    found = _Found()
    lo = max(0, cur.index - MAX_SCAN)
    types = np.asarray(L.executions.col("op_type")[lo:cur.index])
    ids = [int(u) for u in np.unique(types) if is_write(L.strings[int(u)])]
    calls = idx.calls_between(lo, cur.index)
    cand = np.flatnonzero(np.isin(types, ids) | calls)[::-1][:MAX_WRITES] + lo
    for e in cand.tolist():
        try:
            rec = L.read_execution(e)
        except ReaderError as exc:
            L.warn(str(exc))
            continue
        ins = [int(t) for t in rec.input_tensor_ids]
        if not ins or max(ins) >= newest_read:
            continue  # written after the op's inputs were made: not what it read
        if idx.exec_graph(e) is not None:
            _call_writes(walker, e, ins, found)
            continue
        handle = ins[0]
        if handle in found.settled:
            continue
        values = [idx.eager_producer(t, e) for t in _value_tids(rec.op_type, ins)]
        _settle(walker, found, handle, Write(EAGER, e, rec.op_type), values)
    return found


def _settle(walker: Walker, found: _Found, handle: int, w: Write,
            values: list[Ref | None]) -> None:
    """What write `w` (the last one of `handle` not yet settled) says of the variable's
    content, from the values it wrote (None: not recorded)."""
    if w.op_type in WRITE_OPS | SCATTER_OPS and any(r is None for r in values):
        found.settled.add(handle)  # its value was not recorded: not known
        found.unknown.append(w)
        return
    bad = [r for r in values if r is not None and walker.idx.is_bad(r) == 1]
    if bad:
        first = min(bad, key=lambda r: (walker.idx.wall(r), r.index))
        found.bad[handle] = (w, first)
        found.settled.add(handle)
    elif w.op_type == "AssignVariableOp":
        found.settled.add(handle)  # overwritten with a finite value
    # else: a finite update leaves what an earlier write put there: look further back


def _call_writes(walker: Walker, e: int, ins: list[int], found: _Found) -> None:
    """The writes tf.function call `e` made to the variables whose handles it was handed."""
    gid = walker.idx.exec_graph(e)
    cache = _CALL_WRITES.setdefault(walker, {})
    for k, tid in enumerate(ins[:MAX_CALL_INPUTS]):
        if tid in found.settled or gid is None:
            continue
        key = (gid, k)
        if key not in cache:
            cache[key] = write_in(walker.idx, e, tid, walker.nested)
        w = cache[key]
        if w is None or w.graph is None or w.op is None:
            continue
        g, op = w.graph, w.op
        wall = walker.idx.wall(Ref(EAGER, e))
        pairs = [w.value] if w.value is not None else op.inputs[1:]
        values = [walker._resolve(g.graph_id, n, s, None, wall, op, 0, (), n).ref
                  for n, s in pairs]
        _settle(walker, found, tid, replace(w, index=e), values)


def _reads(walker: Walker, cur: Ref, links: list[Link]) -> tuple[list[int], _Found] | None:
    """The unrecorded inputs of the eager op `cur` and the variables' last writes before it,
    when `cur` may have read a variable (the first condition of the module docstring)."""
    idx, L = walker.idx, walker.L
    if cur.kind != EAGER or idx.is_bad(cur) != 1 or idx.exec_graph(cur.index) is not None:
        return None
    op_type = L.op_type_of_execution(cur.index)
    if op_type in READ_OPS or is_write(op_type) or op_type.startswith(APPLY_PREFIX):
        return None
    outside = sorted({lk.tid for lk in links if lk.outside and lk.tid is not None})
    if not outside or any(lk.ref is not None and idx.is_bad(lk.ref) == 1
                          for lk in links if not lk.outside):
        return None
    return outside, _writes(walker, cur, max(outside))


def unrecorded_read(walker: Walker, cur: Ref, links: list[Link]) -> Inferred | None:
    """For the eager op `cur`, whose NaN/∞ none of its recorded inputs held: the bad value a
    variable's last write put there, when `cur` is taken to have read that variable (see the
    module docstring); None otherwise."""
    found = _reads(walker, cur, links)
    if found is None or not found[1].bad:
        return None
    return _inferred(walker, cur, *found)


def unknown_reads(walker: Walker, cur: Ref, links: list[Link]) -> str | None:
    """For the eager origin `cur` that read a tensor no recorded op made, when no variable's
    write is known to have put NaN/∞ there: the variables whose last write before it wrote a
    value no recorded op made either — whether `cur` read NaN/∞ from one of them is not
    known, and said so (None when there are none)."""
    found = _reads(walker, cur, links)
    if found is None or found[1].bad or not found[1].unknown:
        return None
    outside, writes = found[0], found[1].unknown
    shown = [_place_words(walker, w) for w in writes[:MAX_NAMED]]
    more = len(writes) - len(shown)
    tensors = " or ".join(str(t) for t in outside)  # tensor ids: `#N` is an execution
    return (f"{walker.name(cur)} read tensor id {tensors}, which no recorded op made (TensorFlow "
            "records no ReadVariableOp when an eager op reads a tf.Variable directly, x * w), "
            f"and the last write to {'a variable' if len(writes) == 1 else 'variables'} "
            f"before it wrote a value no recorded op made either: {', '.join(shown)}"
            + (f" and {more:,} more" if more > 0 else "")
            + ". Whether what it read already held NaN/∞ is not known.")


def _inferred(walker: Walker, cur: Ref, outside: list[int], found: _Found) -> Inferred:
    """The walk's hop to the earliest bad value written, and the words saying so."""
    idx = walker.idx
    op_type = walker.L.op_type_of_execution(cur.index)
    writes = sorted(found.bad.values(), key=lambda wr: (idx.wall(wr[1]), wr[1].index))
    w, value = writes[0]
    c_name, c_type = walker.name(cur), op_type
    tensors = " or ".join(str(t) for t in outside)  # tensor ids: `#N` is an execution
    named = "; ".join(_write_words(walker, wr) for wr in writes)
    many = len(writes) > 1
    text = (f"{c_name} read tensor id {tensors}, which no recorded op made: TensorFlow records "
            "no ReadVariableOp when an eager op reads a tf.Variable directly (x * w, "
            f"tf.square(w)). Before it, {'variables were' if many else 'a variable was'} "
            f"last written with NaN/∞: {named}. So {c_type} is taken to have read "
            f"{'the first of them' if many else 'it'} — inferred, not recorded (had "
            f"tensor {tensors} been made in Python, a constant or a numpy array, the NaN/∞ "
            "would have come with it).")
    via = (f"tensor id {tensors} ({HOP_READ} written by {_write_ref(walker, w)})",)
    return Inferred(value, via, text)


def _write_words(walker: Walker, wr: tuple[Write, Ref]) -> str:
    """"AssignSubVariableOp (eager #42) at prog.py:80, the value Mul:0 (eager #41) with
    NaN in 1 of 1 elements"."""
    w, value = wr
    return (f"{_place_words(walker, w)}, the value {walker.name(value)} with "
            f"{_bad(walker.idx.health(value))}")


def _place_words(walker: Walker, w: Write) -> str:
    """"AssignSubVariableOp (eager #42) at prog.py:80"."""
    uf = write_place(walker.idx, w).user_frame
    at = f" at {uf.file.rsplit('/', 1)[-1]}:{uf.line}" if uf else ""
    return f"{_write_ref(walker, w)}{at}"


def _write_ref(walker: Walker, w: Write) -> str:
    """"AssignSubVariableOp (eager #42)", or for a write in a tf.function call
    "AssignSubVariableOp in apply (the call eager #42)"."""
    if w.kind == GRAPH and w.graph is not None:
        return (f"{w.op_type} in {walker.graph_name(w.graph.graph_id)} "
                f"(the call eager #{w.index})")
    return f"{w.op_type} (eager #{w.index})"


def _bad(h: Health) -> str:
    parts = [f"{label} in {c:,}" for c, label in ((h.neg_inf, "−∞"), (h.pos_inf, "+∞"),
                                                   (h.nan, "NaN")) if c]
    return f"{' and '.join(parts) or 'NaN/∞'} of {h.size:,} elements" if h.size is not None \
        else "NaN/∞"
