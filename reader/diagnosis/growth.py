"""Did the weights grow? What a FULL_TENSOR record can say, and a health mode cannot.

An overflow of a product or a square from finite inputs, in a step that trains, is either a
divergence — the weights grew step after step (a learning rate too large) — or one bad batch
— this step's data far larger than the earlier steps' (`reader.diagnosis.divergence`). A
health mode records no magnitudes, so the story names both. FULL_TENSOR records the values
of the variable reads: the weights the op depends on, read in this step and in the first
step, tell the two apart. A divergence cannot overflow float32 from data of normal scale
unless the weights reached ~1e18; one bad batch overflows with the weights as they were.
So the weights grew when the largest of them is GREW times what it was at the first read
(FLOOR for weights that started at zero); otherwise the data did it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from reader.diagnosis.index import DiagIndex, Ref
from reader.modes import FULL_TENSOR

GREW = 100.0  # times the first read's largest |value|: the weights grew
FLOOR = 1e-3  # the first read's largest |value| counted at least this (zeros at the start)


@dataclass(frozen=True)
class Growth:
    """The weights' largest |value| at their first reads and now (`name`: the read holding
    the largest now)."""

    name: str
    first: float
    now: float

    @property
    def grew(self) -> bool:
        return self.now >= GREW * max(self.first, FLOOR)

    def said(self) -> str:
        """"the largest |weight| 0.5 at the first step, 0.51 now (MatMul/ReadVariableOp)"."""
        return (f"the largest |weight| {self.first:.3g} at the first step, {self.now:.3g} now "
                f"({self.name})")


def largest(idx: DiagIndex, ref: Ref) -> float | None:
    """The largest finite |value| of a FULL_TENSOR record (0 for none), None without values."""
    h = idx.health(ref, True)
    if h.mode != FULL_TENSOR:
        return None
    v = h.finite_values()
    if v is None:
        return None
    return float(np.abs(v).max()) if v.size else 0.0


def growth(idx: DiagIndex, reads: list[tuple[str, Ref, Ref]]) -> Growth | None:
    """The weights as a whole, from (name, first read, read now) triples: the largest
    |value| of them all at the first reads and now, named by the read largest now (a bias
    that starts at zero and moves a little does not count as growth); None when no read
    holds values (not FULL_TENSOR, or not recorded)."""
    first = now = -1.0
    name = ""
    for n, a_ref, b_ref in reads:
        a, b = largest(idx, a_ref), largest(idx, b_ref)
        if a is None or b is None:
            continue
        first = max(first, a)
        if b > now:
            now, name = b, n
    return Growth(name, first, now) if name else None
