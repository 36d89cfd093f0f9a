"""The hostile corpus: logdirs built to break a reader, one builder per kind of attack.

A logdir is data from somewhere else (a crashed job, a copy from a cluster, a file someone
crafted). Each builder writes one such logdir under a given directory — the TF-free writer
for the intact part, raw bytes for the attack (`hostile.raw`) — and returns a `Case`: where
the logdir is and what `tfdbg-tui report` must make of it. The items live in
`hostile.corpus_reads` (reading: amplification, values, hangs, reads, silent results) and
`hostile.corpus_text` (output and structure).

Expected numbers come from the writer (how many records it wrote) and from the attack
itself (which file, which byte offset), never from the reader under test.
"""

from __future__ import annotations

from pathlib import Path

from hostile import corpus_reads, corpus_text
from hostile.raw import BUILDERS, Case

__all__ = ["BUILDERS", "Case", "build"]
ITEM_MODULES = (corpus_reads, corpus_text)  # importing them registered their builders


def build(name: str, root: Path) -> Case:
    """Build corpus item `name` under `root` (a fresh directory per item)."""
    d = root / name
    return BUILDERS[name](d)
