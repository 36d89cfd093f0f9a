"""A Parquet shard opened for a merge that reads its big parts as it needs them.

A shard's traces, executions and outputs are most of its bytes; `open_lazy` reads and checks
everything else (its string table, the kinds, the kept health, the metadata) and leaves those
three parts to be read a row group at a time (`LazyShard.batches`), each batch checked as it
comes: no null, every kind within the kinds, every offset within a file. The merge
(`reader.index.shard_stream`) takes their rows in wall-time order window by window, so an
open shows the first alerts having read only the first row groups of every host; `read`
reads a shard whole (what `tfdbg-tui index` checks a shard with).

The layout is `reader.index.parquet_shards`'s; what is trusted of it, and why, is said there.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from reader.index.order import in_order
from reader.index.parquet_pages import Budget
from reader.index.parquet_shards import (
    MAX_UNCOMPRESSED,
    ROW_GROUP,
    STRING_COLUMNS,
    ShardError,
    _bounds,
    _cursor,
    _int,
    _ints,
    _line,
    _null_as,
    _string_ids,
    _trace_keys,
    _warnings,
    check,
    spec,
    values,
)
from reader.index.shards import BIG, Shard

Columns = dict[str, np.ndarray]
PARTS = ("traces", "executions", "outputs")  # read as the merge needs them
_FILE_OF = {"traces": "graph_execution_traces", "executions": "execution"}  # (offsets)
IN_ORDER_KEY = "executions_in_order"  # metadata: see `executions_in_order`


def executions_in_order(columns: dict[str, Columns]) -> bool:
    """Are a shard's executions in wall-time order, each with its block of outputs right
    after the previous one's (what merging them window by window needs; `tfdbg-tui index`
    says so in the shard's metadata)?"""
    e, o = columns["executions"], columns["outputs"]
    lens = columns["executions.kinds"]["n_outputs"][e["kind"]].astype(np.int64)
    first = np.concatenate([[0], np.cumsum(lens)[:-1]]) if len(lens) else lens
    return (in_order(e["wall_time"]) and int(lens.sum()) == len(o["execution"])
            and bool(np.array_equal(e["first_output"], first))
            and bool(np.array_equal(o["execution"], np.repeat(np.arange(len(lens)), lens))))


@dataclass
class LazyShard:
    """A checked shard whose traces, executions and outputs are read when asked
    (`batches`); `shard` holds everything else, those parts with no rows."""

    shard: Shard
    rows: dict[str, int]  # of each part of PARTS
    dtypes: dict[str, dict[str, np.dtype]]
    pf: Any  # pyarrow.parquet.ParquetFile; None for a shard in memory (`of`)
    in_order: bool  # `executions_in_order` (as its metadata says, for a file)
    held: dict[str, Columns] = field(default_factory=dict)  # `of`'s parts
    source: Any = None  # the file it is read from, when it is one (closed by its owner)
    primed: dict[str, Iterator[Columns]] = field(default_factory=dict)
    # Arrow's Parquet file reader is not thread-safe: two row groups read at once through
    # one `pf` fail ("ReadRangeCache did not find matching cache entry") or abort the
    # process. The merge reads a host's parts ahead in threads: one read of a shard at a
    # time (other hosts' shards still read beside it).
    lock: threading.Lock = field(default_factory=threading.Lock)
    budget: Budget | None = None  # what its pages may still unpack to (None: in memory)

    def prime(self) -> None:
        """Read the first row group of each part now: ShardError if one is not right (the
        shard is then not used at all)."""
        for p in PARTS:
            it = self._batches(p)
            first = next(it, None)
            self.primed[p] = it if first is None else _chain(first, it)

    @classmethod
    def of(cls, shard: Shard) -> LazyShard:
        """A shard already in memory (a host read here), given out as a lazy one is."""
        held = {p: shard.columns[p] for p in PARTS}
        rows = {p: len(next(iter(c.values()))) for p, c in held.items()}
        dtypes = {p: {c: a.dtype for c, a in cols.items()} for p, cols in held.items()}
        ordered = executions_in_order(shard.columns)
        for p in PARTS:
            shard.columns[p] = {c: a[:0] for c, a in held[p].items()}
        return cls(shard, rows, dtypes, None, ordered, held)

    def batches(self, part: str) -> Iterator[Columns]:
        """The rows of `part` in file order, a row group at a time, checked; ShardError
        (one line) at the first that is not right. Once per part."""
        return self.primed.pop(part, None) or self._batches(part)

    def _batches(self, part: str) -> Iterator[Columns]:
        n, done = self.rows[part], 0
        if self.pf is None:
            for i in range(0, n, ROW_GROUP):
                yield {c: a[i: i + ROW_GROUP] for c, a in self.held[part].items()}
            return
        names = [f"{part}.{c}" for c in self.dtypes[part]]
        # a record starts before where the shard's read of its file stopped
        covered = self.shard.cursors[_FILE_OF.get(part, "execution")].offset
        kinds = self.shard.columns.get(f"{part}.kinds")
        n_kinds = len(kinds["fileset"]) if kinds is not None else 0
        groups, have = [], 0
        for g in range(self.pf.metadata.num_row_groups):
            if have >= n:
                break
            groups.append(g)
            have += self.pf.metadata.row_group(g).num_rows

        def read(g: int) -> Any:
            with self.lock:
                if self.budget is not None:
                    self.budget.check([g], names)
                return self.pf.read_row_group(g, columns=names, use_threads=False)

        for g in groups:
            try:
                table = read(g)
            except Exception as exc:
                raise ShardError(f"unreadable {part} past row {done} ({_line(exc)})") from None
            take = min(table.num_rows, n - done)
            batch = {}
            for c, dt in self.dtypes[part].items():
                col = table.column(f"{part}.{c}").slice(0, take)
                if col.null_count:
                    raise ShardError(f"a null in {part}.{c}")
                try:
                    batch[c] = values(col, dt)
                except ValueError as exc:  # buffers shorter than they say
                    raise ShardError(f"{part}.{c}: {_line(exc)}") from None
            if take and kinds is not None and (int(batch["kind"].min()) < 0
                                               or int(batch["kind"].max()) >= n_kinds):
                raise ShardError(f"{part}.kind: out of range past row {done}")
            if take and "offset" in batch and (int(batch["offset"].min()) < 0
                                               or int(batch["offset"].max()) >= covered):
                raise ShardError(f"{part}.offset: out of range past row {done}")
            done += take
            yield batch
        if done != n:
            raise ShardError(f"fewer {part} rows than it says")


