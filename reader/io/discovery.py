"""Finding file sets and runs in a logdir.

One writer writes one file set `tfdbg_events.<epoch>.<host>.<suffix>`. File sets sharing a
`tfdbg_run_id` are one run seen from several hosts; different run ids are different runs
(TensorFlow's reader refuses such a directory; we list them and let the user choose).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from google.protobuf.message import DecodeError

from reader.errors import LogdirError
from reader.io import regular
from reader.io.regular import NotRegularFile, open_regular
from reader.io.remote import is_remote
from reader.io.tfrecord import (
    FOOTER_SIZE,
    HEADER_SIZE,
    ScanState,
    claimed_length,
    scan_records,
)
from reader.proto import tfdbg_events_pb2 as pb

SUFFIXES = ("metadata", "source_files", "stack_frames", "graphs", "execution",
            "graph_execution_traces")
PREFIX = "tfdbg_events."


@dataclass
class FileSet:
    """One writer's six files. `prefix` is the full path without the suffix."""

    prefix: str
    host: str
    timestamp: int
    run_id: str = ""
    tensorflow_version: str = ""
    file_version: str = ""
    start_wall_time: float = 0.0
    present: set[str] = field(default_factory=set)
    problems: list[str] = field(default_factory=list)

    def path(self, suffix: str) -> str:
        return f"{self.prefix}.{suffix}"

    @property
    def name(self) -> str:
        return os.path.basename(self.prefix)


@dataclass
class Run:
    """All file sets of one `tfdbg_run_id`, earliest first."""

    run_id: str
    filesets: list[FileSet]

    @property
    def start_wall_time(self) -> float:
        return min((fs.start_wall_time or fs.timestamp) for fs in self.filesets)

    @property
    def hosts(self) -> list[str]:
        return sorted({fs.host for fs in self.filesets})

    @property
    def tensorflow_version(self) -> str:
        return next((fs.tensorflow_version for fs in self.filesets if fs.tensorflow_version), "")


def _split_name(filename: str) -> tuple[str, str] | None:
    """'tfdbg_events.123.host.a.b.graphs' → ('tfdbg_events.123.host.a.b', 'graphs')."""
    if not filename.startswith(PREFIX):
        return None
    for suffix in SUFFIXES:
        if filename.endswith("." + suffix):
            return filename[: -len(suffix) - 1], suffix
    return None


METADATA_READ = 1 << 20  # a metadata record is a few hundred bytes; read no more than this


def _read_metadata(fs: FileSet) -> None:
    """Read the run id (and versions) from the first record of the `.metadata` file; a
    file that is not regular, empty or damaged leaves them unknown and says why."""
    path = fs.path("metadata")
    name = os.path.basename(path)
    try:
        with open_regular(path) as f:
            data = f.read(METADATA_READ)
    except NotRegularFile as exc:
        fs.problems.append(exc.warning(name))
        return
    except OSError as exc:
        fs.problems.append(f"{name}: cannot read ({exc.strerror})")
        return
    state = ScanState()
    for _, payload in scan_records(data, 0, state, name):
        ev = pb.DebugEvent()
        try:
            ev.ParseFromString(payload)  # type: ignore[arg-type]  # upb takes any buffer
        except DecodeError:
            fs.problems.append(f"{name}: metadata record is corrupt")
            return
        if ev.WhichOneof("what") == "debug_metadata":
            md = ev.debug_metadata
            fs.run_id = md.tfdbg_run_id
            fs.tensorflow_version = md.tensorflow_version
            fs.file_version = md.file_version
            fs.start_wall_time = ev.wall_time
        return
    if state.problems:
        fs.problems.extend(state.problems)
        return
    length = claimed_length(data[:HEADER_SIZE]) if len(data) >= HEADER_SIZE else None
    if length is not None and length + HEADER_SIZE + FOOTER_SIZE > METADATA_READ:
        fs.problems.append(f"{name}: record at byte 0 claims {length} bytes, far more than a "
                           "metadata record holds (run id unknown)")
    elif not data:
        fs.problems.append(f"{name}: empty, no metadata record (run id unknown)")
    else:
        fs.problems.append(f"{name}: metadata record at byte 0 is incomplete (run id unknown)")


