"""A shard (`reader.index.shards.Shard`) as one Parquet file, and back — checked.

`tfdbg-tui index` writes each file set's shard where the logdir is (docs/scale-out.md); any
engine and DuckDB read it, and `reader.index.shard_store` opens a run from it. One file per
shard, so a shard is replaced whole (an object PUT, a local rename): its columns and what
says which bytes they came from can never be of two versions.

Layout: the shard's columns as they are, each named `<part>.<column>` (`traces.wall_time`,
`traces.kinds.op_name`, …) with its numpy type; the parts have different lengths, so the
file is as long as the longest and the others end in nulls (a bit each: nothing to store).
The string ids of the kinds (`STRING_KINDS`) are dictionary columns over the shard's string
table (a plain `strings` column, in id order); an id of -1 (none) is a null. The file's
key-value metadata (`META_KEY`, JSON) holds the rows of each part, the cursors (where
reading each big file stopped), the warnings and counts, the modes, the trace keys, and what
the caller adds: the run, the file set, the source objects' identities (size and ETag or
generation for an object), the endpoint they were read from and the code that read them.

Reading back, everything is untrusted (a shard in a bucket is anyone's who may write there):
the schema must be exactly ours, the row counts within what the source bytes can hold
(checked before a column is read), every id within its table, no null where a value must
be — else `ShardError`, one line, and the caller reads the file set itself.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any, BinaryIO

import numpy as np

from reader.index.schema import ExecutionTable, OutputTable, TraceTable, tensor_parts
from reader.index.shards import BIG, STRING_KINDS, Shard
from reader.io.cursors import Cursor

FORMAT = 1
META_KEY = b"tfdbg-tui.shard"
# rows a row group: an open reads a shard's traces row group by row group, merging hosts in
# wall-time order as it goes (`reader.index.shard_stream`); 64 Ki rows of every host is the
# first window, the rest read as the merge reaches it
ROW_GROUP = 1 << 16
MAX_META = 64 << 20  # a shard's metadata larger than this is not ours
RECORD_MIN = 16  # bytes of a TFRecord's framing: no file holds more records than size / 16
MAX_UNCOMPRESSED = 64  # a shard's columns never hold more than this many bytes a source byte
STRING_COLUMNS = {f"{t}.kinds": names for t, names in STRING_KINDS.items()}


class ShardError(Exception):
    """A shard that cannot be used (the message says why, in one line)."""


def spec(digests: bool) -> dict[str, dict[str, np.dtype]]:
    """The parts of a shard and their columns' types (as the index keeps them)."""
    shell = SimpleNamespace(traces=TraceTable(digests), executions=ExecutionTable(),
                            outputs=OutputTable(digests))
    return {name: {c: part.column_dtype(c) for c in part.columns}
            for name, part in tensor_parts(shell).items()}


def _cursor_json(c: Cursor) -> dict[str, Any]:
    return {"offset": c.offset, "stopped": c.stopped, "failed": c.failed, "need": c.need,
            "head": list(c.head), "tail": list(c.tail)}


def write(shard: Shard, about: dict[str, Any], out: BinaryIO) -> None:
    """Write `shard` to `out` as Parquet, with `about` (run, file set, identities…) added to
    its metadata."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = {name: len(next(iter(cols.values()))) for name, cols in shard.columns.items()}
    n = max([*rows.values(), len(shard.strings)])
    strings = pa.array(shard.strings, pa.string())

    def padded(a: Any) -> Any:
        return a if len(a) == n else pa.concat_arrays([a, pa.nulls(n - len(a), a.type)])

    names, arrays = [], []
    for name, cols in shard.columns.items():
        for c, values in cols.items():
            if c in STRING_COLUMNS.get(name, ()):
                ids = np.asarray(values, np.int32)
                a = pa.DictionaryArray.from_arrays(pa.array(ids, mask=ids < 0), strings)
            else:
                a = pa.array(np.ascontiguousarray(values))
            names.append(f"{name}.{c}")
            arrays.append(padded(a))
    names.append("strings")
    arrays.append(padded(strings))
    meta = {**about, "format": FORMAT, "rows": rows, "strings": len(shard.strings),
            "digests": "digest" in shard.columns["traces"], "modes": list(shard.modes),
            "warnings": list(shard.warnings), "suppressed": shard.suppressed,
            "corrupt": shard.corrupt, "trace_keys": [list(k) for k in shard.trace_keys],
            "cursors": {s: _cursor_json(c) for s, c in shard.cursors.items()}}
    table = pa.table(arrays, names=names).replace_schema_metadata(
        {META_KEY: json.dumps(meta).encode()})
    pq.write_table(table, out, compression="zstd", row_group_size=ROW_GROUP)


def metadata(data: Any) -> dict[str, Any]:
    """The JSON metadata of a shard file (`data`: its bytes or a readable file); ShardError
    when it has none of ours."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        source = pa.BufferReader(data) if isinstance(data, bytes | memoryview) else data
        pf = pq.ParquetFile(source)
        raw = (pf.schema_arrow.metadata or {}).get(META_KEY)
    except Exception as exc:  # pyarrow's errors on a damaged file are many kinds
        raise ShardError(f"not a Parquet file ({_line(exc)})") from None
    if raw is None or len(raw) > MAX_META:
        raise ShardError("no shard metadata")
    try:
        meta = json.loads(raw)
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise ShardError("shard metadata is not JSON") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise ShardError("not a shard of this format")
    return meta


