"""What a Parquet file's pages unpack to, as their own headers say, read before Arrow
decompresses any of them.

Why: Arrow allocates a page's `uncompressed_page_size` (its header's claim) and inflates
the page into it. The footer's sizes (`total_byte_size`, `total_uncompressed_size`) are
claims of their own, never compared with the pages: a 44 KB shard whose string table held
one 512 MB word (zstd packs it to a few KB), its footer saying 1000 bytes, passed the
footer's bound and took 2.2 GB to open before the text's own bound could drop it
(`tests/hostile/test_held_out_shard_files.py`). So the page headers of each column chunk
are read (the chunk's byte range as Arrow computes it: it reads no page beyond it) just
before Arrow reads it, and their claims summed against the bound (`Budget`).

Thrift's compact protocol, as much of it as a page header uses; a header that does not
parse, or runs past the chunk, is a damaged file (ValueError).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

_HEAD = 1 << 12  # bytes read for one page header (ours are ~30-60; statistics add a few)
_I32, _STRUCT, _LIST, _SET, _BINARY, _DOUBLE = 5, 12, 9, 10, 8, 7


class _Cursor:
    def __init__(self, data: bytes) -> None:
        self.data, self.pos = data, 0

    def byte(self) -> int:
        if self.pos >= len(self.data):
            raise ValueError("a page header runs past its bytes")
        self.pos += 1
        return self.data[self.pos - 1]

    def varint(self) -> int:
        out = shift = 0
        while True:
            b = self.byte()
            out |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                return out
            if shift > 70:
                raise ValueError("a varint too long in a page header")

    def skip(self, t: int, depth: int) -> None:
        if depth > 16:
            raise ValueError("a page header nested too deep")
        if t in (1, 2):  # booleans: in the field header
            return
        if t == 3:
            self.pos += 1
        elif t in (4, 5, 6):
            self.varint()
        elif t == _DOUBLE:
            self.pos += 8
        elif t == _BINARY:
            n = self.varint()  # (before `pos` is read: `pos += varint()` loses its bytes)
            self.pos += n
        elif t in (_LIST, _SET):
            head = self.byte()
            n = head >> 4 if head >> 4 != 15 else self.varint()
            for _ in range(n):
                if head & 0x0F in (1, 2):  # (a list's booleans: a byte each)
                    self.byte()
                else:
                    self.skip(head & 0x0F, depth + 1)
        elif t == _STRUCT:
            self.fields(depth + 1)
        else:
            raise ValueError(f"a page header with a field of type {t}")

    def fields(self, depth: int = 0) -> dict[int, int]:
        """A struct's i32 fields (the rest skipped)."""
        out: dict[int, int] = {}
        last = 0
        while True:
            head = self.byte()
            if head == 0:
                return out
            delta, t = head >> 4, head & 0x0F
            if delta:
                fid = last + delta
            else:
                n = self.varint()
                fid = (n >> 1) ^ -(n & 1)
            if t == _I32:
                n = self.varint()
                out[fid] = (n >> 1) ^ -(n & 1)
            else:
                self.skip(t, depth)
            last = fid


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    out = shift = 0
    while True:
        b = data[pos]
        pos += 1
        out |= (b & 0x7F) << shift
        if not b & 0x80:
            return out, pos
        shift += 7
        if shift > 70:
            raise ValueError("a varint too long in a page header")


class _Slow(Exception):
    """A header with a list in it (no page header has one today): read by `_Cursor`."""


def _page_header(data: bytes) -> tuple[int, int, int]:
    """(the page's unpacked size, its packed size, the header's length) — `_Cursor`'s
    reading without its calls: ~4x faster, the cost of an open from many big shards
    (a header a row group a column: ~5,000 for a host of a million traces)."""
    pos, lasts = 0, [0]
    sizes: dict[int, int] = {}
    try:
        while True:
            head = data[pos]
            pos += 1
            if head == 0:
                lasts.pop()
                if not lasts:
                    return sizes.get(2, -1), sizes.get(3, -1), pos
                continue
            delta, t = head >> 4, head & 0x0F
            if delta:
                fid = lasts[-1] + delta
            else:
                v, pos = _varint(data, pos)
                fid = (v >> 1) ^ -(v & 1)
            lasts[-1] = fid
            if t in (4, 5, 6):
                v, pos = _varint(data, pos)
                if t == _I32 and len(lasts) == 1:
                    sizes[fid] = (v >> 1) ^ -(v & 1)
            elif t == _BINARY:
                v, pos = _varint(data, pos)
                pos += v
            elif t == _STRUCT:
                lasts.append(0)
                if len(lasts) > 16:
                    raise ValueError("a page header nested too deep")
            elif t == 3:
                pos += 1
            elif t == _DOUBLE:
                pos += 8
            elif t not in (1, 2):
                raise _Slow
    except IndexError:
        raise ValueError("a page header runs past its bytes") from None


def _read(src: Any, pos: int, n: int) -> bytes:
    if isinstance(src, bytes | memoryview):
        return bytes(src[pos: pos + n])
    return os.pread(src.fileno(), n, pos)


def _chunk(src: Any, col: Any) -> int:
    """What the pages of one column chunk (`col`: its pyarrow ColumnChunkMetaData) unpack
    to, as their headers say; ValueError for a damaged header."""
    total = 0
    pos = col.data_page_offset
    d = col.dictionary_page_offset
    if col.has_dictionary_page and d is not None and 0 < d < pos:
        pos = d  # (where Arrow starts the chunk)
    end = pos + col.total_compressed_size
    while pos < end:
        data = _read(src, pos, min(_HEAD, end - pos))
        try:
            size, packed, length = _page_header(data)
        except _Slow:
            head = _Cursor(data)
            fields = head.fields()
            size, packed, length = fields.get(2, -1), fields.get(3, -1), head.pos
        if size < 0 or packed < 0:
            raise ValueError("a page header without its sizes")
        total += size
        pos += length + packed
    return total


@dataclass
class Budget:
    """The bytes a shard's pages may unpack to, spent as its row groups are read: each
    column chunk's page headers are read just before Arrow reads the chunk (an open reads
    the first row groups; the merge the others as it gets there), so the check costs an
    open's first alert nothing more than the chunks it reads."""

    src: Any  # the file's bytes, or the open file
    md: Any  # its pyarrow FileMetaData
    limit: int
    spent: int = 0
    seen: set[tuple[int, int]] = field(default_factory=set)
    index: dict[str, int] = field(default_factory=dict)

    def check(self, groups: Iterable[int], names: Iterable[str]) -> None:
        """ValueError when the chunks of `names` in row groups `groups` would take the
        pages read so far past the limit (or a header is damaged)."""
        if not self.index:
            schema = self.md.schema
            self.index = {schema.column(i).path: i for i in range(self.md.num_columns)}
        cols = [self.index[n] for n in names]
        for g in groups:
            rg = self.md.row_group(g)
            for c in cols:
                if (g, c) in self.seen:
                    continue
                self.seen.add((g, c))
                self.spent += _chunk(self.src, rg.column(c))
                if self.spent > self.limit:
                    raise ValueError(f"its pages unpack to more than {self.limit} bytes")
