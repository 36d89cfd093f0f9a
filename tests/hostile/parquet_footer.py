"""A Parquet file's footer (Thrift compact protocol) decoded and encoded again, to forge
what it claims: a row group's row count, a column chunk's value count or sizes — the
numbers a reader may size an allocation from. pyarrow writes only true footers; this
changes one number of a file pyarrow wrote and leaves every byte of its pages as they were.

A struct is a list of [field id, type, value] (value: an int, bytes, a float, a list
[element type, [values]] or a struct), kept in file order so that it encodes back to the
same bytes when nothing is changed.
"""

from __future__ import annotations

import struct
from typing import Any

STOP, TRUE, FALSE, BYTE, I16, I32, I64, DOUBLE, BINARY, LIST, SET, MAP, STRUCT = range(13)


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data, self.pos = data, 0

    def byte(self) -> int:
        self.pos += 1
        return self.data[self.pos - 1]

    def varint(self) -> int:
        shift = out = 0
        while True:
            b = self.byte()
            out |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                return out

    def zigzag(self) -> int:
        n = self.varint()
        return (n >> 1) ^ -(n & 1)

    def value(self, t: int) -> Any:
        if t in (TRUE, FALSE):
            return t == TRUE
        if t == BYTE:
            return self.byte()
        if t in (I16, I32, I64):
            return self.zigzag()
        if t == DOUBLE:
            self.pos += 8
            return struct.unpack("<d", self.data[self.pos - 8: self.pos])[0]
        if t == BINARY:
            n = self.varint()
            self.pos += n
            return self.data[self.pos - n: self.pos]
        if t in (LIST, SET):
            head = self.byte()
            n, et = head >> 4, head & 0x0F
            if n == 15:
                n = self.varint()
            return [et, [self.byte() == 1 if et in (TRUE, FALSE) else self.value(et)
                         for _ in range(n)]]
        if t == STRUCT:
            return self.struct()
        raise ValueError(f"type {t} not handled")

    def struct(self) -> list[list[Any]]:
        fields: list[list[Any]] = []
        last = 0
        while True:
            head = self.byte()
            if head == STOP:
                return fields
            delta, t = head >> 4, head & 0x0F
            fid = last + delta if delta else self.zigzag()
            fields.append([fid, t, self.value(t)])
            last = fid


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        if n < 0x80:
            out.append(n)
            return bytes(out)
        out.append(n & 0x7F | 0x80)
        n >>= 7


def _zigzag(n: int) -> bytes:
    return _varint((n << 1) ^ (n >> 63))


def _value(t: int, v: Any) -> bytes:
    if t in (TRUE, FALSE):
        return b""
    if t == BYTE:
        return bytes([v])
    if t in (I16, I32, I64):
        return _zigzag(v)
    if t == DOUBLE:
        return struct.pack("<d", v)
    if t == BINARY:
        return _varint(len(v)) + v
    if t in (LIST, SET):
        et, items = v
        head = bytes([len(items) << 4 | et]) if len(items) < 15 else \
            bytes([0xF0 | et]) + _varint(len(items))
        return head + b"".join(bytes([1 if x else 2]) if et in (TRUE, FALSE)
                               else _value(et, x) for x in items)
    if t == STRUCT:
        return encode(v)
    raise ValueError(f"type {t} not handled")


def encode(fields: list[list[Any]]) -> bytes:
    out, last = bytearray(), 0
    for fid, t, v in fields:
        if t in (TRUE, FALSE):
            t = TRUE if v else FALSE
        delta = fid - last
        out += bytes([delta << 4 | t]) if 0 < delta <= 15 else bytes([t]) + _zigzag(fid)
        out += _value(t, v)
        last = fid
    return bytes(out) + b"\0"


def field(fields: list[list[Any]], fid: int) -> list[Any]:
    """The [id, type, value] of field `fid` of a struct."""
    return next(f for f in fields if f[0] == fid)


def footer(data: bytes) -> list[list[Any]]:
    """The FileMetaData of the Parquet file `data`."""
    n = struct.unpack("<I", data[-8:-4])[0]
    return _Reader(data[-8 - n: -8]).struct()


def with_footer(data: bytes, meta: list[list[Any]]) -> bytes:
    """`data` with its footer replaced by `meta` (encoded)."""
    n = struct.unpack("<I", data[-8:-4])[0]
    raw = encode(meta)
    return data[: -8 - n] + raw + struct.pack("<I", len(raw)) + b"PAR1"


# FileMetaData: 3 num_rows, 4 row_groups; RowGroup: 1 columns, 2 total_byte_size,
# 3 num_rows; ColumnChunk: 3 meta_data; ColumnMetaData: 5 num_values,
# 6 total_uncompressed_size, 7 total_compressed_size
def forged(data: bytes, group: int, what: str, value: int, column: str | None = None) -> bytes:
    """`data` whose row group `group` claims `value` for `what` ("num_rows",
    "total_byte_size", or, of each column chunk — or of the one whose path is `column` —
    "num_values", "total_uncompressed_size", "total_compressed_size")."""
    meta = footer(data)
    rg = field(meta, 4)[2][1][group]
    if what in ("num_rows", "total_byte_size"):
        field(rg, {"total_byte_size": 2, "num_rows": 3}[what])[2] = value
        return with_footer(data, meta)
    fid = {"num_values": 5, "total_uncompressed_size": 6, "total_compressed_size": 7}[what]
    for chunk in field(rg, 1)[2][1]:
        md = field(chunk, 3)[2]
        path = b".".join(field(md, 3)[2][1]).decode()
        if column is None or path == column:
            field(md, fid)[2] = value
    return with_footer(data, meta)
