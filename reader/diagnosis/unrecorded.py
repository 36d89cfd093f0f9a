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
made, and an Identity copies its input whole (same element count, same NaN/∞). So the
unrecorded input T of the op C is taken to be an Identity of the recorded output O only when
all of this holds (otherwise it stays "not recorded"; and while some recorded tensor fits
all but the element count, T is not called data either):
- C holds NaN/∞ and every other input of C was recorded finite;
- O is the only recorded tensor that was made before T, by one of the MAX_GAP executions
  before C and after any other tensor from outside the record that a recorded op read (a
  constant made in Python, an earlier step's Identity; not those made along with T), that
  holds NaN/∞, has as many elements as C's output, and that no recorded op read (up to
  MAX_GAP executions after C): its only reader was unrecorded.
When several outputs fit (an eager `1.0 / p`'s gradient for the constant 1.0, which the tape
computes and drops, is as NaN and as big as the weight's that apply_gradients copies), which
one T copies is not known; but when the walk from each of them (at most MAX_AGREE) ends at the
same origin — the same op type at the same line — the NaN/∞ came from there whichever it was:
the walk goes on from the first made, and says so.
The explanation says it is inferred and why, and what a constant made in Python would mean.
The same rule names the value an eager variable write assigned when no recorded op made it
(`reader.diagnosis.copies.written_copy`: a checkpoint's restore assigns RestoreV2's outputs
through Identities). MAX_GAP is `copies.MAX_GAP`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from reader.diagnosis.copies import HOP, suspects
from reader.diagnosis.health import Health, Ref
from reader.diagnosis.walk import Link, Walker
from reader.index.schema import EAGER

MAX_AGREE = 4  # outputs an unrecorded input may copy whose walks are compared


@dataclass(frozen=True)
class Inferred:
    """The recorded tensor an unrecorded input is taken to be, and the words saying so."""

    ref: Ref
    via: tuple[str, ...]
    text: str


def unrecorded_identity(walker: Walker, cur: Ref, links: list[Link],
                        agree: Callable[[list[Ref]], str | None] | None = None
                        ) -> Inferred | None:
    """For the eager op `cur`, whose NaN/∞ none of its recorded inputs (`links`) held: the
    recorded output its one unrecorded input copies, when the record supports it (see the
    module docstring); None otherwise. `agree`: for several such outputs, the origin every
    one of them walks back to, in words (None when they differ)."""
    idx = walker.idx
    if cur.kind != EAGER or idx.is_bad(cur) != 1:
        return None
    outside = [lk for lk in links if lk.outside]
    if len(outside) != 1 or outside[0].tid is None:
        return None
    if any(lk.ref is None or idx.is_bad(lk.ref) != 0 for lk in links if not lk.outside):
        return None
    tid, size = outside[0].tid, idx.health(cur).size
    same = [(t, r) for t, r in suspects(idx, tid, cur.index) if idx.health(r).size == size]
    if size is None or not same or len(same) > MAX_AGREE:
        return None
    common = agree([r for _t, r in same]) if len(same) > 1 and agree is not None else None
    if len(same) > 1 and common is None:
        return None
    o_tid, o_ref = same[0]  # (the first made)
    o_name, c_name = walker.name(o_ref), walker.name(cur)
    c_type = c_name.split(":")[0]
    head = (f"{c_name} read tensor id {tid}, which no recorded op made (TensorFlow never records "
            "an eager Identity; a tf.custom_gradient passes its results through one, and so "
            "does Keras' apply_gradients with every gradient). Of the recorded tensors made "
            f"before it since the last tensor from outside the record that an op read, ")
    tail = (" — inferred, not recorded (had "
            f"tensor {tid} been made in Python, a constant or a numpy array, the NaN/∞ would "
            "have come with it).")
    if common is None:
        text = (head + f"{o_name}'s output (tensor id {o_tid}) "
                f"(with {_bad(idx.health(o_ref))}) is the only one that holds NaN/∞, has as "
                f"many elements as {c_type}'s output and was read by no recorded op. So "
                f"tensor {tid} is taken to be it, passed through an Identity" + tail)
    else:
        names = ", ".join(f"{walker.name(r)}'s output (tensor id {t})" for t, r in same)
        text = (head + f"{len(same)} hold NaN/∞, have as many elements as {c_type}'s output "
                f"and were read by no recorded op: {names}; each of them walks back to "
                f"{common}. So tensor {tid} is taken to be one of them, passed through an "
                "Identity, "
                f"and the walk goes on from the first made, {o_name}" + tail)
    return Inferred(o_ref, (f"tensor id {tid} ({HOP} {o_name})",), text)


def _bad(h: Health) -> str:
    """"−∞ in 3 of 3 elements"."""
    parts = [f"{label} in {c:,}" for c, label in ((h.neg_inf, "−∞"), (h.pos_inf, "+∞"),
                                                   (h.nan, "NaN")) if c]
    return f"{' and '.join(parts) or 'NaN/∞'} of {h.size:,} elements"
