"""Many small `.execution` files indexed as one batch.

A run of many hosts can be thousands of file sets of a few records each (40,000 hosts of one
execution: `tests/hostile` `orphans_40000`). Each file is its own chunk, and adding a
chunk's rows to the tables — health columns, the kinds' modes, the columns' growth, the
alert detectors — is some 40 numpy calls whatever the rows: 0.6 ms a file, 25 s for those
40,000 hosts, against a few microseconds for their records. So the executions of a small
file (its unread bytes at most `SMALL_FILE`) are scanned into a batch of their own as it is
read, rows numbered on from those before, and the batches are put together and added once
(`flush`): when `GATHER_ROWS` outputs are waiting, before anything else is indexed, and at
the end of each read. The rows, their order, and what each warning says are those of a
file-by-file read; only when they reach the tables (and the warnings about impossible
summaries, which come after the batch's other warnings) is later.

A file whose scan raises never joins (its batch is dropped with it), so the files gathered
before it are added whole and the index never holds part of a record.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator

from reader.index.batches import ExecBatch
from reader.index.ingest import IngestTarget
from reader.index.ingest_exec import Segments, add_executions, scan_executions

SMALL_FILE = 64 << 10
GATHER_ROWS = 1 << 16


class ExecGather:
    """The batches of small `.execution` files read but not yet added to the tables."""

    def __init__(self) -> None:
        self.batches: list[ExecBatch] = []
        self.segments: Segments = []
        self.outputs = 0

    def __bool__(self) -> bool:
        return bool(self.batches)

    def add(self, idx: IngestTarget, fsi: int, records: Iterator[tuple[int, memoryview]],
            name: str) -> bool:
        """Scan one chunk of a small file; True when enough is waiting to be added."""
        last = self.batches[-1] if self.batches else None
        execs, outs = ((last.exec_base + last.row, last.out_base + last.orow) if last
                       else (len(idx.executions), len(idx.outputs)))
        b = scan_executions(idx, fsi, records, name, execs, outs)
        if last and (b.tensors.bad is None) != (last.tensors.bad is None):
            self.flush(idx)  # one read by the compiled core, one not (never in one read)
            last = None
        self.segments.append((execs - (self.batches[0].exec_base if last else execs), fsi,
                              name))
        self.batches.append(b)
        self.outputs += b.orow
        return self.outputs >= GATHER_ROWS

    def flush(self, idx: IngestTarget) -> None:
        """Add what is waiting to the tables, as one batch."""
        if not self.batches:
            return
        batches, segments = self.batches, self.segments
        self.batches, self.segments, self.outputs = [], [], 0
        add_executions(idx, merged(batches), segments)


def merged(batches: list[ExecBatch]) -> ExecBatch:
    """One batch holding `batches` (numbered on from each other) in order: their rows are
    absolute already, what is numbered within a batch (output rows of summaries, decoded
    tensors, the Python loop's spans) moves by the outputs before it."""
    if len(batches) == 1:
        return batches[0]
    first = batches[0]
    b = ExecBatch(first.exec_base, first.out_base, first.tensors.bad is not None,
                  first.tensors.hb.digests is not None, first.tensors.vectors is not None)
    t, hb = b.tensors, b.hb
    for part in batches:
        shift = b.orow
        b.packed += part.packed
        b.o_exec += part.o_exec
        b.o_slot += part.o_slot
        b.o_tid += part.o_tid
        pt, phb = part.tensors, part.hb
        if t.bad is not None and pt.bad is not None:
            t.bad += pt.bad
        if t.digest is not None and pt.digest is not None:
            t.digest += pt.digest
        if t.vectors is not None and pt.vectors is not None:
            t.vectors[0].extend(pt.vectors[0])
            t.vectors[1].extend(_shifted(pt.vectors[1], shift))
            t.vectors[2].extend(pt.vectors[2])
        t.python.extend((s + shift, e + shift) for s, e in pt.python)
        hb.vec += phb.vec
        hb.rows.extend(array("q", (r + shift for r in phb.rows)))
        hb.modes.extend(phb.modes)
        hb.slow.extend((r + shift, counts) for r, counts in phb.slow)
        b.row += part.row
        b.orow += part.orow
    return b


def _shifted(rows: bytearray, shift: int) -> bytes:
    """Output rows kept by the compiled core (int64, native order), `shift` later."""
    if not shift:
        return bytes(rows)
    a = array("q")
    a.frombytes(bytes(rows))
    return array("q", (r + shift for r in a)).tobytes()
