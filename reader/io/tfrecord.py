"""TFRecord framing with CRC-32C, for files that may still be growing.

A record is `uint64 length | uint32 masked_crc(length) | payload | uint32 masked_crc(payload)`,
all little-endian. We scan a byte buffer and yield `(offset, payload)` pairs. The scanner is
the hot loop of the whole reader (millions of records), so it works on one memoryview and
keeps per-record work to two `unpack_from` calls and two C CRC calls.

Outcomes per record (docs/format.md):
- a partial record at the end of the data: "not yet written" — stop silently and report the
  offset where it starts so the next read resumes there (the file layer, `reader.io.cursors`,
  then tells a record still being written from a length no record can have: `MAX_RECORD`);
- a bad length CRC: the framing can no longer be trusted — stop this file there, warn;
- a bad payload CRC: skip that record, count it, warn, go on.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from reader import _native

_MASK_DELTA = 0xA282EAD8
_HEADER = struct.Struct("<QI")
_FOOTER = struct.Struct("<I")
HEADER_SIZE = _HEADER.size  # 12
FOOTER_SIZE = _FOOTER.size  # 4


def _crc_function() -> Callable[..., int]:
    """CRC-32C(data, crc): the compiled core's when it is built (it is loaded anyway, and
    the `crc32c` package would add ~4 MB resident to every run), else the package's."""
    if _native.ingest is not None:
        return _native.ingest.crc32c  # type: ignore[no-any-return]
    import crc32c

    return crc32c.crc32c  # type: ignore[no-any-return]


_crc = _crc_function()

# The longest payload a record can have. Every record is one serialized protobuf message
# (a DebugEvent), and protobuf cannot serialize or parse a message of 2 GiB or more (its
# sizes are signed 32-bit), so TensorFlow never wrote a longer one: a length past this is
# damage, not a record still being written, however far the file may still grow.
MAX_RECORD = (1 << 31) - 1


def claimed_length(header: bytes | bytearray | memoryview) -> int | None:
    """The payload length a 12-byte record header claims, or None if its CRC is wrong."""
    length, length_crc = _HEADER.unpack_from(header, 0)
    return length if masked_crc32c(memoryview(header)[:8]) == length_crc else None


def oversized(name: str, offset: int, length: int) -> str:
    """The warning for a record header claiming more than `MAX_RECORD` bytes."""
    return (f"{name}: record at byte {offset} claims {length} bytes, more than any record can "
            "hold; the rest of this file is skipped")


def update_crc(data: bytes | bytearray | memoryview, crc: int = 0) -> int:
    """The (unmasked) CRC-32C of what `crc` covered followed by `data`."""
    return int(_crc(data, crc))


def masked_crc32c(data: bytes | bytearray | memoryview, crc: int = 0) -> int:
    """CRC-32C of `data` (continuing `crc`, the unmasked CRC of what came before it),
    masked the way TFRecord stores it."""
    crc = _crc(data, crc)
    return (((crc >> 15) | (crc << 17)) + _MASK_DELTA) & 0xFFFFFFFF


def frame_record(payload: bytes) -> bytes:
    """Wrap one payload in TFRecord framing (used by the TF-free writer and by tests)."""
    header = struct.pack("<Q", len(payload))
    return b"".join(
        (
            header,
            struct.pack("<I", masked_crc32c(header)),
            payload,
            struct.pack("<I", masked_crc32c(payload)),
        )
    )


@dataclass
class ScanState:
    """What a scan learned besides the records: where to resume, and what was damaged."""

    resume_offset: int = 0
    stopped: bool = False  # framing broken (bad length CRC): never read this file further
    bad_records: int = 0
    problems: list[str] = field(default_factory=list)


class RecordScan:
    """The records of one buffer, as `scan_records` returns them: an iterable of
    `(absolute_offset, payload)`.

    It also keeps what it scans (`buf`, `base_offset`, `state`, `name`), so that a compiled
    consumer (`reader._native`) can take the whole buffer at once instead of one record at a
    time; it then hands unusual records back through `scan_records` on a slice of the buffer,
    so both ways share the framing rules and the warnings below.
    """

    __slots__ = ("_it", "base_offset", "buf", "name", "state")

    def __init__(self, buf: bytes | bytearray | memoryview, base_offset: int, state: ScanState,
                 name: str) -> None:
        self.buf = buf
        self.base_offset = base_offset
        self.state = state
        self.name = name
        self._it: Iterator[tuple[int, memoryview]] | None = None

    def __iter__(self) -> Iterator[tuple[int, memoryview]]:
        if self._it is None:
            self._it = _scan(self.buf, self.base_offset, self.state, self.name)
        return self._it

    def __next__(self) -> tuple[int, memoryview]:
        return next(iter(self))


def scan_records(
    buf: bytes | bytearray | memoryview,
    base_offset: int,
    state: ScanState,
    name: str = "",
) -> RecordScan:
    """Every complete, intact record in `buf` as `(absolute_offset, payload)`.

    `buf` holds the file's bytes starting at file offset `base_offset`. Once the records are
    consumed, `state.resume_offset` is the absolute offset of the first byte not consumed
    (the start of a partial record, or the end of `buf`).
    """
    return RecordScan(buf, base_offset, state, name)


def _scan(
    buf: bytes | bytearray | memoryview,
    base_offset: int,
    state: ScanState,
    name: str,
) -> Iterator[tuple[int, memoryview]]:
    mv = memoryview(buf)
    n = len(mv)
    pos = 0
    unpack_header = _HEADER.unpack_from
    unpack_footer = _FOOTER.unpack_from
    crc = _crc
    delta = _MASK_DELTA
    # Records of one file repeat a handful of lengths: remember each verified (length, crc)
    # pair instead of recomputing the header CRC for every record.
    good_lengths: dict[int, int] = {}
    while n - pos >= HEADER_SIZE:
        length, length_crc = unpack_header(mv, pos)
        if good_lengths.get(length) != length_crc:
            c = crc(mv[pos : pos + 8])
            if length_crc != ((((c >> 15) | (c << 17)) + delta) & 0xFFFFFFFF):
                state.stopped = True
                state.problems.append(
                    f"{name}: corrupt record length at byte {base_offset + pos}; "
                    "the rest of this file is skipped"
                )
                break
            good_lengths[length] = length_crc
        end = pos + HEADER_SIZE + length + FOOTER_SIZE
        if end > n:
            break  # partial record: not yet written
        payload = mv[pos + HEADER_SIZE : end - FOOTER_SIZE]
        c = crc(payload)
        if unpack_footer(mv, end - FOOTER_SIZE)[0] != (
            (((c >> 15) | (c << 17)) + delta) & 0xFFFFFFFF
        ):
            state.bad_records += 1
            state.problems.append(
                f"{name}: record at byte {base_offset + pos} failed its CRC check and was skipped"
            )
        else:
            yield base_offset + pos, payload
        pos = end
    state.resume_offset = base_offset + pos
