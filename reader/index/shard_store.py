"""Where a run's Parquet shards live and when one may be trusted (writing one is
`reader.index.shard_task`, the task `tfdbg-tui index` maps over file sets on an engine).

Shards of LOGDIR are under `LOGDIR/.tfdbg-index/` (`s3://bucket/run/.tfdbg-index/` for a
bucket), one `<file set name>.parquet` each, or in the folder `$TFDBG_TUI_SHARDS` names
(`tfdbg-tui index --out URL`). A shard is used for its file set only if it is *current*
— the same trust rules as the index cache (SECURITY.md, `reader.cache.snapshot`):

- it says which bytes it indexed: the identity of each of its file set's six files (an
  object: name, size and ETag or generation; a local file: size, times and hashes of its
  first and last bytes and of all of them, or of 512 blocks spread over a big one), the
  endpoint the objects were read from (`reader.io.remote.source`) and the code that read
  them (`reader.cache.location.code_stamp`); every one must hold now, and no file may have
  grown since (its host is then read from the logdir, as for an object grown in a bucket:
  rows appended after the shard's cursors, read on after the merge, would come after every
  host's rows instead of in their place in time). A local file's device and inode are not
  compared: workers on other machines see other numbers for the same shared file system;
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
from dataclasses import dataclass, field
from typing import Any, BinaryIO

from reader.cache.identity import file_identity
from reader.cache.identity import still_holds as cache_still_holds
from reader.cache.snapshot import ALL_FILES
from reader.index import lazy_shard
from reader.index.lazy_shard import LazyShard, open_lazy
from reader.index.parquet_shards import ShardError, metadata
from reader.index.shards import Shard
from reader.io import regular
from reader.io.discovery import FileSet
from reader.io.linkguard import foreign_link
from reader.io.remote import filesystem, is_remote, normalize, source
from reader.io.remote_errors import error_for
from reader.io.remote_listing import stat_file

INDEX_DIR = ".tfdbg-index"
SHARDS_ENV = "TFDBG_TUI_SHARDS"
EXT = ".parquet"
SLACK = 1 << 20  # a shard file bigger than twice its source bytes plus this is not ours
MAX_OPEN = 128  # local shard files an open keeps open (each read as the merge reaches it)
_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def folder(logdir: str, out: str | None = None) -> str:
    """The folder of `logdir`'s shards: `out`, else `$TFDBG_TUI_SHARDS`, else the logdir's
    own `.tfdbg-index`. A folder the user names that is a link is the folder it leads to,
    if there is one,
    when every link on the way is the user's own (`reader.io.linkguard`): shards are read
    from a real folder only (`open_shard_file`), so `index --out LINK` and
    `TFDBG_TUI_SHARDS=LINK` must both mean the folder LINK leads to. The logdir's own
    `.tfdbg-index` is never resolved: whoever writes the logdir could have planted it
    (`index` refuses it, an open drops its shards)."""
    chosen = out or os.environ.get(SHARDS_ENV)
    if chosen:
        if is_remote(chosen):
            return normalize(chosen)
        path = os.path.abspath(chosen)
        own_link = os.path.islink(path) and os.path.isdir(path) and foreign_link(path) is None
        return os.path.realpath(path) if own_link else path
    return regular.join(logdir, INDEX_DIR)


def shard_path(where: str, fs: FileSet) -> str:
    return regular.join(where, fs.name + EXT)


def identities(fs: FileSet) -> dict[str, Any]:
    """The identity of each file of a file set (None: not there)."""
    return {s: file_identity(fs.path(s)) for s in ALL_FILES}


def portable(ident: Any) -> Any:
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
    from reader.cache.location import code_stamp

    if meta.get("fileset") != fs.name:
        return "it is another file set's"
    if meta.get("run") != run_id:  # (a folder shared by runs whose file sets share names)
        return "it is another run's"
    if meta.get("code") != code_stamp():
        return "written by another version of tfdbg-tui"
    if meta.get("source") != src:
        return "its objects were read from another endpoint"
    files = meta.get("files")
    if not isinstance(files, dict) or set(files) != set(ALL_FILES):
        return "it names no source files"
    for s in ALL_FILES:
        if not holds(files[s], fs.path(s), exact):
            if files[s] is not None and not regular.exists(fs.path(s)):
                what = "is gone"
            else:
                what = "grew" if exact and holds(files[s], fs.path(s)) else "changed"
            return f"{fs.name}.{s} {what} since it was indexed"
    return None


def _sizes(meta: dict[str, Any]) -> dict[str, int]:
    out = {}
    for s, ident in meta["files"].items():
        size = ident.get("size") if isinstance(ident, dict) else 0
        out[s] = size if type(size) is int and size >= 0 else 0
    return out


# ------------------------------------------------------------------ reading
def _allowed_owners(logdir: str) -> set[int]:
    """Who may own a local shard file and its folder: this user, root, and the owner of a
    local logdir (a colleague's run). A bucket's run indexed into a local folder (`--out`)
    has no owner of its own: this user's and root's shards only."""
    owners = {os.geteuid(), 0}
    if is_remote(logdir):
        return owners
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
    data = open_shard_file(path, limit, owners)
    if isinstance(data, bytes):
        return data
    with data:
        return data.read(limit + 1)


def open_shard_file(path: str, limit: int, owners: set[int]) -> bytes | BinaryIO:
    """The shard file at `path` (at most `limit` bytes), through the checks above: an
    object's bytes (one GET: a shard is replaced whole, so its parts are of one version),
    or a local file opened for reading (its parts read as they are needed); OSError (one
    line) otherwise."""
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
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


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
    lazy = load_lazy(path, fs, run_id, src, owners, exact)
    try:
        return whole(lazy)
    finally:
        close(lazy)


def load_lazy(path: str, fs: FileSet, run_id: str, src: str, owners: set[int],
              exact: bool = False) -> LazyShard:
    """As `load`, the traces' rows left to be read as the merge needs them (`close` it
    after)."""
    data: bytes | BinaryIO | None = None
    try:
        data = open_shard_file(path, 2 * _current_bytes(fs) + SLACK, owners)
        meta = metadata(data)
        why = stale_reason(meta, fs, run_id, src, exact)
        if why is not None:
            raise ShardError(f"stale: {why}")
        sizes = _sizes(meta)
        size = len(data) if isinstance(data, bytes) else os.fstat(data.fileno()).st_size
        if size > 2 * sum(sizes.values()) + SLACK:
            raise ShardError("larger than the files it indexes")
        lazy = open_lazy(data, meta, sizes)
    except ShardError:
        _close(data)
        raise
    except OSError as exc:
        _close(data)
        raise ShardError(f"cannot read it ({exc.strerror or exc})") from None
    except Exception as exc:  # untrusted input: any surprise means "read the file set"
        _close(data)
        text = " ".join(f"{type(exc).__name__}: {exc}".split())[:200]
        raise ShardError(f"damaged ({text})") from None
    lazy.shard.prefix = fs.prefix
    lazy.source = data
    return lazy


def whole(lazy: LazyShard) -> Shard:
    """A lazy shard's parts read in (ShardError, one line, when they cannot be)."""
    try:
        return lazy_shard.whole(lazy)
    except ShardError:
        raise
    except Exception as exc:
        text = " ".join(f"{type(exc).__name__}: {exc}".split())[:200]
        raise ShardError(f"damaged ({text})") from None