def _chain(first: Columns, rest: Iterator[Columns]) -> Iterator[Columns]:
    yield first
    yield from rest


def whole(lazy: LazyShard) -> Shard:
    """A lazy shard's parts read in: the shard, checked as `read` checks it."""
    for p in PARTS:
        got = list(lazy.batches(p))
        lazy.shard.columns[p] = {
            c: np.concatenate([b[c] for b in got]) if got else np.zeros(0, dt)
            for c, dt in lazy.dtypes[p].items()}
    check(lazy.shard)
    return lazy.shard


def read(data: Any, meta: dict[str, Any], sizes: dict[str, int]) -> Shard:
    """The shard in `data` (its bytes or a readable file, whose metadata is `meta`), every
    column checked; `sizes`: the bytes of the source files it claims to index. ShardError
    on anything else."""
    return whole(open_lazy(data, meta, sizes))


def _head(pf: Any, names: list[str], rows: int, budget: Budget) -> Any:
    """The first `rows` rows of columns `names`, read from the row groups that hold them
    only (a shard's shorter parts end in nulls as long as the longest: not read)."""
    groups, have = [], 0
    for g in range(pf.metadata.num_row_groups):
        if have >= rows:
            break
        groups.append(g)
        have += pf.metadata.row_group(g).num_rows
    budget.check(groups, names)
    table = pf.read_row_groups(groups, columns=names, use_threads=False)
    if table.num_rows < rows:
        raise ShardError("fewer rows than it says")
    return table.slice(0, rows)


def _strings(col: Any, limit: int) -> list[str]:
    """A shard's string table (read as a dictionary column), its text checked to come to at
    most `limit` bytes before it is decoded. Why: Parquet stores a column's repeated values
    once (a dictionary page) however many rows repeat them, and the footer's sizes count
    them once — a 25 KB shard whose 40 strings were one 10 MB word decoded to 1.2 GB (each
    row its own copy), passing every other check. Rows share their word's text here."""
    import pyarrow as pa

    chunks = col.chunks if isinstance(col, pa.ChunkedArray) else [col]
    total, out = 0, []
    for chunk in chunks:
        words = chunk.dictionary
        ends = np.frombuffer(words.buffers()[1], np.int32, count=len(words) + 1,
                             offset=words.offset * 4)
        # (from its buffers: `to_numpy` imports pandas, 0.4 s of CPU; no nulls here)
        idx = _null_as(chunk.indices, 0)
        total += int(np.diff(ends).astype(np.int64)[idx].sum()) if len(idx) else 0
        if total > limit:
            raise ShardError("its string table is larger than the files it indexes")
        text = words.to_pylist()
        out += [text[i] for i in idx.tolist()]
    return out


