"""Following a run's files: one cursor per file, read in chunks from where it last stopped.

This is the file-reading half of the reader (the index is the other half, in
`reader.index`): it knows which files grew, reads the new bytes chunk by chunk, frames them
into records (`reader.io.tfrecord`) and hands each chunk's records to a consumer. Everything
it notices goes to the `ProblemLog`, one line naming the file (and the byte offset):

- only regular files are read (`reader.io.regular`): a FIFO, a device, a directory or a
  dangling symlink named like a logdir file is skipped with a warning, never opened blocking;
- a partial record at the end of a chunk is kept for the next one; a record longer than the
  chunk buffer is checked (CRC) by streaming and then loaded in one buffer of its own size,
  or, while it is not complete in the file, waited for without reading it again and again;
- a length no record can have (`tfrecord.MAX_RECORD`) is damage: that file stops there,
  every record before it loaded;
- a file that shrank, was replaced (another inode under its name) or rewritten in place (its
  first bytes changed) since it was read is no longer followed: reading on from the old
  offset would mix two runs' records, and re-reading it from byte 0 would too (the index
  already holds the old run), so the warning asks to reopen the logdir instead.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from reader.io import remote_file, remote_stream
from reader.io.discovery import FileSet
from reader.io.headroom import FACTOR, ensure_room, fits
from reader.io.problems import ProblemLog
from reader.io.regular import (
    NotRegularFile,
    Readable,
    Stat,
    check_regular,
    fstat,
    open_regular,
    pread,
)
from reader.io.remote import is_remote
from reader.io.remote_file import RemoteFile
from reader.io.tfrecord import (
    FOOTER_SIZE,
    HEADER_SIZE,
    MAX_RECORD,
    ScanState,
    claimed_length,
    masked_crc32c,
    oversized,
    scan_records,
    update_crc,
)

CHUNK = 8 << 20
# Structure first (traces need op types), then traces, then executions.
READ_ORDER = ("source_files", "stack_frames", "graphs", "graph_execution_traces", "execution")
PREFETCH_FILES = 4  # objects whose reading starts while those before them are parsed
HEAD = 256  # how many of a file's first bytes are remembered (as a CRC) to recognise a rewrite

Records = Iterator[tuple[int, memoryview]]  # (byte offset, payload) of each record
Consumer = Callable[[Records], None]


@dataclass
class Cursor:
    """Where reading one file stopped, and whether it is still followed."""

    offset: int = 0
    stopped: bool = False  # broken framing, shrank, replaced or rewritten: never read again
    failed: bool = False  # could not be opened, or not a regular file
    need: int = 0  # a record longer than the chunk buffer ends here: wait until the file does
    # the last read ended on an error (said then, and read again next time): what is left
    # unread is not a record the file ends in before it is whole
    interrupted: bool = False
    identity: tuple[int, int] | None = None  # (device, inode) of the file read so far
    head: tuple[int, int] = (0, 0)  # (n, masked CRC) of its first n bytes read so far
    # an object (reader.io.remote) is replaced whole as it grows: (n, masked CRC) of the n
    # bytes before `offset`, checked with `head` before reading on from a new version
    tail: tuple[int, int] = (0, 0)
    # an object's version (ETag) read so far, and the CRC-32C of the first `crc_len` bytes
    # read of it (kept as they are read): a new, longer version is read on only if all of
    # the bytes read before are unchanged in it (`_rewritten`); crc_len < offset: unknown
    version: str = ""
    crc: int = 0
    crc_len: int = 0


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
        self._warm: list[tuple[str, str, int]] = []  # prefetched objects (`prefetch`)

    def plan(self, filesets: list[FileSet]) -> list[PendingRead]:
        """The files that grew since they were last read, in `READ_ORDER` (one stat each)."""
        plan: list[PendingRead] = []
        for fsi, fs in enumerate(filesets):
            # checked (and warned about) tensors first: the app shows the first warnings only,
            # and an unusable tensor file costs alerts, an unusable source file only context
            for suffix in reversed(READ_ORDER):
                if suffix not in fs.present:  # listed, or seen by `refresh_present`
                    continue
                cur = self._cursors.setdefault((fsi, suffix), Cursor())
                if cur.stopped or cur.failed:
                    continue
                path = fs.path(suffix)
                try:
                    st = check_regular(path)
                except NotRegularFile as exc:
                    self.problems.warn(exc.warning(os.path.basename(path)))
                    cur.failed = True
                    continue
                except OSError:
                    continue  # not there (yet): a live run creates its files as it goes
                if self._changed(cur, st, os.path.basename(path)):
                    continue
                if st.st_size > cur.offset and st.st_size >= cur.need:
                    plan.append(PendingRead(fsi, suffix, st.st_size))
        plan.sort(key=lambda p: (READ_ORDER.index(p.suffix), p.fileset))
        return plan

    def _changed(self, cur: Cursor, st: Stat, name: str) -> bool:
        """Stop following a file that shrank or is another file than the one read so far."""
        if cur.identity is not None and (st.st_dev, st.st_ino) != cur.identity:
            self.problems.warn(f"{name}: replaced by another file since it was read; it is no "
                               "longer followed (reopen the logdir to read the new one)")
        elif st.st_size < cur.offset:
            self.problems.warn(f"{name}: file shrank; it was rewritten and is no longer "
                               "followed (reopen the logdir to read it again)")
        else:
            return False
        cur.stopped = True
        return True

    def _rewritten(self, cur: Cursor, f: Readable, name: str) -> bool:
        """Did the first bytes read so far change (the file rewritten in place)? An object
        is replaced whole each time it grows: a new version is read on only if every byte
        read of the old one is the same in it — all of them read again and compared by
        their CRC (`_same_prefix`; not parsed again), the first and last 256 only when the
        bytes read before were not all seen here (restored from a shard) — else it holds
        another run's data, or the same run's changed, and is not mixed into the index."""
        if isinstance(f, RemoteFile) and cur.offset and cur.version == f.st.version:
            return False  # the same version (its reads are conditional on it)
        n, crc = cur.head
        tn, tcrc = cur.tail
        same = (n == 0 or masked_crc32c(pread(f, n, 0)) == crc) and (
            tn == 0 or masked_crc32c(pread(f, tn, cur.offset - tn)) == tcrc)
        if same and isinstance(f, RemoteFile) and cur.offset and cur.crc_len == cur.offset:
            same = self._same_prefix(cur, f)
        if same:
            return False
        self.problems.warn(f"{name}: rewritten since it was read (bytes already read changed); "
                           "it is no longer followed (reopen the logdir to read it again)")
        cur.stopped = True
        return True

    @staticmethod
    def _same_prefix(cur: Cursor, f: Readable) -> bool:
        """Do the first `cur.offset` bytes of `f` (a new version) have the CRC of those read?"""
        f.seek(0)
        buf = bytearray(min(CHUNK, cur.offset))
        crc, left = 0, cur.offset
        with memoryview(buf) as view:
            while left:
                got = f.readinto(view[: min(left, len(view))])
                if not got:
                    return False  # shorter than what was read: not the same
                crc = update_crc(view[:got], crc)
                left -= got
        return crc == cur.crc

    @staticmethod
    def _note_edges(cur: Cursor, buf: bytearray, base: int, consumed: int,
                    tail: bool) -> None:
        """Remember the first and (for an object) the last bytes consumed, from the chunk
        itself, as each chunk is consumed: a read stopped mid-way (an object deleted or
        replaced, the network gone) leaves the checks of the bytes read so far in place,
        so the next read cannot read on from a version whose read bytes differ."""
        if base == 0 and cur.head[0] < HEAD:
            n = min(consumed, HEAD)
            cur.head = (n, masked_crc32c(bytes(buf[:n])))
        if tail and base + consumed > HEAD and consumed >= HEAD:
            cur.tail = (HEAD, masked_crc32c(bytes(buf[consumed - HEAD: consumed])))
        if tail and cur.crc_len == base:  # an object: every byte read, in its CRC
            with memoryview(buf) as view:
                cur.crc = update_crc(view[:consumed], cur.crc)
            cur.crc_len = base + consumed

    @staticmethod
    def _remember_head(cur: Cursor, f: Readable) -> None:
        n = min(cur.offset, HEAD)
        if n > cur.head[0]:
            data = pread(f, n, 0)
            cur.head = (len(data), masked_crc32c(data))
        if isinstance(f, RemoteFile) and cur.offset > n:
            tn = min(cur.offset - n, HEAD)
            data = pread(f, tn, cur.offset - tn)
            cur.tail = (len(data), masked_crc32c(data))

    def cursor(self, fsi: int, suffix: str) -> Cursor:
        """The cursor of one file (a fresh one at byte 0 if it was never read)."""
        return self._cursors.setdefault((fsi, suffix), Cursor())

    def prefetch(self, reads: list[tuple[PendingRead, str]]) -> None:
        """Start fetching the bytes of the next `PREFETCH_FILES` files to be read (`(read,
        path)` in reading order), if they are objects: the network works while the index
        parses the file before them. Local files need no help (the page cache reads ahead)."""
        for p, path in reads[:PREFETCH_FILES]:
            if is_remote(path):
                key = remote_file.prefetch(path, self._cursors[(p.fileset, p.suffix)].offset)
                if key is not None and key not in self._warm:
                    self._warm.append(key)

    def settle(self) -> None:
        """Stop the prefetches no read took over (a file that was not read after all)."""
        for key in self._warm:
            remote_stream.drop(key)
        self._warm.clear()

    def pending_bytes(self, plan: list[PendingRead]) -> int:
        return sum(p.size - self._cursors[(p.fileset, p.suffix)].offset for p in plan)

    def read(self, fsi: int, suffix: str, path: str, consume: Consumer) -> Iterator[ChunkRead]:
        """Read one file from its cursor, chunk by chunk, giving each chunk's records to
        `consume`; yields after each chunk (so the caller can report progress)."""
        cur = self._cursors[(fsi, suffix)]
        name = os.path.basename(path)
        try:
            f = open_regular(path)
        except NotRegularFile as exc:
            self.problems.warn(exc.warning(name))
            cur.failed = True
            return
        except OSError as exc:
            self.problems.read_failed(f"{name}: cannot read ({exc.strerror or exc})")
            cur.failed = True
            return
        try:
            with f:
                st = fstat(f)
                if self._changed(cur, st, name) or self._rewritten(cur, f, name):
                    return
                cur.identity = (st.st_dev, st.st_ino)
                cur.interrupted = False
                if isinstance(f, RemoteFile):
                    cur.version = f.st.version
                yield from self._chunks(cur, f, name, st.st_size - cur.offset, consume)
                self._remember_head(cur, f)
        except OSError as exc:  # an object deleted mid-read, the network gone, an I/O error
            cur.interrupted = True
            where = path if isinstance(f, RemoteFile) else name
            self.problems.read_failed(f"{where}: reading stopped at byte {cur.offset} "
                                      f"({exc.strerror or exc}); what was read before is kept")

    def _chunks(self, cur: Cursor, f: Readable, name: str, remaining: int,
                consume: Consumer) -> Iterator[ChunkRead]:
        f.seek(cur.offset)
        # One buffer, refilled in place: the unread tail of a chunk (a record cut by the
        # chunk's end) moves to its front. Consumers copy what they keep of a chunk.
        buf = bytearray(min(CHUNK, max(remaining, 0) + HEADER_SIZE) or HEADER_SIZE)
        have = 0
        while True:
            if have >= HEADER_SIZE:  # a record cut by the chunk's end starts the buffer
                length = claimed_length(buf)
                if length is not None and length > MAX_RECORD:
                    self.problems.warn(oversized(name, cur.offset, length))
                    self.problems.corrupt_records += 1
                    cur.stopped = True
                    return
                if length is not None and HEADER_SIZE + length + FOOTER_SIZE > len(buf):
                    done = self._long_record(cur, f, name, length, buf, consume)
                    if done is None:
                        return  # not all written yet: wait until the file is `need` long
                    yield ChunkRead(done, remaining)
                    have = 0
                    f.seek(cur.offset)
            with memoryview(buf) as free:
                got = f.readinto(free[have:])
            if not got:
                break
            have += got
            base = cur.offset
            state = ScanState(resume_offset=base)
            ensure_room(have, name, base)  # out of memory here, not mid-parse
            with memoryview(buf) as view:
                consume(scan_records(view[:have], base, state, name))
            for problem in state.problems:
                self.problems.warn(problem)
            self.problems.corrupt_records += state.bad_records
            consumed = state.resume_offset - base
            cur.offset = state.resume_offset
            if consumed:
                self._note_edges(cur, buf, base, consumed, isinstance(f, RemoteFile))
            buf[: have - consumed] = buf[consumed:have]
            have -= consumed
            yield ChunkRead(consumed, remaining)
            if state.stopped:
                self.problems.corrupt_records += 1
                cur.stopped = True
                break

    def _long_record(self, cur: Cursor, f: Readable, name: str, length: int,
                     scratch: bytearray, consume: Consumer) -> int | None:
        """A record at `cur.offset` longer than the chunk buffer `scratch`.

        While the file does not hold all of it, remember where it will end and return None
        (it is not read again and again while it is being written). Then check its CRC by
        streaming it through `scratch` (a damaged one costs no memory, however long), load
        an intact one into one buffer of exactly its size and give it to `consume`. Returns
        the bytes consumed; `cur.offset` is then past the record."""
        start = cur.offset
        total = HEADER_SIZE + length + FOOTER_SIZE
        if fstat(f).st_size < start + total:
            cur.need = start + total
            return None
        cur.need = 0
        whole = cur.crc_len == start and isinstance(f, RemoteFile)  # (see `_note_edges`)
        f.seek(start)
        every = update_crc(f.read(HEADER_SIZE), cur.crc) if whole else 0
        f.seek(start + HEADER_SIZE)
        crc, left = 0, length
        with memoryview(scratch) as view:
            while left:
                got = f.readinto(view[: min(left, len(view))])
                if not got:
                    return None  # cut short meanwhile: the next plan() says why
                crc = update_crc(view[:got], crc)
                if whole:
                    every = update_crc(view[:got], every)
                left -= got
        footer = f.read(FOOTER_SIZE)
        if len(footer) < FOOTER_SIZE:
            return None
        if whole:
            cur.crc, cur.crc_len = update_crc(footer, every), start + total
        why = ""
        if int.from_bytes(footer, "little") != masked_crc32c(b"", crc):
            why = "failed its CRC check"
        else:
            record = None
            if not fits(total):  # room to parse it too (`reader.io.headroom`)
                why = (f"holds {length} bytes; parsing it may take up to {FACTOR}x that, more "
                       "than this process's address-space limit leaves,")
            else:
                try:
                    record = bytearray(total)
                except MemoryError:
                    why = f"holds {length} bytes, more than this process can load,"
            if record is not None:
                f.seek(start)
                f.readinto(record)
                state = ScanState(resume_offset=start)
                with memoryview(record) as view:
                    consume(scan_records(view, start, state, name))
                del record
                for problem in state.problems:
                    self.problems.warn(problem)
                self.problems.corrupt_records += state.bad_records
        if why:
            self.problems.skip_record(name, start, why)
        cur.offset = start + total
        return total
