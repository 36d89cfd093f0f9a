"""The on-disk store of index caches: where they live, how they are written and evicted.

Layout, under `cache_root()` (`$TFDBG_TUI_CACHE_DIR`, else `$XDG_CACHE_HOME/tfdbg-tui`, else
`~/.cache/tfdbg-tui`), in a folder per format version:

    <key>.json          the entry's description (what it covers, how to check it is current)
    <key>-<random>/     the entry's columns, one `.npy` file each, never modified once named

Writers build the column folder under a temporary name, rename it into place, then replace
`<key>.json` with `os.replace` — so a reader sees the old entry or the new one, never a part
of either, and two processes saving at once simply leave the last one's. A reader that opened
an entry's files keeps them even if another process deletes the folder meanwhile (POSIX).
Everything read back is untrusted: any surprise means "no cache", never a crash.
"""

from __future__ import annotations

import json
import mmap
import os
import shutil
import stat
import time
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

try:  # the built-in BLAKE2: importing `hashlib` loads OpenSSL, ~3 MB resident in every run
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - CPython builds without it
    from hashlib import blake2b

FORMAT = 1
DIR_ENV = "TFDBG_TUI_CACHE_DIR"
MAX_ENV = "TFDBG_TUI_CACHE_MAX_BYTES"
DEFAULT_MAX_BYTES = 2 << 30
MAX_DESCRIPTION = 64 << 20  # a description bigger than this is not ours
ORPHAN_AGE = 600.0  # seconds before a folder no description names is deleted


class CacheError(Exception):
    """The cache entry is missing, stale or damaged (the caller reads the logdir instead)."""


class NoEntry(CacheError):
    """There is no cache entry for that key."""


def cache_root() -> Path:
    """Where index caches live (not created here)."""
    env = os.environ.get(DIR_ENV)
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".cache"
    return base / "tfdbg-tui"


def max_bytes() -> int:
    try:
        return max(0, int(os.environ.get(MAX_ENV, DEFAULT_MAX_BYTES)))
    except ValueError:
        return DEFAULT_MAX_BYTES


def _versioned(root: Path) -> Path:
    return root / f"v{FORMAT}"


_CODE_STAMP: str | None = None


def code_stamp() -> str:
    """A digest of the code that turns a logdir into columns (reader/io, reader/index, the
    compiled core, the modes). An entry written by other code is stale: a fix to how damaged
    records are read must not be hidden by an index the old code cached."""
    global _CODE_STAMP
    if _CODE_STAMP is None:
        base = Path(__file__).resolve().parent.parent
        digest = blake2b(digest_size=8)
        files = [base / "modes.py", *sorted((base / "io").glob("*.py")),
                 *sorted((base / "index").glob("*.py")), *sorted((base / "_native").glob("*.[ch]")),
                 *sorted((base / "_native").glob("*.py")), *sorted((base / "cache").glob("*.py"))]
        for path in files:
            try:
                digest.update(path.name.encode() + b"\0" + path.read_bytes())
            except OSError:
                digest.update(path.name.encode() + b"\0?")
        _CODE_STAMP = digest.hexdigest()
    return _CODE_STAMP


@dataclass(frozen=True)
class EntryInfo:
    """What `tfdbg-tui cache` shows about one entry."""

    key: str
    logdir: str
    run: str
    rows: int
    size: int
    last_used: float


