"""Health columns read back from the records, for the rows asked for.

The index keeps per tensor row only what whole-column work needs (`bad`, and for eager
outputs the tensor id); the rest of a row's health — dtype, rank, size and the NaN/∞/−/0/+
counts — is in its record, which the index can re-read by offset. A pane shows a screenful
of rows, the diagnosis a handful: reading those back costs microseconds each, where keeping
them would cost ~70 bytes for every one of millions of rows.

Exactness: the bytes are decoded by the very code the ingest used (`HealthBatch` over the
light protobuf view), so a row reads back exactly what it would have been indexed as. Many
rows at once (a comparison of two runs asks for all of them) go through the compiled core
when it is built (`read_summaries` in reader/_native/readback.c): the file is read a few MB
at a time and C takes each canonical summary, which then goes through the same
`fill_from_vectors`; whatever C declines is read here, record by record. Rows
whose health came from decoding a whole FULL_TENSOR value keep it (the table's `details`):
decoding those again would be slow. A record that can no longer be read (the file changed
under us) reads back as unknown (-1), with `bad` as indexed.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from typing import NamedTuple, Protocol

import numpy as np
from google.protobuf.message import DecodeError

from reader._native import ingest as native
from reader.index.batches import HealthBatch
from reader.index.health import HEALTH_COLUMNS, empty_health, fill_from_vectors
from reader.index.schema import OutputTable, RowTable, TraceTable
from reader.io.regular import open_fd, open_regular, pread
from reader.io.remote import READ_AHEAD, is_remote
from reader.io.remote_file import RemoteFile
from reader.io.tfrecord import FOOTER_SIZE, HEADER_SIZE, masked_crc32c
from reader.modes import NO_TENSOR, VECTOR_LEN
from reader.proto import tfdbg_lite_pb2 as plite

PathOf = Callable[[int, str], str]  # (file set, suffix) → path
_MAX_RECORD = 1 << 31
BULK_ROWS = 512  # from this many rows on, the compiled bulk read (when built) pays off
_CHUNK = 4 << 20  # bytes of a file the compiled loop reads at once
_TAIL = 16 << 10  # read past the last record's start: most records are far shorter
_BLOCK = 1 << 16  # rows per call of the compiled loop (bounds its output buffers: 8 MB)
_WIDTH = 15  # float64 elements per row of that buffer (the longest summary a mode may have)
_TRACE, _EXECUTION = 0, 1
_FLUSH = 1 << 15  # summaries gathered before they are decoded into the columns at once


class Summaries(NamedTuple):
    """Raw summaries of rows as recorded: `mode` (-1 where not taken: no summary, or one the
    compiled loop left to Python) and `vectors`, (n, SUMMARY_WIDTH) float64: a row's first
    VECTOR_LEN[mode] elements where its mode is >= 0, undefined elsewhere."""

    mode: np.ndarray
    vectors: np.ndarray


SUMMARY_WIDTH = max(VECTOR_LEN.values())


class Scratch:
    """Buffers reused from one bulk read to the next (the compiled loop's outputs,
    `summaries`' output). Fresh memory costs the kernel a page fault per 4 KB;
    a caller reading millions of rows back in blocks (a comparison of two runs) would
    otherwise pay that for every block. One per thread: `summaries` returns views into it,
    valid until its next use."""

    def __init__(self) -> None:
        self._status = np.empty(0, np.int8)
        self._modes = np.empty(0, np.int32)
        self._vecs = np.empty((0, _WIDTH), np.float64)
        self._mode = np.empty(0, np.int32)
        self._vectors = np.empty((0, SUMMARY_WIDTH), np.float64)

    def block(self, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Status, mode and vector buffers of n rows for the compiled loop."""
        if len(self._status) < n:
            self._status = np.empty(n, np.int8)
            self._modes = np.empty(n, np.int32)
            self._vecs = np.empty((n, _WIDTH), np.float64)
        return self._status[:n], self._modes[:n], self._vecs[:n]

    def summaries(self, n: int) -> Summaries:
        if len(self._mode) < n:
            self._mode = np.empty(n, np.int32)
            self._vectors = np.empty((n, SUMMARY_WIDTH), np.float64)
        mode = self._mode[:n]
        mode.fill(-1)
        return Summaries(mode, self._vectors[:n])


class _Sink(Protocol):
    """Where `_bulk_file` hands a chunk's summaries (`vectors` is a view of scratch memory
    the next chunk overwrites: keep a copy)."""

    def add(self, mode: int, positions: np.ndarray, vectors: np.ndarray) -> None: ...


class _Collector:
    """Keeps the summaries the compiled loop took, by row position (`Summaries`). A row's
    vector is defined only where its mode is (>= 0): the rest is never written."""

    def __init__(self, summaries: Summaries) -> None:
        self.summaries = summaries

    def add(self, mode: int, positions: np.ndarray, vectors: np.ndarray) -> None:
        s, width = self.summaries, vectors.shape[1]
        first, last = int(positions[0]), int(positions[-1])
        if last - first == len(positions) - 1 and (len(positions) < 2
                                                   or bool((np.diff(positions) > 0).all())):
            s.mode[first:last + 1] = mode  # rows in order, as the file holds them: a copy
            s.vectors[first:last + 1, :width] = vectors
        else:
            s.mode[positions] = mode
            s.vectors[positions, :width] = vectors


class _Filler:
    """Summaries the compiled loop took, decoded into health columns a few big batches at
    a time (`fill_from_vectors` per mode): few numpy calls, bounded buffers."""

    def __init__(self, h: dict[str, np.ndarray]) -> None:
        self.h = h
        self.parts: dict[int, list[tuple[np.ndarray, np.ndarray]]] = {}
        self.pending = 0

    def add(self, mode: int, positions: np.ndarray, vectors: np.ndarray) -> None:
        if not self.parts and len(positions) >= _FLUSH:  # big enough alone: no copy
            fill_from_vectors(self.h, positions, mode, vectors)
            return
        self.parts.setdefault(mode, []).append((positions, vectors.copy()))
        self.pending += len(positions)
        if self.pending >= _FLUSH:
            self.flush()

    def flush(self) -> None:
        for mode, parts in self.parts.items():
            fill_from_vectors(self.h, np.concatenate([p for p, _ in parts]), mode,
                              np.concatenate([v for _, v in parts]))
        self.parts, self.pending = {}, 0


def _payload(pread: Callable[[int, int], bytes], offset: int) -> bytes | None:
    """The intact payload of the record at `offset` (read with `pread(n, offset)`), or None."""
    try:
        header = pread(HEADER_SIZE, offset)
        if len(header) < HEADER_SIZE:
            return None
        length = int.from_bytes(header[:8], "little")
        if (masked_crc32c(header[:8]) != int.from_bytes(header[8:12], "little")
                or length > _MAX_RECORD):
            return None
        body = pread(length + FOOTER_SIZE, offset + HEADER_SIZE)
    except OSError:
        return None
    payload = body[:length]
    if len(body) < length + FOOTER_SIZE or masked_crc32c(payload) != int.from_bytes(
            body[length:], "little"):
        return None
    return payload


def _ignore(_message: str) -> None:
    """Read-back warns of nothing: the ingest already said it once."""


def _open(path: str) -> int | None:
    """A read-only descriptor of `path` if it is (still) a regular file, else None; never
    blocks (a FIFO swapped in since the ingest is not waited on)."""
    return open_fd(path)


class RecordHealth:
    """The `detail` source of an index's tensor tables (see `RowTable.health_columns`)."""

    def __init__(self, path_of: PathOf, executions: RowTable) -> None:
        self.path_of = path_of
        self.executions = executions

    def __call__(self, table: RowTable, rows: np.ndarray, *, bulk: bool = True
                 ) -> dict[str, np.ndarray]:
        """Health columns of `rows`; `bulk=False` reads every record in Python (the
        definition the compiled bulk read is tested against)."""
        rows = np.asarray(rows, dtype=np.int64).reshape(-1)
        h = empty_health(len(rows))
        where = self._records(table, rows)
        if where is not None:
            fileset, offsets, slots, which, suffix = where
            todo = np.arange(len(rows))
            if bulk and native is not None and len(rows) >= BULK_ROWS:
                filler = _Filler(h)
                todo = self._bulk(fileset, offsets, slots, which, suffix, filler, Scratch())
                filler.flush()
            hb = HealthBatch()  # the rest, in Python: row j of hb is row todo[j]
            payloads = self._read(fileset[todo], offsets[todo], suffix)
            parse = self._trace if which == _TRACE else self._output
            for j, (i, payload) in enumerate(zip(todo.tolist(), payloads, strict=True)):
                if payload is not None:
                    parse(hb, j, payload, int(slots[i]))
            for name, column in hb.columns(len(todo)).items():
                h[name][todo] = column
        for name in ("bad", "tensor_id"):
            if name in table.columns:
                h[name] = table.col(name)[rows].astype(HEALTH_COLUMNS[name])
        _overlay_kept(table, rows, h)
        return h

    def summaries(self, table: RowTable, rows: np.ndarray, scratch: Scratch | None = None
                  ) -> Summaries:
        """The raw canonical summaries of `rows`, as far as the compiled loop takes them
        (none without it); for callers that only need to know whether two rows recorded the
        same thing, without decoding millions of them into columns."""
        rows = np.asarray(rows, dtype=np.int64).reshape(-1)
        scratch = scratch or Scratch()
        sink = _Collector(scratch.summaries(len(rows)))
        where = self._records(table, rows)
        if where is not None and native is not None:
            fileset, offsets, slots, which, suffix = where
            self._bulk(fileset, offsets, slots, which, suffix, sink, scratch)
        return sink.summaries

    def _records(self, table: RowTable, rows: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, str] | None:
        """Where each row's record is: file set, offset, output slot, record kind, suffix."""
        if isinstance(table, TraceTable):
            return (table.kind_of("fileset", rows), table.col("offset")[rows],
                    np.zeros(len(rows), np.int32), _TRACE, "graph_execution_traces")
        if isinstance(table, OutputTable):
            execs = table.col("execution")[rows]
            e = self.executions
            return (e.kind_of("fileset", execs), e.col("offset")[execs],
                    table.col("slot")[rows].astype(np.int32), _EXECUTION, "execution")
        return None

    def _read(self, fileset: np.ndarray, offsets: np.ndarray, suffix: str
              ) -> list[bytes | None]:
        out: list[bytes | None] = [None] * len(offsets)
        for fsi in np.unique(fileset).tolist():
            path = self.path_of(int(fsi), suffix)
            if is_remote(path):
                self._read_remote(path, fileset == fsi, offsets, out)
                continue
            fd = _open(path)
            if fd is None:
                continue
            try:
                for i in np.flatnonzero(fileset == fsi).tolist():
                    out[i] = _payload(functools.partial(os.pread, fd), int(offsets[i]))
            finally:
                os.close(fd)
        return out

    @staticmethod
    def _read_remote(url: str, mine: np.ndarray, offsets: np.ndarray,
                     out: list[bytes | None]) -> None:
        """Records of an object, in offset order through a read-ahead block (rows close
        together cost one ranged request); a failed request leaves its rows unknown."""
        try:
            f = open_regular(url)
        except OSError:
            return
        with f:
            if isinstance(f, RemoteFile):
                f.read_ahead = READ_AHEAD
            failed: list[OSError] = []

            def read(n: int, off: int) -> bytes:
                try:
                    return pread(f, n, off)
                except OSError as exc:
                    failed.append(exc)
                    raise

            rows = np.flatnonzero(mine)
            for i in rows[np.argsort(offsets[rows], kind="stable")].tolist():
                out[i] = _payload(read, int(offsets[i]))
                if failed:  # gone or unreachable: no request per row to find it out again
                    return

    def _bulk(self, fileset: np.ndarray, offsets: np.ndarray, slots: np.ndarray, which: int,
              suffix: str, sink: _Sink, scratch: Scratch) -> np.ndarray:
        """The compiled read of many rows, file by file in offset order, a chunk at a time.
        Hands what it took to `sink`; returns the rows left for the Python read (their
        record declined, too long for a chunk, or in a file that cannot be opened)."""
        assert native is not None
        left: list[np.ndarray] = []
        for fsi, order in _by_file(fileset, offsets):
            path = self.path_of(int(fsi), suffix)
            fd = None if is_remote(path) else _open(path)  # an object: read in Python
            if fd is None:
                left.append(order)
                continue
            try:
                left.append(_bulk_file(fd, order, np.ascontiguousarray(offsets[order], np.int64),
                                       np.ascontiguousarray(slots[order], np.int32), which,
                                       sink, scratch))
            finally:
                os.close(fd)
        return np.sort(np.concatenate(left)) if left else np.zeros(0, np.int64)

    @staticmethod
    def _trace(hb: HealthBatch, i: int, payload: bytes, _slot: int) -> None:
        lite = plite.DebugEventLite()
        try:
            lite.ParseFromString(payload)
        except (DecodeError, ValueError):
            return
        g = lite.graph_execution_trace
        if g.tensor_debug_mode != NO_TENSOR and g.tensor_proto:
            hb.add_serialized(i, g.tensor_debug_mode, g.tensor_proto, "", 0, _ignore)

    @staticmethod
    def _output(hb: HealthBatch, i: int, payload: bytes, slot: int) -> None:
        ev = plite.ExecutionEventLite()
        try:
            ev.ParseFromString(payload)
        except (DecodeError, ValueError):
            return
        x = ev.execution
        if x.tensor_debug_mode != NO_TENSOR and slot < len(x.tensor_protos):
            hb.add_serialized(i, x.tensor_debug_mode, x.tensor_protos[slot], "", 0, _ignore)


def _by_file(fileset: np.ndarray, offsets: np.ndarray) -> list[tuple[int, np.ndarray]]:
    """Per file set, its row positions sorted by record offset (stable). The usual bulk read
    — a block of rows of one file, in file order — is recognised in two passes over the
    block, without the hash of its file sets or a sort."""
    n = len(fileset)
    if n and int(fileset.min()) == int(fileset.max()):
        if n < 2 or bool((offsets[1:] >= offsets[:-1]).all()):
            return [(int(fileset[0]), np.arange(n, dtype=np.int64))]
        return [(int(fileset[0]), np.argsort(offsets, kind="stable"))]
    out = []
    for fsi in np.unique(fileset).tolist():
        mine = np.flatnonzero(fileset == fsi)
        out.append((fsi, mine[np.argsort(offsets[mine], kind="stable")]))
    return out


def _bulk_file(fd: int, order: np.ndarray, offs: np.ndarray, slots: np.ndarray, which: int,
               sink: _Sink, scratch: Scratch) -> np.ndarray:
    """`_bulk` for one file: `order` are row positions sorted by their record's offset
    `offs`, read `_BLOCK` rows per call of the compiled loop (which reads the file itself,
    without the GIL). Returns the positions left for Python."""
    assert native is not None
    left: list[np.ndarray] = []
    for i in range(0, len(order), _BLOCK):
        j = min(i + _BLOCK, len(order))
        status, modes, vecs = scratch.block(j - i)
        native.read_summaries(fd, which, offs[i:j], slots[i:j], status, modes, vecs, _CHUNK,
                              _TAIL)
        mode = int(modes[0])
        if (status == 1).all() and (modes == mode).all():  # the usual block: no copies
            sink.add(mode, order[i:j], vecs[:, :VECTOR_LEN[mode]])
            continue
        got = np.flatnonzero(status == 1)
        got_modes = modes[got]
        for mode in np.unique(got_modes).tolist():
            sel = got[got_modes == mode]
            sink.add(mode, order[i + sel], vecs[sel, :VECTOR_LEN[mode]])
        left.append(order[i:j][status == -1])
    return np.concatenate(left) if left else np.zeros(0, np.int64)


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