def open_lazy(data: Any, meta: dict[str, Any], sizes: dict[str, int]) -> LazyShard:
    """The shard in `data` with every part read and checked but PARTS' rows (see
    `LazyShard`); ShardError when it is not one."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    cursors = meta.get("cursors")
    if not isinstance(cursors, dict) or set(cursors) != set(BIG) or not all(
            isinstance(c, dict) for c in cursors.values()):
        raise ShardError("bad cursors")
    rows = _bounds(meta, sizes)
    n_strings = _int(meta.get("strings"), "string count", 0, sum(sizes.values()) + 1)
    parts = spec(meta.get("digests") is True)
    want = {f"{p}.{c}": (pa.dictionary(pa.int32(), pa.string())
                         if c in STRING_COLUMNS.get(p, ()) else pa.from_numpy_dtype(dt))
            for p, cols in parts.items() for c, dt in cols.items()}
    want["strings"] = pa.dictionary(pa.int32(), pa.string())  # (as `read_dictionary` gives)
    pf = pq.ParquetFile(pa.BufferReader(data) if isinstance(data, bytes | memoryview)
                        else data, read_dictionary=["strings"])
    schema = pf.schema_arrow
    if sorted(schema.names) != sorted(want) or any(
            schema.field(name).type != t for name, t in want.items()):
        raise ShardError("its columns are not a shard's")
    md = pf.metadata
    if md.num_rows != max([*rows.values(), n_strings]):
        raise ShardError("row counts do not match the file")
    # each row group's own count too: Arrow sizes a row group's columns from it (2**30 rows
    # claimed for one of a 25 KB shard took 760 MB; 2**40 had the process killed)
    counts = [md.row_group(g).num_rows for g in range(md.num_row_groups)]
    if sum(counts) != md.num_rows or any(not 0 <= c <= ROW_GROUP for c in counts):
        raise ShardError("its row groups' row counts do not match the file")
    unpacked = sum(md.row_group(g).total_byte_size for g in range(md.num_row_groups))
    if unpacked > MAX_UNCOMPRESSED * (sum(sizes.values()) + (1 << 20)):
        raise ShardError("its columns are larger than the files they index")
    # what the pages' own headers claim, what Arrow allocates: checked as each row group
    # is read (`parquet_pages`)
    budget = Budget(data, md, MAX_UNCOMPRESSED * (sum(sizes.values()) + (1 << 20)))
    small = [p for p in parts if p not in PARTS]
    try:  # each part from the row groups its rows are in (the rest of its column: nulls)
        strings_col = _head(pf, ["strings"], n_strings, budget).column("strings")
        tables = {p: _head(pf, [f"{p}.{c}" for c in parts[p]], rows[p], budget)
                  for p in small}
    except Exception as exc:
        raise ShardError(f"unreadable columns ({_line(exc)})") from None
    if strings_col.null_count:
        raise ShardError("a null in its string table")
    strings = _strings(strings_col, MAX_UNCOMPRESSED * (sum(sizes.values()) + (1 << 20)))
    ids = {s: i for i, s in enumerate(strings)}
    columns: dict[str, Columns] = {}
    for p in small:
        columns[p] = {}
        for c, dt in parts[p].items():
            col = tables[p].column(f"{p}.{c}")
            if c in STRING_COLUMNS.get(p, ()):
                columns[p][c] = _string_ids(col, ids)
            elif col.null_count:
                raise ShardError(f"a null in {p}.{c}")
            else:
                columns[p][c] = values(col, dt)
    del tables
    # what `check` looks at of the big parts is their number of rows: their values are
    # checked batch by batch as they are read
    for p in PARTS:
        columns[p] = {c: np.broadcast_to(np.zeros(1, dt), (rows[p],))
                      for c, dt in parts[p].items()}
    shard = Shard(str(meta.get("prefix", "")), strings, columns,
                  _trace_keys(meta.get("trace_keys"), n_strings), _ints(meta.get("modes")),
                  _warnings(meta.get("warnings")), _int(meta.get("suppressed"), "count"),
                  _int(meta.get("corrupt"), "count"),
                  {s: _cursor(cursors[s], sizes.get(s, 0)) for s in BIG})
    check(shard)
    for p in PARTS:
        columns[p] = {c: np.zeros(0, dt) for c, dt in parts[p].items()}
    lazy = LazyShard(shard, {p: rows[p] for p in PARTS}, {p: parts[p] for p in PARTS}, pf,
                     meta.get(IN_ORDER_KEY) is True, budget=budget)
    lazy.prime()
    return lazy
