"""Health columns read back from the records, for the rows asked for.

The index keeps per tensor row only what whole-column work needs (`bad`, and for eager
outputs the tensor id); the rest of a row's health — dtype, rank, size and the NaN/∞/−/0/+
counts — is in its record, which the index can re-read by offset. A pane shows a screenful
of rows, the diagnosis a handful: reading those back costs microseconds each, where keeping
them would cost ~70 bytes for every one of millions of rows.

Exactness: the bytes are decoded by the very code the ingest used (`HealthBatch` over the
light protobuf view), so a row reads back exactly what it would have been indexed as. Rows
whose health came from decoding a whole FULL_TENSOR value keep it (the table's `details`):
decoding those again would be slow. A record that can no longer be read (the file changed
under us) reads back as unknown (-1), with `bad` as indexed.
"""

from __future__ import annotations

import os
from collections.abc import Callable

import numpy as np
from google.protobuf.message import DecodeError

from reader.index.batches import HealthBatch
from reader.index.health import HEALTH_COLUMNS
from reader.index.schema import OutputTable, RowTable, TraceTable
from reader.io.tfrecord import FOOTER_SIZE, HEADER_SIZE, masked_crc32c
from reader.modes import NO_TENSOR
from reader.proto import tfdbg_lite_pb2 as plite

PathOf = Callable[[int, str], str]  # (file set, suffix) → path
_MAX_RECORD = 1 << 31


def _payload(fd: int, offset: int) -> bytes | None:
    """The intact payload of the record at `offset`, or None."""
    try:
        header = os.pread(fd, HEADER_SIZE, offset)
        if len(header) < HEADER_SIZE:
            return None
        length = int.from_bytes(header[:8], "little")
        if (masked_crc32c(header[:8]) != int.from_bytes(header[8:12], "little")
                or length > _MAX_RECORD):
            return None
        body = os.pread(fd, length + FOOTER_SIZE, offset + HEADER_SIZE)
    except OSError:
        return None
    payload = body[:length]
    if len(body) < length + FOOTER_SIZE or masked_crc32c(payload) != int.from_bytes(
            body[length:], "little"):
        return None
    return payload


def _ignore(_message: str) -> None:
    """Read-back warns of nothing: the ingest already said it once."""


class RecordHealth:
    """The `detail` source of an index's tensor tables (see `RowTable.health_columns`)."""

    def __init__(self, path_of: PathOf, executions: RowTable) -> None:
        self.path_of = path_of
        self.executions = executions

    def __call__(self, table: RowTable, rows: np.ndarray) -> dict[str, np.ndarray]:
        rows = np.asarray(rows, dtype=np.int64).reshape(-1)
        hb = HealthBatch()
        if isinstance(table, TraceTable):
            self._traces(table, rows, hb)
        elif isinstance(table, OutputTable):
            self._outputs(table, rows, hb)
        h = hb.columns(len(rows))
        for name in ("bad", "tensor_id"):
            if name in table.columns:
                h[name] = table.col(name)[rows].astype(HEALTH_COLUMNS[name])
        _overlay_kept(table, rows, h)
        return h

    def _read(self, fileset: np.ndarray, offsets: np.ndarray, suffix: str
              ) -> list[bytes | None]:
        out: list[bytes | None] = [None] * len(offsets)
        for fsi in np.unique(fileset).tolist():
            try:
                fd = os.open(self.path_of(int(fsi), suffix), os.O_RDONLY | os.O_CLOEXEC)
            except OSError:
                continue
            try:
                for i in np.flatnonzero(fileset == fsi).tolist():
                    out[i] = _payload(fd, int(offsets[i]))
            finally:
                os.close(fd)
        return out

    def _traces(self, t: TraceTable, rows: np.ndarray, hb: HealthBatch) -> None:
        payloads = self._read(t.kind_of("fileset", rows), t.col("offset")[rows],
                              "graph_execution_traces")
        lite = plite.DebugEventLite()
        for i, payload in enumerate(payloads):
            if payload is None:
                continue
            try:
                lite.ParseFromString(payload)
            except (DecodeError, ValueError):
                continue
            g = lite.graph_execution_trace
            if g.tensor_debug_mode != NO_TENSOR and g.tensor_proto:
                hb.add_serialized(i, g.tensor_debug_mode, g.tensor_proto, "", 0, _ignore)

    def _outputs(self, o: OutputTable, rows: np.ndarray, hb: HealthBatch) -> None:
        execs = o.col("execution")[rows]
        slots = o.col("slot")[rows]
        e = self.executions
        payloads = self._read(e.kind_of("fileset", execs), e.col("offset")[execs], "execution")
        ev = plite.ExecutionEventLite()
        for i, payload in enumerate(payloads):
            if payload is None:
                continue
            try:
                ev.ParseFromString(payload)
            except (DecodeError, ValueError):
                continue
            x, slot = ev.execution, int(slots[i])
            if x.tensor_debug_mode != NO_TENSOR and slot < len(x.tensor_protos):
                hb.add_serialized(i, x.tensor_debug_mode, x.tensor_protos[slot], "", 0, _ignore)


def _overlay_kept(table: RowTable, rows: np.ndarray, h: dict[str, np.ndarray]) -> None:
    """Rows whose health the table keeps (FULL_TENSOR counts) take it from there."""
    kept = table.details
    if not len(kept):
        return
    keys = kept.col("row")
    pos = np.searchsorted(keys, rows)
    pos[pos >= len(keys)] = 0
    hit = keys[pos] == rows
    if hit.any():
        for name in HEALTH_COLUMNS:
            if name in ("bad",) or (name == "tensor_id" and name in table.columns):
                continue
            h[name][hit] = kept.col(name)[pos[hit]]
