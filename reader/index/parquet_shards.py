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
from types import SimpleNamespace
from typing import Any, BinaryIO

import numpy as np

from reader.index.schema import ExecutionTable, OutputTable, TraceTable, tensor_parts
from reader.index.shards import BIG, STRING_KINDS, Shard
from reader.io.cursors import Cursor

FORMAT = 1
META_KEY = b"tfdbg-tui.shard"
# rows a row group: an open reads a shard's parts row group by row group, merging hosts in
# wall-time order as it goes (`reader.index.shard_stream`). The first is smaller: an open
# decodes it of every host before it can show the first alerts; the rest as it gets there.
# The merge holds about two row groups of each part of each host (the rows not merged yet,
# the next one read ahead): 64 Ki rows a group held ~100 MB for ten hosts, 16 Ki hold ~25
# (for ~10% more of the merge's CPU time, and as many more windows).
ROW_GROUP = 1 << 14
FIRST_GROUP = 1 << 13
# How the big parts' columns that are not a few repeated values are encoded: wall times
# split by byte (their high bytes repeat) and row numbers or offsets, which mostly grow, by
# their differences, rather than dictionary-encoded (there are too many distinct values:
# Arrow tried, then fell back to plain, for every row group). 12.5M records on 10 hosts:
# 110 -> 17 MB of shards, and half the CPU time to decode them (an open reads every row).
ENCODINGS = {"wall_time": "BYTE_STREAM_SPLIT", "offset": "DELTA_BINARY_PACKED",
             "first_output": "DELTA_BINARY_PACKED", "execution": "DELTA_BINARY_PACKED"}
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

    def padded(values: Any, missing: Any = None) -> Any:
        """`values` as an Arrow array of n rows, the rows past its own null. Made from one
        numpy array and a mask: concatenating each short column with n nulls (62 columns,
        most a few rows long, padded to a host's million traces) took 1.4 s of a 3.4 s
        task."""
        m = len(values)
        out = np.zeros(n, values.dtype)
        out[:m] = values
        mask = np.ones(n, bool)
        mask[:m] = False if missing is None else missing
        return pa.array(out, mask=mask)

    names, arrays = [], []
    for name, cols in shard.columns.items():
        for c, values in cols.items():
            if c in STRING_COLUMNS.get(name, ()):
                ids = np.asarray(values, np.int32)
                a = pa.DictionaryArray.from_arrays(padded(np.maximum(ids, 0), ids < 0),
                                                   strings)
            else:
                a = padded(np.ascontiguousarray(values))
            names.append(f"{name}.{c}")
            arrays.append(a)
    names.append("strings")
    arrays.append(strings if len(strings) == n
                  else pa.concat_arrays([strings, pa.nulls(n - len(strings), pa.string())]))
    meta = {**about, "format": FORMAT, "rows": rows, "strings": len(shard.strings),
            "digests": "digest" in shard.columns["traces"], "modes": list(shard.modes),
            "warnings": list(shard.warnings), "suppressed": shard.suppressed,
            "corrupt": shard.corrupt, "trace_keys": [list(k) for k in shard.trace_keys],
            "cursors": {s: _cursor_json(c) for s, c in shard.cursors.items()}}
    table = pa.table(arrays, names=names).replace_schema_metadata(
        {META_KEY: json.dumps(meta).encode()})
    encoded = {f"{p}.{c}": e for p in ("traces", "executions", "outputs")
               for c, e in ENCODINGS.items() if f"{p}.{c}" in names}
    with pq.ParquetWriter(out, table.schema, compression="zstd", column_encoding=encoded,
                          use_dictionary=[n for n in names if n not in encoded]) as writer:
        writer.write_table(table.slice(0, FIRST_GROUP), row_group_size=FIRST_GROUP)
        if n > FIRST_GROUP:
            writer.write_table(table.slice(FIRST_GROUP), row_group_size=ROW_GROUP)


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
    idx = _null_as(arr.indices, -1)
    if len(idx) and (int(idx.min()) < -1 or int(idx.max()) >= len(words)):
        raise ShardError("a dictionary index out of range")
    return lut[idx].astype(np.int32)


def values(col: Any, dtype: np.dtype) -> np.ndarray:
    """A fixed-width numeric Arrow column without nulls (an Array or a ChunkedArray) as a
    numpy array of `dtype`, from its buffers: pyarrow's `to_numpy` imports pandas (0.4 s,
    more than an open from shards takes to its first alert)."""
    import pyarrow as pa

    chunks = col.chunks if isinstance(col, pa.ChunkedArray) else [col]
    own = np.dtype(col.type.to_pandas_dtype())
    parts = [np.frombuffer(c.buffers()[1], own, count=len(c), offset=c.offset * own.itemsize)
             for c in chunks if len(c)]
    if not parts:
        return np.zeros(0, dtype)
    return np.ascontiguousarray(np.concatenate(parts) if len(parts) > 1 else parts[0], dtype)


def _null_as(indices: Any, missing: int) -> np.ndarray:
    """An int32 Arrow array's values (int64), `missing` where null — from its buffers
    (`values`; fill_null imports pandas too)."""
    n, off = len(indices), indices.offset
    if n == 0:
        return np.zeros(0, np.int64)
    validity, data = indices.buffers()[:2]
    values = np.frombuffer(data, np.int32, count=n, offset=off * 4).astype(np.int64)
    if indices.null_count and validity is not None:
        bits = np.unpackbits(np.frombuffer(validity, np.uint8), bitorder="little")
        values[bits[off: off + n] == 0] = missing
    return values


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
