"""The on-disk store of index caches: where they live, how they are written and evicted.

Layout, under `cache_root()` (`$TFDBG_TUI_CACHE_DIR`, else `$XDG_CACHE_HOME/tfdbg-tui`, else
`~/.cache/tfdbg-tui`), in a folder per format version:

    <key>.json          the entry's description (what it covers, how to check it is current)
    <key>-<random>/     the entry's columns, one `.npy` file each, never modified once named

Writers build the column folder under a temporary name, rename it into place, then replace
`<key>.json` with `os.replace` — so a reader sees the old entry or the new one, never a part
of either, and two processes saving at once simply leave the last one's. A reader that opened
an entry's files keeps them even if another process deletes the folder meanwhile (POSIX).
Everything read back is untrusted: any surprise means "no cache", never a crash. The folder
may be shared or the user's own: `reader.cache.guard` says when it may be used and deletes
only what the cache made; sizes are measured on disk, never taken from a description.
"""

from __future__ import annotations

import json
import os
import stat
import time
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from reader.cache.files import (
    MAX_DESCRIPTION,
    CacheError,
    NoEntry,
    count,
    read_json,
)
from reader.cache.guard import (
    DESCRIPTION,
    FOLDER,
    KEY,
    TAG_NAME,
    TEMPORARY,
    Untrusted,
    folder_bytes,
    lstat_at,
    open_cache_dir,
    remove_file,
    remove_folder,
    trusted,
)
from reader.cache.location import FORMAT, cache_root, code_stamp, max_bytes

ORPHAN_AGE = 600.0  # seconds before a folder no description names is deleted


def _versioned(root: Path) -> Path:
    return root / f"v{FORMAT}"


@dataclass(frozen=True)
class EntryInfo:
    """What `tfdbg-tui cache` shows about one entry."""

    key: str
    logdir: str
    run: str
    rows: int
    size: int
    last_used: float


@dataclass
class _Scan:
    """One description found in the cache folder: `desc` None when it is junk."""

    key: str
    desc: dict[str, Any] | None
    used: float
    size: int  # bytes on disk: description plus the column folder it names


def _move(fd: int, path: Path | None, to: str) -> bool:
    """Rename a file of a `scratch` folder (of the cache folder `fd`) to `to`; False if not."""
    if path is None:
        return False
    try:
        os.rename(f"{path.parent.name}/{path.name}", to, src_dir_fd=fd, dst_dir_fd=fd)
    except OSError:
        return False
    return True


