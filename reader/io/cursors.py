"""Following a run's files: one cursor per file, read in chunks from where it last stopped.

This is the file-reading half of the reader (the index is the other half, in
`reader.index`): it knows which files grew, reads the new bytes chunk by chunk, frames them
into records (`reader.io.tfrecord`) and hands each chunk's records to a consumer. A partial
record at the end of a chunk is kept for the next one; a broken length stops that one file;
a file that shrank was rewritten and is no longer followed. Everything it notices goes to
the `ProblemLog`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from reader.io.discovery import FileSet
from reader.io.problems import ProblemLog
from reader.io.tfrecord import HEADER_SIZE, ScanState, scan_records

CHUNK = 8 << 20
# Structure first (traces need op types), then traces, then executions.
READ_ORDER = ("source_files", "stack_frames", "graphs", "graph_execution_traces", "execution")

Records = Iterator[tuple[int, memoryview]]  # (byte offset, payload) of each record
Consumer = Callable[[Records], None]


@dataclass
class Cursor:
    """Where reading one file stopped, and whether it is still followed."""

    offset: int = 0
    stopped: bool = False  # broken framing or rewritten: never read again
    failed: bool = False  # could not be opened


@dataclass(frozen=True)
class PendingRead:
    """A file that grew: which file set, which file, how big it is now."""

    fileset: int
    suffix: str
    size: int


@dataclass(frozen=True)
class ChunkRead:
    """What one chunk added: bytes consumed, and the bytes the file had to read in all."""

    consumed: int
    remaining: int


class FileFollower:
    """The cursors of every file of a run, and the reading of what was appended since."""

    def __init__(self, problems: ProblemLog) -> None:
        self.problems = problems
        self._cursors: dict[tuple[int, str], Cursor] = {}

    def plan(self, filesets: list[FileSet]) -> list[PendingRead]:
        """The files that grew since they were last read, in `READ_ORDER` (one stat each)."""
        plan: list[PendingRead] = []
        for fsi, fs in enumerate(filesets):
            for suffix in READ_ORDER:
                cur = self._cursors.setdefault((fsi, suffix), Cursor())
                if cur.stopped or cur.failed:
                    continue
                try:
                    size = os.stat(fs.path(suffix)).st_size
                except OSError:
                    continue
                if size < cur.offset:
                    self.problems.warn(f"{os.path.basename(fs.path(suffix))}: file shrank; "
                                       "it was rewritten and is no longer followed")
                    cur.stopped = True
                    continue
                if size > cur.offset:
                    plan.append(PendingRead(fsi, suffix, size))
        plan.sort(key=lambda p: (READ_ORDER.index(p.suffix), p.fileset))
        return plan

    def cursor(self, fsi: int, suffix: str) -> Cursor:
        """The cursor of one file (a fresh one at byte 0 if it was never read)."""
        return self._cursors.setdefault((fsi, suffix), Cursor())

    def pending_bytes(self, plan: list[PendingRead]) -> int:
        return sum(p.size - self._cursors[(p.fileset, p.suffix)].offset for p in plan)

    def read(self, fsi: int, suffix: str, path: str, consume: Consumer) -> Iterator[ChunkRead]:
        """Read one file from its cursor, chunk by chunk, giving each chunk's records to
        `consume`; yields after each chunk (so the caller can report progress)."""
        cur = self._cursors[(fsi, suffix)]
        name = os.path.basename(path)
        try:
            f = open(path, "rb")
        except OSError as exc:
            self.problems.warn(f"{name}: cannot read ({exc.strerror})")
            cur.failed = True
            return
        with f:
            f.seek(cur.offset)
            remaining = os.fstat(f.fileno()).st_size - cur.offset
            # One buffer, refilled in place: the unread tail of a chunk (a record cut by the
            # chunk's end) moves to its front. Consumers copy what they keep of a chunk.
            buf = bytearray(min(CHUNK, max(remaining, 0) + HEADER_SIZE) or HEADER_SIZE)
            have = 0
            while True:
                if have == len(buf):  # one record longer than the buffer: grow it
                    buf = buf + bytes(len(buf))
                with memoryview(buf) as free:
                    got = f.readinto(free[have:])
                if not got:
                    break
                have += got
                base = cur.offset
                state = ScanState(resume_offset=base)
                with memoryview(buf) as view:
                    consume(scan_records(view[:have], base, state, name))
                for problem in state.problems:
                    self.problems.warn(problem)
                self.problems.corrupt_records += state.bad_records
                consumed = state.resume_offset - base
                cur.offset = state.resume_offset
                buf[: have - consumed] = buf[consumed:have]
                have -= consumed
                yield ChunkRead(consumed, remaining)
                if state.stopped:
                    self.problems.corrupt_records += 1
                    cur.stopped = True
                    break
