"""An eager input that no recorded op made: when it is an unrecorded Identity of a recorded
tensor, and how sure that can be.

TensorFlow never records an eager Identity (nor If, While, StatefulPartitionedCall: see
`OP_CALLBACK_SKIP_OPS` in tensorflow/python/debug/lib/op_callbacks_common.py), and eager
code makes Identities where the user wrote none: a tf.custom_gradient passes every result
through one, and Keras' apply_gradients does so with every gradient (tf.distribute's
all-reduce is such a function). The op that reads the Identity's output then shows NaN/∞
that none of its recorded inputs held, and the walk would stop there — a second, made-up
origin (the update's Mul instead of the gradient that overflowed).

What the record does say: eager tensor ids come from one counter, in the order tensors are
made. So an input whose id lies between two recorded outputs was made between those ops, by
something unrecorded — an Identity of a tensor that existed then, or a constant made in
Python. It is taken to be an Identity of the recorded output O just before it only when all
of this holds (otherwise the input stays "not recorded"):
- the op C that read it holds NaN/∞ and every other input of C was recorded finite;
- it is the first tensor made after O that any recorded op used (a second Identity made
  after the first, of another tensor, is not claimed);
- O holds NaN/∞, has as many elements as C's output, and no recorded op used O (its only
  reader was unrecorded), and C ran at most MAX_GAP executions after O's.
The explanation says it is inferred and why, and what it would mean were it a constant.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from reader.diagnosis.health import Health, Ref
from reader.diagnosis.walk import Link, Walker
from reader.errors import ReaderError
from reader.index.schema import EAGER

MAX_GAP = 64  # executions from O's to C, and after C, looked at for other uses
HOP = "not recorded: taken to be an Identity of"  # in the path, where the walk inferred


@dataclass(frozen=True)
class Inferred:
    """The recorded tensor an unrecorded input is taken to be, and the words saying so."""

    ref: Ref
    via: tuple[str, ...]
    text: str


def unrecorded_identity(walker: Walker, cur: Ref, links: list[Link]) -> Inferred | None:
    """For the eager op `cur`, whose NaN/∞ none of its recorded inputs (`links`) held: the
    recorded output its one unrecorded input copies, when the record supports it (see the
    module docstring); None otherwise."""
    idx = walker.idx
    if cur.kind != EAGER or idx.is_bad(cur) != 1:
        return None
    outside = [lk for lk in links if lk.outside]
    if len(outside) != 1 or outside[0].tid is None:
        return None
    if any(lk.ref is None or idx.is_bad(lk.ref) != 0 for lk in links if not lk.outside):
        return None
    tid = outside[0].tid
    found = _made_before(walker, tid, cur.index)
    if found is None:
        return None
    o_tid, o_ref = found
    if o_ref.index < cur.index - MAX_GAP:
        return None
    o_health, c_health = idx.health(o_ref), idx.health(cur)
    if o_health.bad != 1 or o_health.size is None or o_health.size != c_health.size:
        return None
    if not _only_unrecorded_use(walker, o_tid, tid, o_ref.index, cur.index):
        return None
    o_name, c_name = walker.name(o_ref), walker.name(cur)
    c_type = c_name.split(":")[0]
    text = (f"{c_name} read tensor #{tid}, which no recorded op made (TensorFlow never records "
            "an eager Identity; a tf.custom_gradient passes its results through one, and so "
            "does Keras' apply_gradients with every gradient). Tensor ids count up as tensors "
            f"are made: #{tid} is the first tensor made after {o_name}'s output #{o_tid} that a "
            f"recorded op used; that output (with {_bad(o_health)}) has as many elements as "
            f"{c_type}'s and no recorded op read it. So #{tid} is taken to be it, "
            "passed through an Identity — inferred from the tensor ids, not recorded (had "
            f"#{tid} been made in Python, a constant or a numpy array, the NaN/∞ would have come "
            "with it).")
    return Inferred(o_ref, (f"tensor #{tid} ({HOP} {o_name})",), text)


def _made_before(walker: Walker, tid: int, before_exec: int) -> tuple[int, Ref] | None:
    """(tensor id, output) of the recorded eager output made latest before tensor `tid`,
    by an execution before `before_exec` (ids count up; a later process may reuse them)."""
    tids, rows = walker.idx.outputs_by_tid()
    if not len(tids) or tid <= int(tids[0]):
        return None
    k = len(tids) if tid > int(np.iinfo(tids.dtype).max) else int(
        np.searchsorted(tids, tids.dtype.type(tid), "left"))
    o = walker.L.outputs
    for j in range(k - 1, max(-1, k - 65), -1):
        r = int(rows[j])
        e = int(o.col("execution")[r])
        if e < before_exec:
            return int(tids[j]), Ref(EAGER, e, int(o.col("slot")[r]))
    return None


def _only_unrecorded_use(walker: Walker, o_tid: int, tid: int, made: int, read: int) -> bool:
    """True when no recorded execution from `made` on (to MAX_GAP past `read`) used tensor
    `o_tid` or any tensor made between it and `tid`."""
    L = walker.L
    for e in range(made + 1, min(len(L.executions), read + MAX_GAP + 1)):
        try:
            ins = L.read_execution(e).input_tensor_ids
        except ReaderError:
            return False
        if any(o_tid <= int(t) < tid for t in ins):
            return False
    return True


def _bad(h: Health) -> str:
    """"−∞ in 3 of 3 elements"."""
    parts = [f"{label} in {c:,}" for c, label in ((h.neg_inf, "−∞"), (h.pos_inf, "+∞"),
                                                   (h.nan, "NaN")) if c]
    return f"{' and '.join(parts) or 'NaN/∞'} of {h.size:,} elements"
