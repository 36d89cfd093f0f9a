"""Which CTC example cannot be aligned, when the integer labels were recorded (FULL_TENSOR).

CTC's loss is +∞ for an example whose label sequence needs more time steps than it has:
one per label plus one blank between each pair of equal consecutive labels. The labels are
integers (a SparseTensor's indices and values), which the health modes never trace; a
FULL_TENSOR run records them, and then the example can be named. The time steps are the
recorded sequence lengths, or else the logits' time dimension (an upper bound: a label
sequence longer than that cannot fit whatever the lengths were).

Every size comes from the file: shapes are checked before they index anything.
"""

from __future__ import annotations

import numpy as np

from reader.diagnosis.index import Ref
from reader.diagnosis.walk import Link, Walker
from reader.errors import ReaderError
from reader.index.schema import GRAPH

CTC_OPS = frozenset({"CTCLoss", "CTCLossV2"})
_MAX_LABELS = 10_000_000
_MAX_BATCH = 100_000  # one pass over the labels per example: bounded for a hostile shape
_NAMED = 3


def _values(walker: Walker, ref: Ref | None) -> np.ndarray | None:
    if ref is None:
        return None
    L = walker.L
    try:
        if ref.kind == GRAPH:
            tv = L.read_trace(ref.index).value
        else:
            tensors = L.read_execution(ref.index).debug_tensors
            tv = tensors[ref.slot] if 0 <= ref.slot < len(tensors) else None
    except ReaderError:
        return None
    if tv is None or not isinstance(tv.values, np.ndarray):
        return None
    return tv.values


def unalignable(walker: Walker, op: str, links: list[Link]) -> str | None:
    """"example 2 needs 9 time steps (8 labels, 1 repeat) but has 8" — or None."""
    if op not in CTC_OPS or len(links) < 4:
        return None
    logits, indices, values, lengths = (_values(walker, lk.ref) for lk in links[:4])
    if indices is None or values is None or logits is None:
        return None
    if (logits.ndim != 3 or indices.ndim != 2 or indices.shape[1] != 2 or values.ndim != 1
            or len(values) != len(indices) or len(values) > _MAX_LABELS
            or indices.dtype.kind not in "iu" or values.dtype.kind not in "iu"):
        return None
    steps, batch = int(logits.shape[0]), int(logits.shape[1])
    if batch > _MAX_BATCH:
        return None
    known_lengths = (lengths is not None and lengths.ndim == 1 and len(lengths) == batch
                     and lengths.dtype.kind in "iu")
    order = np.lexsort((indices[:, 1], indices[:, 0]))
    rows, labs = indices[order, 0], values[order]
    bad = []
    for b in range(batch):
        seq = labs[rows == b]
        repeats = int(np.count_nonzero(seq[1:] == seq[:-1])) if len(seq) > 1 else 0
        need = len(seq) + repeats
        have = int(lengths[b]) if known_lengths and lengths is not None else steps
        if need > have:
            bad.append(f"example {b} needs {need} time steps ({len(seq)} labels, "
                       f"{repeats} repeat{'s' if repeats != 1 else ''}) but has {have}")
    if not bad:
        return None
    where = "its sequence length" if known_lengths else "the logits' time steps"
    more = f", and {len(bad) - _NAMED} more" if len(bad) > _NAMED else ""
    return (f"the recorded labels show which (against {where}): "
            f"{'; '.join(bad[:_NAMED])}{more}")