def _open_regular(path: Path, limit: int | None = None) -> int:
    """An fd for a regular file (no symlink, FIFO or device), or CacheError."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise CacheError(f"{path.name}: {exc.strerror}") from None
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode) or (limit is not None and st.st_size > limit):
        os.close(fd)
        raise CacheError(f"{path.name}: not a cache file")
    return fd


def _read_json(path: Path) -> dict[str, Any]:
    fd = _open_regular(path, MAX_DESCRIPTION)
    with os.fdopen(fd, "rb") as f:
        data = f.read(MAX_DESCRIPTION + 1)
    try:
        out = json.loads(data)
    except (ValueError, UnicodeDecodeError):
        raise CacheError(f"{path.name}: not JSON") from None
    if not isinstance(out, dict):
        raise CacheError(f"{path.name}: not an object")
    return out


def load_array(path: Path, dtype: np.dtype, rows: int) -> np.ndarray:
    """A one-dimensional `.npy` of exactly `dtype` and `rows`, memory-mapped copy-on-write
    (changes stay in this process). Never unpickles; CacheError on anything else."""
    fd = _open_regular(path)
    try:
        with os.fdopen(fd, "rb", closefd=False) as f:
            try:
                version = np.lib.format.read_magic(f)
                if version == (1, 0):
                    shape, fortran, dt = np.lib.format.read_array_header_1_0(f)
                elif version == (2, 0):
                    shape, fortran, dt = np.lib.format.read_array_header_2_0(f)
                else:
                    raise CacheError(f"{path.name}: unknown .npy version")
            except ValueError as exc:
                raise CacheError(f"{path.name}: bad .npy header ({exc})") from None
            offset = f.tell()
            if dt != dtype or shape != (rows,) or fortran:
                raise CacheError(f"{path.name}: {dt}{shape} where {dtype}({rows},) was expected")
            if os.fstat(fd).st_size != offset + rows * dtype.itemsize:
                raise CacheError(f"{path.name}: wrong length")
        if rows == 0:
            return np.empty(0, dtype)
        try:
            mapped = mmap.mmap(fd, 0, access=mmap.ACCESS_COPY)
        except (OSError, ValueError) as exc:
            raise CacheError(f"{path.name}: cannot map ({exc})") from None
        return np.frombuffer(mapped, dtype=dtype, count=rows, offset=offset)
    finally:
        os.close(fd)


class Store:
    """The cache folder: entries by key, written atomically, evicted least recently used."""

    def __init__(self, root: Path | None = None) -> None:
        self.dir = _versioned(root if root is not None else cache_root())

    def _description(self, key: str) -> Path:
        return self.dir / f"{key}.json"

    def read(self, key: str) -> tuple[dict[str, Any], Path]:
        """(description, column folder) of the entry `key`; NoEntry if there is none,
        CacheError if it is unreadable."""
        if not os.path.lexists(self._description(key)):
            raise NoEntry(key)
        desc = _read_json(self._description(key))
        if desc.get("code") != code_stamp():
            raise CacheError("written by another version of tfdbg-tui")
        folder = desc.get("folder")
        if not isinstance(folder, str) or not folder.startswith(f"{key}-") or "/" in folder:
            raise CacheError("description names no column folder")
        return desc, self.dir / folder

    def touch(self, key: str) -> None:
        """Mark an entry as just used (least recently used entries go first)."""
        try:
            os.utime(self._description(key))
        except OSError:
            pass

    def write(self, key: str, desc: dict[str, Any], arrays: Mapping[str, np.ndarray]) -> bool:
        """Write a new entry for `key` (replacing the old one); False if it could not be."""
        size = sum(int(a.nbytes) + 128 for a in arrays.values())
        limit = max_bytes()
        if size > limit:
            return False
        folder = f"{key}-{uuid.uuid4().hex[:12]}"
        tmp = self.dir / f"tmp-{uuid.uuid4().hex}"
        try:
            self.dir.mkdir(parents=True, exist_ok=True, mode=0o700)
            self.evict(limit - size, keep=None)
            tmp.mkdir(mode=0o700)
            for name, array in arrays.items():
                with open(tmp / f"{name}.npy", "wb") as f:
                    np.lib.format.write_array(f, np.ascontiguousarray(array),
                                              allow_pickle=False)
            os.rename(tmp, self.dir / folder)
            body = json.dumps({**desc, "format": FORMAT, "code": code_stamp(),
                               "folder": folder, "size": size})
            tmp_desc = self.dir / f"tmp-{uuid.uuid4().hex}.json"
            tmp_desc.write_text(body)
            os.replace(tmp_desc, self._description(key))
        except OSError:
            shutil.rmtree(tmp, ignore_errors=True)
            return False
        self._collect(keep=folder)
        return True

    def entries(self) -> Iterator[tuple[str, dict[str, Any], float]]:
        """(key, description, last used) of every readable entry."""
        try:
            names = os.listdir(self.dir)
        except OSError:
            return
        for name in names:
            if name.endswith(".json") and not name.startswith("tmp-"):
                path = self.dir / name
                try:
                    desc = _read_json(path)
                    used = path.stat().st_mtime
                except (CacheError, OSError):
                    continue
                yield name[: -len(".json")], desc, used

    def info(self) -> list[EntryInfo]:
        out = []
        for key, desc, used in self.entries():
            size = desc.get("size")
            rows = desc.get("rows")
            total = rows.get("total") if isinstance(rows, dict) else None
            out.append(EntryInfo(key, str(desc.get("logdir", "?")), str(desc.get("run", "?")),
                                 total if isinstance(total, int) else 0,
                                 size if isinstance(size, int) else 0, used))
        return sorted(out, key=lambda e: e.last_used, reverse=True)

    def remove(self, key: str) -> None:
        """Forget one entry (its folder goes with the next collection)."""
        try:
            os.unlink(self._description(key))
        except OSError:
            pass
        self._collect(keep=None, min_age=0.0, only_key=key)

    def evict(self, budget: int, keep: str | None) -> None:
        """Drop least recently used entries until the rest fit in `budget` bytes."""
        entries = sorted(self.entries(), key=lambda e: e[2])
        total = sum(int(d.get("size", 0) or 0) for _, d, _ in entries)
        for key, desc, _ in entries:
            if total <= budget:
                break
            if key == keep:
                continue
            self.remove(key)
            total -= int(desc.get("size", 0) or 0)

    def clear(self) -> int:
        """Delete every entry; returns the bytes freed."""
        freed = sum(e.size for e in self.info())
        shutil.rmtree(self.dir, ignore_errors=True)
        return freed

    def _collect(self, keep: str | None, min_age: float = ORPHAN_AGE,
                 only_key: str | None = None) -> None:
        """Delete column folders no description names (and old temporaries)."""
        try:
            names = os.listdir(self.dir)
        except OSError:
            return
        named = set()
        for _, desc, _ in self.entries():
            folder = desc.get("folder")
            if isinstance(folder, str):
                named.add(folder)
        now = time.time()
        for name in names:
            path = self.dir / name
            if name in named or name == keep:
                continue
            if name.endswith(".json") and not name.startswith("tmp-"):
                continue
            if only_key is not None and not name.startswith(f"{only_key}-"):
                continue
            try:
                age = now - path.lstat().st_mtime
            except OSError:
                continue
            if age < min_age:
                continue
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path, ignore_errors=True)
            elif name.startswith("tmp-"):
                path.unlink(missing_ok=True)
