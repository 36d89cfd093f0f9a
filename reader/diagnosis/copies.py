"""Which recorded eager output an unrecorded tensor copies (an Identity TensorFlow does not
record): the rule `reader.diagnosis.unrecorded` explains, on the index alone, so the walk's
edges (`read_writes.write_links`) and the data rules use it without importing the walk.
"""

from __future__ import annotations

import numpy as np

from reader.diagnosis.index import DiagIndex, Ref
from reader.errors import ReaderError
from reader.index.schema import EAGER

HOP = "not recorded: taken to be an Identity of"  # in the path, where the walk inferred
MAX_GAP = 64  # executions before C (where O was made) and after it (where O was not read)


def suspects(idx: DiagIndex, tid: int, read: int) -> list[tuple[int, Ref]]:
    """(tensor id, output) of the recorded eager outputs an unrecorded tensor `tid`, read
    by execution `read`, may copy: made before it by the MAX_GAP executions before `read`,
    after any other tensor from outside the record that a recorded op read (a Python
    constant, an earlier step's Identity) — but those made along with `tid`, between the same
    two recorded ops (the Identities of one apply_gradients) —, holding NaN/∞, and read by
    no recorded execution up to MAX_GAP after `read`."""
    L = idx.L
    used: set[int] = set()
    made: list[tuple[int, Ref]] = []
    for e in range(max(0, read - MAX_GAP), min(len(L.executions), read + MAX_GAP + 1)):
        try:
            rec = L.read_execution(e)
        except ReaderError:
            return []
        used.update(int(t) for t in rec.input_tensor_ids or ())
        if e < read:
            made += [(int(t), Ref(EAGER, e, k))
                     for k, t in enumerate(rec.output_tensor_ids or ()) if int(t) < tid]
    tids, _ = idx.outputs_by_tid()
    recorded = {t for t, _ in made}
    gap = int(np.searchsorted(tids, tid))  # recorded outputs made before `tid`
    outside = [u for u in used if u < tid and u not in recorded
               and idx.eager_producer(u, read) is None and int(np.searchsorted(tids, u)) < gap]
    after = max(outside, default=-1)
    return [(t, r) for t, r in made
            if t > after and t not in used and idx.is_bad(r) == 1]


def written_copy(idx: DiagIndex, tid: int, write: int, size: int | None) -> Ref | None:
    """For an eager variable write (execution `write`) of tensor `tid` that no recorded op
    made: the recorded output it copies, by the same rule (`suspects`, the element count of
    the variable's read `size`). tf.train.Checkpoint's restore assigns each RestoreV2 output
    through an Identity TensorFlow does not record: a NaN restored was otherwise 'assigned
    from numpy', an incident beside the checkpoint's."""
    if size is None:
        return None
    same = [r for _t, r in suspects(idx, tid, write) if idx.health(r).size == size]
    return same[0] if len(same) == 1 else None
