"""Where a run's Parquet shards live, when one may be trusted, and writing one (the task
`tfdbg-tui index` maps over file sets on an engine).

Shards of LOGDIR are under `LOGDIR/.tfdbg-index/` (`s3://bucket/run/.tfdbg-index/` for a
bucket), one `<file set name>.parquet` each, or in the folder `$TFDBG_TUI_SHARDS` names
(`tfdbg-tui index --out URL`). A shard is used for its file set only if it is *current*
— the same trust rules as the index cache (SECURITY.md, `reader.cache.snapshot`):

- it says which bytes it indexed: the identity of each of its file set's six files (an
  object: name, size and ETag or generation; a local file: size, times and hashes of its
  first and last bytes and of all of them, or of 512 blocks spread over a big one), the
  endpoint the objects were read from (`reader.io.remote.source`) and the code that read
  them (`reader.cache.store.code_stamp`); every one must hold now (a local file may have
  grown since: the rows appended are read on from the shard's cursors). A local file's
  device and inode are not compared: workers on other machines see other numbers for the
  same shared file system;
- a shard file of a local folder is opened only if it is a regular file (no symlink),
  writable by its owner alone, owned by this user, by root or by the owner of the logdir
  (a colleague's run), in a folder of the same kind;
- its columns are checked (`reader.index.parquet_shards`).

A shard that is not current is dropped with a warning and its file set read from the logdir:
never trusted, never a crash.
"""

from __future__ import annotations

import errno
import os
import stat
import time
from dataclasses import dataclass, field
from typing import Any

from reader.cache.snapshot import ALL_FILES, file_identity
from reader.cache.snapshot import still_holds as cache_still_holds
from reader.index.parquet_shards import ShardError, metadata, read, write
from reader.index.shards import Shard, index_fileset
from reader.io import regular
from reader.io.discovery import FileSet
from reader.io.remote import (
    error_for,
    filesystem,
    is_remote,
    normalize,
    one_pass,
    seed_pass,
    source,
    stat_file,
)

INDEX_DIR = ".tfdbg-index"
SHARDS_ENV = "TFDBG_TUI_SHARDS"
EXT = ".parquet"
SLACK = 1 << 20  # a shard file bigger than twice its source bytes plus this is not ours
_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def folder(logdir: str, out: str | None = None) -> str:
    """The folder of `logdir`'s shards: `out`, else `$TFDBG_TUI_SHARDS`, else the logdir's
    own `.tfdbg-index`."""
    chosen = out or os.environ.get(SHARDS_ENV)
    if chosen:
        return normalize(chosen) if is_remote(chosen) else os.path.abspath(chosen)
    return regular.join(logdir, INDEX_DIR)


def shard_path(where: str, fs: FileSet) -> str:
    return regular.join(where, fs.name + EXT)


def identities(fs: FileSet) -> dict[str, Any]:
    """The identity of each file of a file set (None: not there)."""
    return {s: file_identity(fs.path(s)) for s in ALL_FILES}


def _portable(ident: Any) -> Any:
    if isinstance(ident, dict) and "url" not in ident:
        return {k: v for k, v in ident.items() if k not in ("dev", "ino", "ctime")}
    return ident


def holds(saved: Any, path: str, exact: bool = False) -> bool:
    """Does `path` still hold the bytes `saved` identifies (`exact`: and nothing more)?"""
    if saved is None:
        return not regular.exists(path)
    if is_remote(path):
        return cache_still_holds(saved, path)
    if not isinstance(saved, dict):
        return False
    try:
        st = os.stat(path, follow_symlinks=False)
    except OSError:
        return False
    if exact and st.st_size != saved.get("size"):
        return False
    # this machine's device, inode and ctime: the rest (size, mtime, hashes) decides
    local = {**saved, "dev": st.st_dev, "ino": st.st_ino, "ctime": st.st_ctime_ns}
    return cache_still_holds(local, path)


def stale_reason(meta: dict[str, Any], fs: FileSet, run_id: str, src: str,
                 exact: bool = False) -> str | None:
    """Why a shard's metadata does not describe `fs`'s files as they are now (None: it
    does)."""
    from reader.cache.store import code_stamp

    if meta.get("fileset") != fs.name or meta.get("run") != run_id:
        return "it is another file set's"
    if meta.get("code") != code_stamp():
        return "written by another version of tfdbg-tui"
    if meta.get("source") != src:
        return "its objects were read from another endpoint"
    files = meta.get("files")
    if not isinstance(files, dict) or set(files) != set(ALL_FILES):
        return "it names no source files"
    for s in ALL_FILES:
        if not holds(files[s], fs.path(s), exact):
            return f"{fs.name}.{s} changed since it was indexed"
    return None


def _sizes(meta: dict[str, Any]) -> dict[str, int]:
    out = {}
    for s, ident in meta["files"].items():
        size = ident.get("size") if isinstance(ident, dict) else 0
        out[s] = size if type(size) is int and size >= 0 else 0
    return out


