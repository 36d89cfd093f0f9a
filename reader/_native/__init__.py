"""The reader's optional compiled core (`_ingest.c`): framing, CRC-32C, canonical record parse.

`make install` builds it when a C compiler is present; without one, or with
`TFDBG_TUI_PURE_PYTHON=1` in the environment, the reader runs its pure-Python loops, which
give the very same index (a test compares the two on every test logdir). `ingest` is the
compiled module, or None when the pure-Python path is in use.
"""

from __future__ import annotations

import os
from types import ModuleType

PURE_ENV = "TFDBG_TUI_PURE_PYTHON"


def load() -> ModuleType | None:
    """The compiled module, or None (not built, or pure Python asked for). It imports
    nothing of ours, so every layer may use it (`reader.io.tfrecord` for its CRC-32C);
    `reader.index.batches` gives it the modes' summary rules, which the index loops and the
    read-back need (until then they take no summary)."""
    if os.environ.get(PURE_ENV, "") not in ("", "0"):
        return None
    try:
        from reader._native import _ingest  # type: ignore[attr-defined]
    except ImportError:
        return None
    return _ingest


ingest: ModuleType | None = load()