def _line(exc: BaseException) -> str:
    return " ".join(f"{type(exc).__name__}: {exc}".split())[:200]


def _int(value: Any, what: str, lo: int = 0, hi: int = 1 << 62) -> int:
    if type(value) is not int or not lo <= value <= hi:
        raise ShardError(f"bad {what}")
    return value


def _bounds(meta: dict[str, Any], sizes: dict[str, int]) -> dict[str, int]:
    """Each part's rows, checked against what the source files can hold (`sizes`: bytes
    of each file of the file set, as the shard's identities say)."""
    rows = meta.get("rows")
    if not isinstance(rows, dict):
        raise ShardError("bad row counts")
    read = {s: _int(meta["cursors"][s]["offset"], "cursor", 0, sizes.get(s, 0)) for s in BIG}
    limit = {"traces": read["graph_execution_traces"] // RECORD_MIN,
             "executions": read["execution"] // RECORD_MIN, "outputs": read["execution"]}
    out = {}
    for part in spec(False):
        table = part.split(".")[0]
        out[part] = _int(rows.get(part), f"row count of {part}", 0, limit[table])
    return out


def read(data: Any, meta: dict[str, Any], sizes: dict[str, int]) -> Shard:
    """The shard in `data` (its bytes or a readable file, whose `metadata` is `meta`), every
    column checked; `sizes`: the bytes of the source files it claims to index. ShardError
    on anything else."""
    return read_rest(open_lazy(data, meta, sizes))


def read_rest(lazy: LazyShard) -> Shard:
    """A lazy shard's traces read in whole: the shard."""
    parts = list(lazy.trace_batches())
    lazy.shard.columns["traces"] = {
        c: np.concatenate([b[c] for b in parts]) if parts else np.zeros(0, dt)
        for c, dt in lazy.dtypes.items()}
    return lazy.shard


TRACE_CHECKED = ("kind", "offset")  # the trace columns that point somewhere: checked first


@dataclass
class LazyShard:
    """A checked shard whose traces' rows are read when asked (`trace_batches`, a row group
    at a time). `shard` holds everything else (its traces part: no rows). The trace columns
    that point elsewhere (kind: into the kinds; offset: into a file) were read and checked
    when it was opened, kept by row group until their rows are taken; the others (wall
    time, bad, slot, digest) hold values any row may hold."""

    shard: Shard
    rows: int  # trace rows
    dtypes: dict[str, np.dtype]
    pf: Any  # pyarrow.parquet.ParquetFile (None: in memory)
    checked: list[dict[str, np.ndarray] | None]  # kind and offset of each row group
    source: Any = None  # the file it is read from, when it is one (closed by its owner)

    @classmethod
    def of(cls, shard: Shard) -> LazyShard:
        """A shard already in memory (a host read here), given out as a lazy one is."""
        traces = shard.columns["traces"]
        rows = len(next(iter(traces.values())))
        dtypes = {c: a.dtype for c, a in traces.items()}
        held = [{c: a[i: i + ROW_GROUP] for c, a in traces.items()}
                for i in range(0, rows, ROW_GROUP)]
        shard.columns["traces"] = {c: np.zeros(0, dt) for c, dt in dtypes.items()}
        return cls(shard, rows, dtypes, None, list(held))

    def trace_batches(self) -> Iterator[dict[str, np.ndarray]]:
        """The traces' rows in file order, a row group at a time, every column."""
        rest = [f"traces.{c}" for c in self.dtypes if c not in TRACE_CHECKED]
        done = 0
        for g, known in enumerate(self.checked):
            assert known is not None, "trace batches are read once"
            self.checked[g] = None
            take = len(known["kind"])
            if self.pf is None:  # in memory (`of`): every column is there
                yield known
                continue
            try:
                table = self.pf.read_row_group(g, columns=rest)
            except Exception as exc:
                raise ShardError(f"unreadable traces past row {done} ({_line(exc)})") from None
            batch = dict(known)
            for c, dt in self.dtypes.items():
                if c not in known:
                    col = table.column(f"traces.{c}").slice(0, take)
                    if col.null_count:
                        raise ShardError(f"a null in traces.{c}")
                    batch[c] = np.ascontiguousarray(col.to_numpy(), dt)
            done += take
            yield batch


def _checked_traces(pf: Any, rows: int, n_kinds: int) -> list[dict[str, np.ndarray] | None]:
    """The kind and offset of every trace row, by row group, each checked."""
    out: list[dict[str, np.ndarray] | None] = []
    names = [f"traces.{c}" for c in TRACE_CHECKED]
    done = 0
    for g in range(pf.metadata.num_row_groups):
        if done >= rows:
            break
        table = pf.read_row_group(g, columns=names)
        take = min(table.num_rows, rows - done)
        part = {}
        for c, dt, hi in (("kind", np.int32, n_kinds), ("offset", np.int64, 1 << 62)):
            col = table.column(f"traces.{c}").slice(0, take)
            if col.null_count:
                raise ShardError(f"a null in traces.{c}")
            a = np.ascontiguousarray(col.to_numpy(), dt)
            if len(a) and (int(a.min()) < 0 or int(a.max()) >= hi):
                raise ShardError(f"traces.{c}: values out of range")
            part[c] = a
        out.append(part)
        done += take
    if done != rows:
        raise ShardError("fewer trace rows than it says")
    return out


def open_lazy(data: Any, meta: dict[str, Any], sizes: dict[str, int]) -> LazyShard:
    """The shard in `data` with every part read and checked but the traces' rows (see
    `LazyShard`); ShardError when it is not one."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    cursors = meta.get("cursors")
    if not isinstance(cursors, dict) or set(cursors) != set(BIG) or not all(
            isinstance(c, dict) for c in cursors.values()):
        raise ShardError("bad cursors")
    rows = _bounds(meta, sizes)
    n_strings = _int(meta.get("strings"), "string count", 0, sum(sizes.values()) + 1)
    digests = meta.get("digests") is True
    parts = spec(digests)
    want = {f"{p}.{c}": (pa.dictionary(pa.int32(), pa.string())
                         if c in STRING_COLUMNS.get(p, ()) else pa.from_numpy_dtype(dt))
            for p, cols in parts.items() for c, dt in cols.items()}
    want["strings"] = pa.string()
    pf = pq.ParquetFile(pa.BufferReader(data) if isinstance(data, bytes | memoryview)
                        else data)
    schema = pf.schema_arrow
    if sorted(schema.names) != sorted(want) or any(
            schema.field(name).type != t for name, t in want.items()):
        raise ShardError("its columns are not a shard's")
    n = max([*rows.values(), n_strings])
    md = pf.metadata
    if md.num_rows != n:
        raise ShardError("row counts do not match the file")
    unpacked = sum(md.row_group(g).total_byte_size for g in range(md.num_row_groups))
    if unpacked > MAX_UNCOMPRESSED * (sum(sizes.values()) + (1 << 20)):
        raise ShardError("its columns are larger than the files they index")
    whole = [name for name in want if not name.startswith("traces.")
             or name.startswith(("traces.kinds.", "traces.details."))]
    try:
        table = pf.read(columns=whole)
    except Exception as exc:
        raise ShardError(f"unreadable columns ({_line(exc)})") from None
    strings_col = table.column("strings").slice(0, n_strings)
    if strings_col.null_count:
        raise ShardError("a null in its string table")
    strings = strings_col.to_pylist()
    ids = {s: i for i, s in enumerate(strings)}
    columns: dict[str, dict[str, np.ndarray]] = {}
    for p, cols in parts.items():
        columns[p] = {}
        for c, dt in cols.items():
            if f"{p}.{c}" not in table.column_names:
                continue
            col = table.column(f"{p}.{c}").slice(0, rows[p])
            if c in STRING_COLUMNS.get(p, ()):
                columns[p][c] = _string_ids(col, ids)
            elif col.null_count:
                raise ShardError(f"a null in {p}.{c}")
            else:
                columns[p][c] = np.ascontiguousarray(col.to_numpy(), dt)
    del table
    n_kinds = len(columns["traces.kinds"]["fileset"])
    try:
        checked = _checked_traces(pf, rows["traces"], n_kinds)
    except ShardError:
        raise
    except Exception as exc:
        raise ShardError(f"unreadable columns ({_line(exc)})") from None
    # what `check` looks at of the traces (their number; kinds and offsets checked above)
    columns["traces"] = {c: np.broadcast_to(np.zeros(1, parts["traces"][c]), (rows["traces"],))
                         for c in TRACE_CHECKED}
    shard = Shard(str(meta.get("prefix", "")), strings, columns,
                  _trace_keys(meta.get("trace_keys"), n_strings), _ints(meta.get("modes")),
                  _warnings(meta.get("warnings")), _int(meta.get("suppressed"), "count"),
                  _int(meta.get("corrupt"), "count"),
                  {s: _cursor(cursors[s], sizes.get(s, 0)) for s in BIG})
    check(shard)
    shard.columns["traces"] = {c: np.zeros(0, dt) for c, dt in parts["traces"].items()}
    return LazyShard(shard, rows["traces"], parts["traces"], pf, checked)


def _string_ids(col: Any, ids: dict[str, int]) -> np.ndarray:
    """A dictionary column's values as ids into the shard's string table (null → -1)."""
    import pyarrow as pa

    arr = col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col
    if not isinstance(arr, pa.DictionaryArray):
        arr = arr.dictionary_encode()
    words = arr.dictionary.to_pylist()
    if any(w not in ids for w in words):
        raise ShardError("a string not in its string table")
    lut = np.array([ids[w] for w in words] + [-1], np.int64)
    idx = arr.indices.fill_null(-1).to_numpy(zero_copy_only=False).astype(np.int64)
    if len(idx) and (int(idx.min()) < -1 or int(idx.max()) >= len(words)):
        raise ShardError("a dictionary index out of range")
    return lut[idx].astype(np.int32)


def _ints(value: Any) -> list[int]:
    if not isinstance(value, list) or not all(type(v) is int and 0 <= v < 1 << 16
                                              for v in value):
        raise ShardError("bad modes")
    return value


def _warnings(value: Any) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(w, str) for w in value):
        raise ShardError("bad warnings")
    return [" ".join(w.split())[:1000] for w in value[:1000]]


def _trace_keys(value: Any, n_strings: int) -> list[tuple[int, int, int]]:
    if not isinstance(value, list):
        raise ShardError("bad trace keys")
    out = []
    for k in value:
        if (not isinstance(k, list) or len(k) != 3 or not all(type(v) is int for v in k)
                or not (0 <= k[0] < n_strings and 0 <= k[1] < n_strings
                        and -1 <= k[2] < n_strings)):
            raise ShardError("bad trace keys")
        out.append((k[0], k[1], k[2]))
    return out


def _cursor(value: dict[str, Any], size: int) -> Cursor:
    """A cursor as saved; its (device, inode) left unknown (another machine's, maybe)."""
    def pair(v: Any) -> tuple[int, int]:
        if not isinstance(v, list) or len(v) != 2 or not all(type(x) is int for x in v):
            raise ShardError("bad cursor")
        return (_int(v[0], "cursor", 0, 1 << 20), _int(v[1], "cursor", 0, (1 << 32) - 1))

    return Cursor(offset=_int(value.get("offset"), "cursor", 0, size),
                  stopped=value.get("stopped") is True, failed=value.get("failed") is True,
                  need=_int(value.get("need"), "cursor"), identity=None,
                  head=pair(value.get("head")), tail=pair(value.get("tail")))


def check(shard: Shard) -> None:
    """Every id a shard's columns use to point into another table is within it (the
    index cache's checks, `reader.cache.snapshot`, plus the executions' kept health)."""
    from reader.cache.files import CacheError
    from reader.cache.snapshot import _check_tables

    c = shard.columns
    alerts: dict[str, np.ndarray] = {"kind": np.zeros(0, np.int8),
                                     "row": np.zeros(0, np.int32)}
    try:
        _check_tables(c, alerts, len(shard.strings), 1)
    except CacheError as exc:
        raise ShardError(str(exc)) from None
    kept = c["executions.details"]["row"]
    n = len(c["executions"]["kind"])
    if len(kept) and (int(kept.min()) < 0 or int(kept.max()) >= n
                      or bool((np.diff(kept) <= 0).any())):
        raise ShardError("executions.details: rows out of range")
