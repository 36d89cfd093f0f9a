"""One step's overflows are one incident, not one per op that overflowed.

A batch far larger than the others (a feature in the wrong units, 1e30 where 1 was meant),
or weights grown too large, makes values past float32's range in one step: the loss' square
overflows in the forward pass, then the weight gradients' products in the backward pass
(they multiply the same large inputs by the large error), then the optimizer's square of
those gradients (Adam's second moment). Each of them overflowed from finite inputs, so the
walk back stops at each and calls it an origin: a user's `model.fit` with one bad batch
read as five incidents (Square, two gradient MatMuls, adam/Square_1, adam/Square_3) where
they expect one — that step's values outgrew float32 — with the rest downstream.

So a diagnosed origin that is an overflow (`is_overflow`: an op whose arithmetic overflows
only by magnitude, its inputs finite) joins the incident of the first overflow of the same
training step (`reader.diagnosis.incidents`), one whose inputs were all recorded; the
incident's text names the others. A later one may read an input that was not recorded (the
batch, a numpy array passed to the tf.function or to eager code, read again by the weight
gradient xᵀ·δ): it could hold ∞ only if the data did, and that step already shows values past
float32's range from recorded finite ones — the same cause, far more likely than a second
one. What stays apart: an origin of another kind in that step (log(0), 0/0, NaN data: a bug
of its own), an overflow of a step with no fully recorded overflow before it, and overflows
in a run without training steps (no step to tell one cause by).
"""

from __future__ import annotations

from dataclasses import replace

from reader.diagnosis.divergence import GROWING
from reader.diagnosis.explain.common import then
from reader.diagnosis.result import Diagnosis

SAY = 3  # overflowing ops named in the incident's text


def is_overflow(d: Diagnosis, recorded: bool = True) -> bool:
    """Did `d`'s origin overflow from finite inputs (an op in `GROWING`, every input
    finite)? `recorded`: every input recorded too; else an input that was not (a numpy
    batch passed to a tf.function or an eager op) may be among finite recorded ones."""
    if d.origin_op_type not in GROWING or d.cause == "data" or d.inferred is not None:
        return False
    known = [i for i in d.inputs if i.nan is not None]
    if not known or (recorded and len(known) < len(d.inputs)):
        return False
    return all(i.nan == 0 and i.pos_inf == 0 and i.neg_inf == 0 for i in known)


def with_overflows(first: Diagnosis, others: list[Diagnosis], step: int | None) -> Diagnosis:
    """The first overflow's diagnosis, its text naming the other ops that overflowed in the
    same step (the incident's diagnosis: each alert keeps its own)."""
    if not others:
        return first
    parts = [(d.origin_op_name or f"eager #{d.origin_index}") + f" ({d.origin_op_type})"
             for d in others[:SAY]]
    more = f"; +{len(others) - SAY} more" if len(others) > SAY else ""
    when = f"step {step}" if step is not None else "the same step"
    n = len(others)
    text = (f"In {when}, {n} other op{'' if n == 1 else 's'} also overflowed from finite "
            f"inputs ({'; '.join(parts)}{more}): the same values past float32's range, "
            "carried into the gradients and the optimizer's update — one cause, counted "
            "here.")
    return replace(first, explanation=then(first.explanation, text))