def discover(logdir: str) -> list[FileSet]:
    """All file sets under `logdir` (not recursive), with their metadata read. `logdir` may
    be a URL (`reader.io.remote`): a missing bucket, a wrong credential or a network error
    is a LogdirError of one line naming it."""
    if is_remote(logdir):
        try:
            names = regular.listdir(logdir)
        except FileNotFoundError:
            raise LogdirError(f"{logdir}: no such bucket or folder (nothing listed there)"
                              ) from None
        except OSError as exc:
            raise LogdirError(f"{logdir}: {exc.strerror or exc}") from None
    else:
        names = _local_names(logdir)
    return _filesets(logdir, names)


def _local_names(logdir: str) -> list[str]:
    if not os.path.exists(logdir):
        raise LogdirError(f"{logdir}: no such directory")
    if not os.path.isdir(logdir):
        raise LogdirError(f"{logdir}: not a directory (expected a tfdbg2 logdir)")
    try:
        return os.listdir(logdir)
    except OSError as exc:
        raise LogdirError(f"{logdir}: cannot list directory ({exc.strerror})") from None


def _filesets(logdir: str, names: list[str]) -> list[FileSet]:
    sets: dict[str, FileSet] = {}
    for name in sorted(names):
        split = _split_name(name)
        if split is None:
            continue
        stem, suffix = split
        fs = sets.get(stem)
        if fs is None:
            parts = stem[len(PREFIX):].split(".", 1)
            ts = int(parts[0]) if parts[0].isascii() and parts[0].isdigit() else 0  # not "²"
            host = parts[1] if len(parts) > 1 else ""
            fs = sets[stem] = FileSet(regular.join(logdir, stem), host, ts)
        fs.present.add(suffix)
    for fs in sets.values():
        if "metadata" in fs.present:
            _read_metadata(fs)
        missing = [s for s in SUFFIXES if s not in fs.present]
        if missing:
            fs.problems.append(f"{fs.name}: missing file(s) {', '.join('.' + m for m in missing)}")
    return sorted(sets.values(), key=lambda f: (f.start_wall_time or f.timestamp, f.host))


def group_runs(filesets: list[FileSet]) -> list[Run]:
    """Group file sets into runs, oldest run first.

    A file set without readable metadata joins the only run there is, or forms its own run
    keyed by its file name, so its data still loads.
    """
    by_id: dict[str, list[FileSet]] = {}
    orphans: list[FileSet] = []
    for fs in filesets:
        if fs.run_id:
            by_id.setdefault(fs.run_id, []).append(fs)
        else:
            orphans.append(fs)
    for fs in orphans:
        if len(by_id) == 1:
            next(iter(by_id.values())).append(fs)
        else:
            by_id.setdefault(fs.name, []).append(fs)
    runs = [Run(rid, sorted(sets, key=lambda f: (f.start_wall_time or f.timestamp, f.host)))
            for rid, sets in by_id.items()]
    return sorted(runs, key=lambda r: r.start_wall_time)


def select_run(runs: list[Run], wanted: str | None, logdir: str) -> Run:
    """The run named by `wanted` (an id or a unique prefix of one), else the newest."""
    if not runs:
        raise LogdirError(
            f"{logdir}: no tfdbg2 data here (expected tfdbg_events.* files written by "
            "tf.debugging.experimental.enable_dump_debug_info)"
        )
    if wanted is None:
        return runs[-1]
    exact = [r for r in runs if r.run_id == wanted]
    if exact:
        return exact[0]
    matches = [r for r in runs if r.run_id.startswith(wanted)]
    if len(matches) == 1:
        return matches[0]
    ids = ", ".join(r.run_id for r in runs)
    if not matches:
        raise LogdirError(f"{logdir}: no run {wanted!r}; runs here: {ids}")
    raise LogdirError(f"{logdir}: run {wanted!r} is ambiguous; runs here: {ids}")


def new_filesets(logdir: str, known: set[str], run_id: str) -> list[FileSet]:
    """File sets of run `run_id` that appeared since `known` (prefixes) were found — another
    host starting late. Cheap when there are none: one `listdir`, no metadata read."""
    try:
        names = regular.listdir(logdir)
    except OSError:
        return []
    stems = {regular.join(logdir, n.rsplit(".", 1)[0]) for n in names
             if n.startswith(PREFIX) and n.endswith(".metadata")}
    if stems <= known:
        return []
    try:
        fresh = [fs for fs in discover(logdir) if fs.prefix not in known]
    except LogdirError:
        return []
    return [fs for fs in fresh if fs.run_id == run_id]


def refresh_present(filesets: list[FileSet]) -> None:
    """Note the files that did not exist at first but exist now."""
    for fs in filesets:
        fs.present.update(s for s in SUFFIXES[1:] if regular.exists(fs.path(s)))