# ------------------------------------------------------------------ reading
def _allowed_owners(logdir: str) -> set[int]:
    owners = {os.geteuid(), 0}
    try:
        owners.add(os.stat(logdir).st_uid)
    except OSError:
        pass
    return owners


def _trusted(st: os.stat_result, owners: set[int]) -> bool:
    return st.st_uid in owners and not st.st_mode & 0o022


def read_bytes(path: str, limit: int, owners: set[int]) -> bytes:
    """The whole shard file at `path` (at most `limit` bytes), through the checks above;
    OSError (one line) otherwise."""
    if is_remote(path):
        rst = stat_file(path)
        if rst is None:
            raise OSError(errno.EISDIR, "not an object", path)
        if rst.st_size > limit:
            raise OSError(errno.EFBIG, "larger than the files it indexes", path)
        fs, inner = filesystem(path)
        try:
            return bytes(fs.cat_file(inner, start=0, end=rst.st_size))
        except Exception as exc:
            raise error_for(path, exc) from None
    parent, name = os.path.split(path)
    dfd = os.open(parent, _DIR)
    try:
        if not _trusted(os.fstat(dfd), owners):
            raise OSError(errno.EPERM, "its folder is writable by others or not ours", path)
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC,
                     dir_fd=dfd)
    finally:
        os.close(dfd)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or not _trusted(st, owners):
            raise OSError(errno.EPERM, "not a regular file of ours (or writable by others)",
                          path)
        if st.st_size > limit:
            raise OSError(errno.EFBIG, "larger than the files it indexes", path)
        with os.fdopen(fd, "rb", closefd=False) as f:
            return f.read(limit + 1)
    finally:
        os.close(fd)


def listing(where: str) -> set[str]:
    """Names of the shard files in `where` (empty when there is no such folder)."""
    try:
        return {n for n in regular.listdir(where) if n.endswith(EXT)}
    except OSError:
        return set()


def _current_bytes(fs: FileSet) -> int:
    total = 0
    for s in ALL_FILES:
        try:
            total += regular.check_regular(fs.path(s)).st_size
        except OSError:
            continue
    return total


def load(path: str, fs: FileSet, run_id: str, src: str, owners: set[int],
         exact: bool = False) -> Shard:
    """The current shard of `fs` at `path` (`src`: where the logdir's objects are read
    from, `exact`: its files must not have grown either); ShardError (one line) when it is
    not one."""
    try:
        data = read_bytes(path, 2 * _current_bytes(fs) + SLACK, owners)
        meta = metadata(data)
        why = stale_reason(meta, fs, run_id, src, exact)
        if why is not None:
            raise ShardError(f"stale: {why}")
        sizes = _sizes(meta)
        if len(data) > 2 * sum(sizes.values()) + SLACK:
            raise ShardError("larger than the files it indexes")
        shard = read(data, meta, sizes)
    except ShardError:
        raise
    except OSError as exc:
        raise ShardError(f"cannot read it ({exc.strerror or exc})") from None
    except Exception as exc:  # untrusted input: any surprise means "read the file set"
        text = " ".join(f"{type(exc).__name__}: {exc}".split())[:200]
        raise ShardError(f"damaged ({text})") from None
    shard.prefix = fs.prefix
    return shard


@dataclass
class Stored:
    """The current shards of a run found by `find` (by file set index), and the others."""

    shards: dict[int, Shard] = field(default_factory=dict)
    dropped: list[str] = field(default_factory=list)  # one line each
    where: str = ""


def find(logdir_path: str, run_id: str, filesets: list[FileSet]) -> Stored:
    """The current shards of `filesets` in the logdir's shard folder (one listing; nothing
    is read when there is no folder)."""
    where = folder(logdir_path)
    out = Stored(where=where)
    if not os.environ.get(SHARDS_ENV) and INDEX_DIR not in _names(logdir_path):
        return out
    names = listing(where)
    if not names:
        return out
    try:
        import pyarrow.parquet  # noqa: F401
    except ImportError:
        out.dropped.append("*.parquet: reading shards needs pyarrow (pip install "
                           "'tfdbg-tui[export]')")
        return out
    src = source(logdir_path) if is_remote(logdir_path) else ""
    owners = _allowed_owners(logdir_path) if not is_remote(logdir_path) else set()
    for i, fs in enumerate(filesets):
        if fs.name + EXT not in names:
            continue
        try:
            out.shards[i] = load(shard_path(where, fs), fs, run_id, src, owners)
        except ShardError as exc:
            out.dropped.append(f"{fs.name}{EXT}: {exc}")
    return out


def _names(logdir: str) -> set[str]:
    try:
        return set(regular.listdir(logdir))
    except OSError:
        return set()


# ------------------------------------------------------------------ the task
@dataclass
class TaskResult:
    """What indexing one file set did: `status` "indexed", "current" (its shard was up to
    date: nothing read) or "failed" (`error` says why, one line)."""

    name: str
    status: str
    error: str = ""
    rows: int = 0
    bytes: int = 0
    seconds: float = 0.0
    warnings: list[str] = field(default_factory=list)