class Store:
    """The cache folder: entries by key, written atomically, evicted least recently used.

    Every operation first opens the versioned folder through `guard.open_cache_dir` (a real
    folder of this user, marked as a cache); if it is not one, there is no cache: reads find
    nothing, writes do nothing, nothing is deleted, and `problem` says why.
    """

    def __init__(self, root: Path | None = None) -> None:
        self.dir = _versioned(root if root is not None else cache_root())
        self.problem: str | None = None

    def _open(self, create: bool = False) -> int | None:
        try:
            fd = open_cache_dir(str(self.dir), create)
        except FileNotFoundError:
            return None
        except Untrusted as exc:
            self.problem = f"{self.dir} is not used: {exc}"
            return None
        self.problem = None
        return fd

    def _description(self, key: str) -> Path:
        return self.dir / f"{key}.json"

    def read(self, key: str) -> tuple[dict[str, Any], Path]:
        """(description, column folder) of the entry `key`; NoEntry if there is none,
        CacheError if it is unreadable."""
        fd = self._open()
        if fd is None:
            raise NoEntry(key)
        try:
            if lstat_at(fd, f"{key}.json") is None:
                raise NoEntry(key)
        finally:
            os.close(fd)
        desc = read_json(self._description(key))
        if desc.get("code") != code_stamp():
            raise CacheError("written by another version of tfdbg-tui")
        folder = desc.get("folder")
        if not isinstance(folder, str) or not FOLDER.fullmatch(folder) \
                or not folder.startswith(f"{key}-"):
            raise CacheError("description names no column folder")
        return desc, self.dir / folder

    def touch(self, key: str) -> None:
        """Mark an entry as just used (least recently used entries go first)."""
        fd = self._open()
        if fd is None:
            return
        try:
            os.utime(f"{key}.json", dir_fd=fd, follow_symlinks=False)
        except OSError:
            pass
        finally:
            os.close(fd)

    def scratch(self) -> Path | None:
        """A new private folder in the cache folder (a temporary name: collected if left),
        for columns written before they are an entry (`reader.index.column_spool`)."""
        fd = self._open(create=True)
        if fd is None:
            return None
        name = f"tmp-{uuid.uuid4().hex}"
        try:
            os.mkdir(name, 0o700, dir_fd=fd)
        except OSError:
            return None
        finally:
            os.close(fd)
        return self.dir / name

    def write(self, key: str, desc: dict[str, Any], arrays: Mapping[str, np.ndarray],
              moved: Mapping[str, Path] | None = None) -> bool:
        """Write a new entry for `key` (replacing the old one); False if it could not be.
        `moved`: arrays whose `.npy` file is already written in a `scratch` folder, moved
        into the entry instead (renamed: not read and written again)."""
        folder = f"{key}-{uuid.uuid4().hex[:12]}"
        # the description counts too (a run of a million long op names: 120 MB of strings),
        # and one that could never be read back (over MAX_DESCRIPTION) is not written
        body = json.dumps({**desc, "format": FORMAT, "code": code_stamp(),
                           "folder": folder}).encode()
        size = sum(int(a.nbytes) + 128 for a in arrays.values()) + len(body) + 32
        limit = max_bytes()
        if size > limit or len(body) + 32 > MAX_DESCRIPTION:
            self.remove(key)  # (an older entry for it is stale now: not read again)
            return False
        body = body[:-1] + b', "size": %d}' % size
        fd = self._open(create=True)
        if fd is None:
            return False
        tmp = f"tmp-{uuid.uuid4().hex}"
        tmp_desc = f"tmp-{uuid.uuid4().hex}.json"
        try:
            old = lstat_at(fd, f"{key}.json")
            if old is not None and (not stat.S_ISREG(old.st_mode) or not trusted(old)):
                return False  # not ours to replace
            self._evict(fd, limit - size, keep=None)
            os.mkdir(tmp, 0o700, dir_fd=fd)
            for name, array in arrays.items():  # 0o600 whatever the umask: see `trusted`
                src = (moved or {}).get(name)
                if _move(fd, src if src and src.parent.parent == self.dir else None,
                         f"{tmp}/{name}.npy"):
                    continue
                out = os.open(self.dir / tmp / f"{name}.npy", os.O_WRONLY | os.O_CREAT
                              | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
                with os.fdopen(out, "wb") as f:
                    np.lib.format.write_array(f, np.ascontiguousarray(array),
                                              allow_pickle=False)
            os.rename(tmp, folder, src_dir_fd=fd, dst_dir_fd=fd)
            out = os.open(tmp_desc, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
                          | os.O_CLOEXEC, 0o600, dir_fd=fd)
            with os.fdopen(out, "wb") as f:
                f.write(body)
            os.replace(tmp_desc, f"{key}.json", src_dir_fd=fd, dst_dir_fd=fd)
        except OSError:
            remove_folder(fd, tmp)
            remove_folder(fd, folder)
            remove_file(fd, tmp_desc)
            return False
        finally:
            self._collect(fd, keep=folder)
            os.close(fd)
        return True

    def _scan(self, fd: int) -> list[_Scan]:
        """Every description in the folder (junk ones too, `desc` None), with its size."""
        out = []
        for name in os.listdir(fd):
            m = DESCRIPTION.fullmatch(name)
            st = lstat_at(fd, name) if m else None
            if m is None or st is None or not stat.S_ISREG(st.st_mode) or not trusted(st):
                continue
            try:
                desc: dict[str, Any] | None = read_json(self.dir / name)
            except CacheError:
                desc = None
            folder = desc.get("folder") if desc is not None else None
            if not isinstance(folder, str) or not FOLDER.fullmatch(folder):
                desc = None  # junk: names no column folder of ours
            size = st.st_size
            if desc is not None:
                size += folder_bytes(fd, str(folder))
            used = st.st_mtime if 0 <= st.st_mtime < 1e11 else 0.0  # a date in year 5000+
            out.append(_Scan(m.group(1), desc, used, size))
        return out

    def entries(self) -> Iterator[tuple[str, dict[str, Any], float]]:
        """(key, description, last used) of every readable entry."""
        fd = self._open()
        if fd is None:
            return
        try:
            scanned = self._scan(fd)
        finally:
            os.close(fd)
        for e in scanned:
            if e.desc is not None:
                yield e.key, e.desc, e.used

    def info(self) -> list[EntryInfo]:
        fd = self._open()
        if fd is None:
            return []
        try:
            scanned = self._scan(fd)
        finally:
            os.close(fd)
        out = []
        for e in scanned:
            desc = e.desc or {}
            rows = desc.get("rows")
            total = count(rows.get("total")) if isinstance(rows, dict) else None
            out.append(EntryInfo(e.key, str(desc.get("logdir", "(damaged entry)")),
                                 str(desc.get("run", "?")), total or 0, e.size, e.used))
        return sorted(out, key=lambda e: e.last_used, reverse=True)

    def remove(self, key: str) -> None:
        """Forget one entry and delete its column folders."""
        if not KEY.fullmatch(key):
            return
        fd = self._open()
        if fd is None:
            return
        try:
            remove_file(fd, f"{key}.json")
            self._collect(fd, keep=None, min_age=0.0, only_key=key)
        finally:
            os.close(fd)

    def evict(self, budget: int, keep: str | None) -> None:
        """Drop least recently used entries until the rest fit in `budget` bytes."""
        fd = self._open()
        if fd is None:
            return
        try:
            self._evict(fd, budget, keep)
        finally:
            os.close(fd)

    def _evict(self, fd: int, budget: int, keep: str | None) -> None:
        scanned = self._scan(fd)
        for e in scanned:  # junk descriptions go first: ignored, and replaced by the next save
            if e.desc is None:
                remove_file(fd, f"{e.key}.json")
        entries = sorted((e for e in scanned if e.desc is not None), key=lambda e: e.used)
        total = sum(e.size for e in entries)
        for e in entries:
            if total <= budget:
                break
            if e.key == keep:
                continue
            remove_file(fd, f"{e.key}.json")
            self._collect(fd, keep=keep, min_age=0.0, only_key=e.key)
            total -= e.size

    def clear(self) -> int:
        """Delete every entry (what the cache made, nothing else); returns the bytes freed."""
        fd = self._open()
        if fd is None:
            return 0
        try:
            freed = sum(e.size for e in self._scan(fd))
            for name in os.listdir(fd):
                if DESCRIPTION.fullmatch(name) or TEMPORARY.fullmatch(name):
                    remove_file(fd, name)
            self._collect(fd, keep=None, min_age=0.0)
            if set(os.listdir(fd)) <= {TAG_NAME}:
                remove_file(fd, TAG_NAME)
        finally:
            os.close(fd)
        try:
            os.rmdir(self.dir)
        except OSError:
            pass
        return freed

    def _collect(self, fd: int, keep: str | None, min_age: float = ORPHAN_AGE,
                 only_key: str | None = None) -> None:
        """Delete column folders no description names (and old temporaries): only names
        the cache writes, through `guard`, which leaves anything it did not make."""
        try:
            names = os.listdir(fd)
        except OSError:
            return
        named = {e.desc.get("folder") for e in self._scan(fd) if e.desc is not None}
        now = time.time()
        for name in names:
            if name in named or name == keep:
                continue
            if not (FOLDER.fullmatch(name) or TEMPORARY.fullmatch(name)):
                continue
            if only_key is not None and not name.startswith(f"{only_key}-"):
                continue
            st = lstat_at(fd, name)
            if st is None or now - st.st_mtime < min_age:
                continue
            if stat.S_ISDIR(st.st_mode):
                remove_folder(fd, name)
            elif stat.S_ISREG(st.st_mode) and name.startswith("tmp-"):
                remove_file(fd, name)
