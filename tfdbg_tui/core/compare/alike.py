"""Whether two variables hold the same values at step 0 — the last evidence `contract.
variable_order` weighs when variables of one shape are used alike (two RNN cells run side by
side): when both runs start from the same weights (restored, set, assigned), a variable's
partner is the one holding its values.

Outside `contract/`: it reads records (`values`), which import the contract.
"""

from __future__ import annotations

import numpy as np

from reader import DebugLogdir, ReaderError
from reader.modes import FULL_TENSOR
from tfdbg_tui.core.compare.contract import RunModel
from tfdbg_tui.core.compare.contract.variable_order import SameValue
from tfdbg_tui.core.compare.values import RecordReader, Tolerance

MAX_READS = 64  # records read per run to tell variables apart (each is a file read)


class _Side:
    def __init__(self, logdir: DebugLogdir, model: RunModel) -> None:
        self.reader = RecordReader(logdir)
        self.model = model
        self.cache: dict[str, np.ndarray | None] = {}

    def value(self, h: str) -> np.ndarray | None:
        """The FULL_TENSOR float values step 0 reads of variable `h` (None: not known)."""
        if h in self.cache:
            return self.cache[h]
        got = None
        if len(self.cache) < MAX_READS and self.model.steps:
            flow, _, roles = self.model.steps[0]
            row = self.model.row(0, roles.read.get(h)) or flow.init.get(h)
            try:
                if row is not None and self.reader.mode(*row) == FULL_TENSOR:
                    tv = self.reader.tensor(*row)
                    if tv is not None and tv.values.dtype.kind == "f":
                        got = np.asarray(tv.values, np.float64).ravel()
            except (ReaderError, ValueError, IndexError):
                got = None
        self.cache[h] = got
        return got


def same_at_step0(a: DebugLogdir, b: DebugLogdir, ma: RunModel, mb: RunModel,
                  tol: Tolerance) -> SameValue:
    """(A's handle, B's handle) → both recorded at step 0 and equal within `tol`."""
    sa, sb = _Side(a, ma), _Side(b, mb)

    def same(ha: str, hb: str) -> bool:
        va, vb = sa.value(ha), sb.value(hb)
        if va is None or vb is None or va.shape != vb.shape:
            return False
        with np.errstate(invalid="ignore", over="ignore"):
            return bool(np.all(np.abs(va - vb) <= tol.atol + tol.rtol * np.abs(vb)))

    return same