Seen = dict[str, dict[str, Any]]  # folder URL → name → RemoteStat (a listing's entries)


def seen_by_driver(path: str, filesets: list[FileSet], where: str) -> list[Seen | None]:
    """For a remote logdir: what one listing of the run's folder and one of its shard
    folder say of each file set's objects and shard, to be given to its task (`seed_pass`:
    a task never lists a folder of thousands of hosts). None for each file set of a local
    logdir."""
    if not is_remote(path):
        return [None] * len(filesets)
    out: list[Seen | None] = []
    with one_pass():
        shards = listing(where)
        for fs in filesets:
            objects = {}
            for s in ALL_FILES:
                try:
                    objects[fs.path(s).rsplit("/", 1)[1]] = stat_file(fs.path(s))
                except OSError:
                    continue
            mine = {}
            if fs.name + EXT in shards:
                try:
                    mine[fs.name + EXT] = stat_file(shard_path(where, fs))
                except OSError:
                    pass
            out.append({normalize(path): objects, normalize(where): mine})
    return out


def index_task(path: str, run_id: str, fs: FileSet, where: str, expected_source: str,
               force: bool = False, seen: Seen | None = None) -> TaskResult:
    """The task an engine runs for one file set, on whichever machine: skip it when its
    shard is current and its files unchanged; else index it (the shard function), check
    that no file changed meanwhile, and write the shard. Never raises for a problem of the
    file set: the result says it. One look at the bucket (`one_pass`): the task's
    listings answer every `stat` of it — the identities saved are the versions listed, and
    every read of an object is conditional on the version listed (`reader.io.remote`), so a
    shard never holds bytes of another version than it names."""
    with one_pass():
        for url, entries in (seen or {}).items():
            seed_pass(url, entries)
        return _index_task(path, run_id, fs, where, expected_source, force)


def _index_task(path: str, run_id: str, fs: FileSet, where: str, expected_source: str,
                force: bool) -> TaskResult:
    from reader.index.logdir import DebugLogdir

    t0 = time.monotonic()
    src = source(path) if is_remote(path) else ""
    if src != expected_source:  # a worker pointed at another endpoint than the driver
        return TaskResult(fs.name, "failed", "this worker reads the bucket from another "
                          "endpoint or profile than the command (check its AWS_* settings)")
    target = shard_path(where, fs)
    owners = {os.geteuid()}
    if not force and fs.name + EXT in listing(where):
        try:
            load(target, fs, run_id, src, owners, exact=True)
            return TaskResult(fs.name, "current", seconds=time.monotonic() - t0)
        except ShardError:
            pass
    try:
        before = identities(fs)
        shard = index_fileset(DebugLogdir, path, run_id, fs)
        after = identities(fs)
        if any(_portable(before[s]) != _portable(after[s]) for s in ALL_FILES):
            return TaskResult(fs.name, "failed", "its files changed while it was indexed "
                              "(run index again once the run is written)")
        about = {"run": run_id, "fileset": fs.name, "prefix": fs.name, "source": src,
                 "code": _code(), "files": after, "written": time.time()}
        _put(target, where, lambda f: write(shard, about, f))
    except (OSError, ShardError, ValueError, MemoryError) as exc:
        text = f"{exc.filename}: {exc.strerror}" if isinstance(exc, OSError) and \
            exc.strerror else f"{type(exc).__name__}: {exc}"
        return TaskResult(fs.name, "failed", " ".join(text.split())[:300],
                          seconds=time.monotonic() - t0)
    rows = sum(len(next(iter(shard.columns[t].values()))) for t in ("traces", "outputs"))
    return TaskResult(fs.name, "indexed", rows=rows,
                      bytes=sum(c.offset for c in shard.cursors.values()),
                      seconds=time.monotonic() - t0, warnings=list(shard.warnings))


def _code() -> str:
    from reader.cache.store import code_stamp

    return code_stamp()


def _put(target: str, where: str, fill: Any) -> None:
    """Write a shard file whole: an object in one upload; a local file through a temporary
    of its own, renamed over the old one once complete (`reader.io.safewrite`)."""
    if is_remote(target):
        fs, inner = filesystem(target)
        try:
            with fs.open(inner, "wb") as f:
                fill(f)
        except Exception as exc:
            raise error_for(target, exc) from None
        return
    from reader.io.safewrite import Replacement, open_folder

    dfd = open_folder(where, [])
    try:
        st = os.fstat(dfd)
        if st.st_uid == os.geteuid() and st.st_mode & 0o022:
            os.fchmod(dfd, stat.S_IMODE(st.st_mode) & ~0o022)  # our folder: ours alone
        new = Replacement(dfd, os.path.basename(target), 0o644)
        try:
            os.fchmod(new.fd, 0o644)  # whatever the umask: a shard others can write is
            with os.fdopen(os.dup(new.fd), "wb") as f:  # not trusted (see `_trusted`)
                fill(f)
            new.commit()
        finally:
            new.discard()
    finally:
        os.close(dfd)