def close(lazy: LazyShard) -> None:
    """Let go of the shard file a lazy shard reads from, and of its decoded footer (~4 MB
    for a host of a million traces: 62 columns by 62 row groups) and batches read ahead
    now, not when the cyclic collector next runs (the merge's hosts and their parts are
    cycles; the TUI runs the collector rarely)."""
    _close(lazy.source)
    lazy.source = lazy.pf = lazy.budget = None
    for it in lazy.primed.values():
        getattr(it, "close", lambda: None)()
    lazy.primed, lazy.held = {}, {}


def _close(data: Any) -> None:
    if data is not None and not isinstance(data, bytes):
        data.close()


@dataclass
class Stored:
    """The current shards of a run found by `find` (by file set index), and the others."""

    shards: dict[int, LazyShard] = field(default_factory=dict)  # traces read as merged
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
    owners = _allowed_owners(logdir_path)
    todo = [(i, fs) for i, fs in enumerate(filesets) if fs.name + EXT in names]

    def one(job: tuple[int, FileSet]) -> LazyShard | str:
        i, fs = job
        try:
            lazy = load_lazy(shard_path(where, fs), fs, run_id, src, owners, exact=True)
        except ShardError as exc:
            return f"{fs.name}{EXT}: {exc}"
        if lazy.source is not None and i not in first:
            try:  # no more files open at once: the parts of the rest read whole
                full = whole(lazy)
            except ShardError as exc:
                return f"{fs.name}{EXT}: {exc}"
            finally:
                close(lazy)
            lazy = LazyShard.of(full)
        return lazy

    first = {i for i, _ in todo[:MAX_OPEN]}
    from reader.cache.location import code_stamp

    code_stamp()  # computed once, before the threads ask for it
    for (i, _), got in zip(todo, _map(one, todo, not is_remote(logdir_path)), strict=True):
        if isinstance(got, str):
            out.dropped.append(got)
        else:
            out.shards[i] = got
    return out


def _map(fn: Any, jobs: list[Any], threads: bool) -> list[Any]:
    """`fn` over `jobs`, in order; local shards two at a time (checking a shard is hashing
    its sources and decoding row groups, both done without the GIL: ~2x on 2 cores).
    Remote ones one after another, in this thread's look at the bucket (`one_pass`)."""
    if not threads or len(jobs) < 2:
        return [fn(j) for j in jobs]
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(2, thread_name_prefix="tfdbg-shards") as pool:
        return list(pool.map(fn, jobs))


def _names(logdir: str) -> set[str]:
    try:
        return set(regular.listdir(logdir))
    except OSError:
        return set()
