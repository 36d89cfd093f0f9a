"""Source files and stack frames: the small files that say where code came from.

`.stack_frames` gives each frame id a (file index, line, function); the file index counts
`.source_files` records of the same file set in order of first appearance (as TensorFlow
indexes them), so frames are resolved per file set. Source text is not kept: only where each
file's record is, so it can be re-read on demand (a few recent files are cached) —
`.source_files` is often megabytes of TensorFlow's own code that nobody looks at.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator

from google.protobuf.message import DecodeError

from reader.errors import ReaderError
from reader.index.frames import Frame
from reader.io.problems import ProblemLog
from reader.io.records import parse_event
from reader.proto import tfdbg_events_pb2 as pb
from reader.proto import tfdbg_lite_pb2 as plite

SOURCE_CACHE = 16
# A source file's record bigger than this is not shown: its lines become one Python object
# each (~60 bytes for a 2-byte line), so showing a forged 130 MB record would cost GBs. The
# biggest real Python files are a few MB.
MAX_SOURCE_RECORD = 8 << 20
# Frames of one stack resolved and shown (the innermost ones): Python's own recursion limit
# is 1,000, so a record listing more is damaged or crafted, and resolving, laying out and
# writing hundreds of thousands of frames would cost minutes for nothing.
MAX_STACK = 2000
ReadSource = Callable[[int, int], pb.DebugEvent]  # (file set, offset) → the record


class SourceIndex:
    """Where each source file's record is, and every stack frame, of one run."""

    def __init__(self) -> None:
        self._keys: list[list[tuple[str, str]]] = []  # per file set, in file order
        self._where: dict[tuple[str, str], tuple[int, int]] = {}  # → (file set, offset)
        self._frames: dict[str, tuple[int, int, int, str, int]] = {}
        self._cache: OrderedDict[tuple[str, str], list[str] | None] = OrderedDict()

    def add_fileset(self) -> None:
        self._keys.append([])

    @property
    def num_files(self) -> int:
        return len(self._where)

    @property
    def num_frames(self) -> int:
        return len(self._frames)

    def files(self) -> list[tuple[str, str]]:
        """(host, path) of every captured source file."""
        return list(self._where)

    def ingest_sources(self, fsi: int, records: Iterable[tuple[int, memoryview]], name: str,
                       problems: ProblemLog) -> None:
        keys = self._keys[fsi]
        for offset, payload in records:
            ev = plite.SourceEventHead()  # the name only: lines are skipped, not made objects
            try:
                ev.ParseFromString(payload)  # type: ignore[arg-type]  # upb takes any buffer
            except (DecodeError, ValueError):
                problems.skip_record(name, offset, "could not be parsed")
                continue
            if not ev.HasField("source_file"):
                problems.skip_record(name, offset, "is not a source_file record")
                continue
            key = (ev.source_file.host_name, ev.source_file.file_path)
            if key not in self._where:
                self._where[key] = (fsi, offset)
            if key not in keys:  # TensorFlow indexes files by first appearance
                keys.append(key)

    def ingest_frames(self, fsi: int, records: Iterable[tuple[int, memoryview]], name: str,
                      problems: ProblemLog) -> None:
        for offset, payload in records:
            ev = parse_event(payload, name, offset, "stack_frame_with_id", problems)
            if ev is None:
                continue
            sf = ev.stack_frame_with_id
            flc = sf.file_line_col
            self._frames[sf.id] = (fsi, flc.file_index, flc.line, flc.func, flc.col)

    def frame_rows(self) -> Iterator[tuple[str, str, str, int, str, int]]:
        """(frame id, host, file, line, function, column) of every stack frame, as recorded
        (a frame whose file index is out of range gets the file `<file #n>`)."""
        for fid, (fsi, file_index, line, func, col) in self._frames.items():
            keys = self._keys[fsi]
            host, path = keys[file_index] if 0 <= file_index < len(keys) else (
                "", f"<file #{file_index}>")
            yield fid, host, path, line, func, col

    def stack(self, frame_ids: tuple[str, ...] | list[str]) -> list[Frame]:
        """Resolve frame ids (outermost first, as recorded) to Frames; past `MAX_STACK`,
        one unresolved frame says how many outer frames were left out."""
        out = []
        if len(frame_ids) > MAX_STACK:
            out.append(Frame(f"<{len(frame_ids) - MAX_STACK} outer frames not shown>", 0, "?",
                             resolved=False))
            frame_ids = frame_ids[-MAX_STACK:]
        for fid in frame_ids:
            rec = self._frames.get(fid)
            if rec is None:
                out.append(Frame("<unknown frame>", 0, "?", resolved=False))
                continue
            fsi, file_index, line, func, col = rec
            keys = self._keys[fsi]
            if 0 <= file_index < len(keys):
                host, path = keys[file_index]
                out.append(Frame(path, line, func, host, col))
            else:
                out.append(Frame(f"<file #{file_index}>", line, func, "", col, resolved=False))
        return out

    def lines(self, host: str, path: str, read: ReadSource,
              problems: ProblemLog) -> list[str] | None:
        """The logdir's copy of a source file (lines without newlines), or None.

        An unknown host falls back to the same path on any host (a frame's host may differ
        from the host that wrote the source file)."""
        key = (host, path)
        if key in self._cache:
            self._cache.move_to_end(key)
            return self._cache[key]
        loc = self._where.get(key)
        if loc is None:
            loc = next((v for (_h, p), v in self._where.items() if p == path), None)
        lines: list[str] | None = None
        if loc is not None:
            try:
                ev = read(loc[0], loc[1])
                lines = [ln.rstrip("\r\n") for ln in ev.source_file.lines]
            except ReaderError as exc:
                problems.warn(str(exc))
        self._cache[key] = lines
        if len(self._cache) > SOURCE_CACHE:
            self._cache.popitem(last=False)
        return lines
