"""What the cache may trust and delete in its folder (see SECURITY.md).

The cache folder can be shared (`$TFDBG_TUI_CACHE_DIR` on a world-writable disk) or can be a
folder the user already had. So the cache:

- uses its versioned folder only if it is a real folder (not a symlink), owned by this user,
  writable by nobody else, and marked as a cache by a `CACHEDIR.TAG` it wrote (an empty or
  all-cache-named folder is adopted and marked); anything else means "no cache" with a reason;
- trusts a file in it only if it is a regular file owned by this user and writable by nobody
  else (`trusted`);
- deletes only what it recognises as its own by name (`<key>.json`, `<key>-<id>/`,
  `tmp-<id>…`), by owner, and — for a folder — by content: regular `.npy` files named like
  columns; always through descriptors opened with `O_NOFOLLOW`, never `rmtree` through a
  symlink. Whatever else it finds stays.
"""

from __future__ import annotations

import errno
import os
import re
import stat

KEY = re.compile(r"[0-9a-f]{32}")
DESCRIPTION = re.compile(r"([0-9a-f]{32})\.json")
FOLDER = re.compile(r"([0-9a-f]{32})-[0-9a-f]{12}")
TEMPORARY = re.compile(r"tmp-[0-9a-f]{32}(\.json)?")
COLUMN = re.compile(r"[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*\.npy")
TAG_NAME = "CACHEDIR.TAG"
TAG = (b"Signature: 8a477f597d28d172789f06886806bc55\n"
       b"# This folder holds tfdbg-tui's index cache (https://bford.info/cachedir/).\n")
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class Untrusted(Exception):
    """The cache folder is not one this process may use (the message says why)."""


def trusted(st: os.stat_result) -> bool:
    """Owned by this user and writable by no one else."""
    return st.st_uid == os.geteuid() and not st.st_mode & 0o022


def ours(name: str) -> bool:
    """A name the cache writes in its folder."""
    return bool(DESCRIPTION.fullmatch(name) or FOLDER.fullmatch(name)
                or TEMPORARY.fullmatch(name) or name == TAG_NAME)


def open_cache_dir(path: str, create: bool) -> int:
    """A descriptor of the cache's versioned folder, checked (Untrusted otherwise)."""
    if create:
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            os.mkdir(path, 0o700)
        except FileExistsError:
            pass
        except OSError as exc:
            raise Untrusted(f"cannot create it ({exc.strerror})") from None
    try:
        fd = os.open(path, _DIR_FLAGS)
    except FileNotFoundError:
        raise
    except OSError as exc:
        symlink = exc.errno in (errno.ELOOP, errno.ENOTDIR)
        raise Untrusted("it is a symlink or not a folder" if symlink
                        else f"cannot open it ({exc.strerror})") from None
    try:
        st = os.fstat(fd)
        if st.st_uid != os.geteuid():
            raise Untrusted(f"it belongs to another user (uid {st.st_uid})")
        if st.st_mode & 0o022:
            raise Untrusted("others can write to it")
        if not _tagged(fd):
            names = os.listdir(fd)
            if any(not ours(n) for n in names):
                raise Untrusted("it holds files the cache did not write (no CACHEDIR.TAG)")
            if create or names:
                _write_tag(fd)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _tagged(fd: int) -> bool:
    try:
        tag = os.open(TAG_NAME, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC,
                      dir_fd=fd)
    except OSError:
        return False
    try:
        st = os.fstat(tag)
        return (stat.S_ISREG(st.st_mode) and trusted(st) and st.st_size < 4096
                and os.read(tag, 4096).startswith(TAG[:43]))
    finally:
        os.close(tag)


def _write_tag(fd: int) -> None:
    try:
        tag = os.open(TAG_NAME, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
                      | os.O_CLOEXEC, 0o600, dir_fd=fd)
    except OSError as exc:
        raise Untrusted(f"cannot mark it as a cache ({exc.strerror})") from None
    try:
        os.write(tag, TAG)
    finally:
        os.close(tag)


def lstat_at(fd: int, name: str) -> os.stat_result | None:
    try:
        return os.stat(name, dir_fd=fd, follow_symlinks=False)
    except OSError:
        return None


def remove_file(fd: int, name: str) -> bool:
    """Unlink regular file `name` of ours (by name and owner); False if it was left."""
    st = lstat_at(fd, name)
    if st is None or not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid():
        return False
    try:
        os.unlink(name, dir_fd=fd)
    except OSError:
        return False
    return True


def remove_folder(fd: int, name: str) -> bool:
    """Delete column folder `name` if it is ours: a real folder of this user holding only
    regular `.npy` files of this user. Anything else in it stays (and so does the folder)."""
    if not (FOLDER.fullmatch(name) or TEMPORARY.fullmatch(name)):
        return False
    try:
        sub = os.open(name, _DIR_FLAGS, dir_fd=fd)
    except OSError:
        return False
    try:
        if os.fstat(sub).st_uid != os.geteuid():
            return False
        for entry in os.listdir(sub):
            if COLUMN.fullmatch(entry):
                remove_file(sub, entry)
    finally:
        os.close(sub)
    try:
        os.rmdir(name, dir_fd=fd)
    except OSError:
        return False
    return True


def folder_bytes(fd: int, name: str) -> int:
    """Bytes of the regular files directly in folder `name` (0 if it cannot be read)."""
    try:
        sub = os.open(name, _DIR_FLAGS, dir_fd=fd)
    except OSError:
        return 0
    try:
        total = 0
        for entry in os.listdir(sub):
            st = lstat_at(sub, entry)
            if st is not None and stat.S_ISREG(st.st_mode):
                total += st.st_size
        return total
    finally:
        os.close(sub)
