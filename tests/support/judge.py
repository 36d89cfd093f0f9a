"""The plain judge and opening a run for it: what the fast comparison paths (bulk read-back,
blocks, same summaries, digests) are checked against in the compare tests."""

from __future__ import annotations

import numpy as np
import pytest

import reader.index.detail as detail
from reader import DebugLogdir
from tfdbg_tui.core.compare import Comparison, checks, compare


def opened(path: str, digests: bool = False) -> DebugLogdir:
    logdir = DebugLogdir(path, digests=digests)
    logdir.update()
    return logdir


def plain_compare(a: str, b: str, monkeypatch: pytest.MonkeyPatch) -> Comparison:
    """Every pair decoded into columns, read back in Python, one block, no digests."""
    with monkeypatch.context() as m:
        m.setattr(checks, "same_summaries", lambda a, b, kind, rows_a, *rest: np.zeros(
            len(rows_a), bool))
        m.setattr(detail, "native", None)
        m.setattr(checks, "_BLOCK", 1 << 40)
        return compare(opened(a), opened(b))
