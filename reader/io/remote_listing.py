"""Listings of remote folders: what answers `stat`, `listdir` and `exists` of a URL.

Apart from `reader.io.remote` (clients, URLs, an object's identity) because it is one job with
state of its own: a listing of a folder gives every object's size and ETag at once, so a
`stat` is answered from one at most `LISTING_TTL` old, and within `one_pass` (one look at the
bucket: an index update, an `index` task) from the first listing of the pass, or from entries
seeded by whoever listed the folder elsewhere (`seed_pass`); `relist` forgets one after other
processes changed the folder. Every read stays conditional on the version listed, so nothing
read is staler for it.
"""

from __future__ import annotations

import asyncio
import errno
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from reader.io.remote import (
    LISTING_TIMEOUTS,
    LISTING_TTL,
    RemoteStat,
    filesystem,
    normalize,
    stat_of,
)
from reader.io.remote_clients import bounded_ls, reuse_sizes, sized
from reader.io.remote_errors import TIMEOUT_ENV, RemoteError, error_for, malformed_listing, timeout

_pass = threading.local()


@contextmanager
def one_pass() -> Iterator[None]:
    """One look at the bucket: within the block, a folder this thread listed during it
    answers every later listing and `stat` of the block (an index update listed a remote
    logdir five times — each a round trip — where local folders cost nothing to list).
    Nothing read is staler for it: every GET is conditional on the ETag listed, so an
    object replaced meanwhile fails its read (one line) and the next update lists anew."""
    depth = getattr(_pass, "depth", 0)
    if not depth:
        _pass.since = time.monotonic()
        _pass.seeded = {}
    _pass.depth = depth + 1
    try:
        yield
    finally:
        _pass.depth = depth


def seed_pass(url: str, entries: dict[str, RemoteStat | None]) -> None:
    """Within this thread's `one_pass`, answer the listing of folder `url` with `entries`
    (what a listing made elsewhere said of the objects this pass will read), never asking
    the bucket: a task of `tfdbg-tui index` reads one host's six objects of a folder that
    may hold 40,000 hosts' (one listing: 240 pages). Every read stays conditional on the
    version given, so an object replaced since fails its read, as after a listing here."""
    if not getattr(_pass, "depth", 0):
        raise RuntimeError("seed_pass outside one_pass")
    _pass.seeded[normalize(url)] = dict(entries)


def relist(url: str) -> None:
    """Forget what this process (and this thread's `one_pass`) listed of folder `url`: other
    processes changed it (`tfdbg-tui index`'s workers replaced shards there), so its next
    `stat` lists it anew instead of giving an object's old size and ETag."""
    url = normalize(url)
    getattr(_pass, "seeded", {}).pop(url, None)
    with _listings._lock:
        _listings._folders.pop(url, None)


class _Listings:
    """Folder listings, each answering `stat` for `LISTING_TTL` seconds (and every
    listing within `one_pass`)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._folders: dict[str, tuple[float, dict[str, RemoteStat | None]]] = {}
        self._turns: dict[str, tuple[int, set[str]]] = {}  # `reuse_sizes`' turn, grown files

    def folder(self, url: str, fresh: bool = False) -> dict[str, RemoteStat | None]:
        """Name → RemoteStat (None for a sub-folder) of everything directly in `url`."""
        url = normalize(url)
        now = time.monotonic()
        with self._lock:
            hit = self._folders.get(url)
        since = _pass.since if getattr(_pass, "depth", 0) else None
        if since is not None and url in _pass.seeded:
            return dict(_pass.seeded[url])
        if hit is not None and ((since is not None and hit[0] >= since)
                                or (not fresh and now - hit[0] < LISTING_TTL)):
            return hit[1]
        fs, path = filesystem(url)
        try:
            entries = bounded_ls(fs, path, timeout() * LISTING_TIMEOUTS)
        except asyncio.TimeoutError:
            raise RemoteError(errno.ETIMEDOUT, "its listing did not end within "
                              f"{timeout() * LISTING_TIMEOUTS:g} s (a server that pages for "
                              f"ever?); --remote-timeout or {TIMEOUT_ENV} sets the limit "
                              f"({LISTING_TIMEOUTS}x it)", url) from None
        except Exception as exc:
            raise (malformed_listing(url, exc) or error_for(url, exc)) from None
        with self._lock:
            turn, grown = self._turns.get(url, (0, set()))
        entries, again = reuse_sizes(entries, hit[1] if hit else {}, turn, grown)
        listing: dict[str, RemoteStat | None] = {}
        for info in sized(fs, url, entries, timeout() * LISTING_TIMEOUTS):
            if isinstance(info, dict) and isinstance(info.get("name"), str):
                listing[info["name"].rstrip("/").rsplit("/", 1)[-1]] = stat_of(info)
        old = hit[1] if hit else {}
        grew = {n for n in again if listing.get(n) != old.get(n)}
        with self._lock:
            self._folders[url] = (time.monotonic(), listing)
            self._turns[url] = (turn + 1, grew)
        return listing


_listings = _Listings()


def _split(url: str) -> tuple[str, str]:
    folder, _, name = normalize(url).rpartition("/")
    return folder, name


def listdir(url: str) -> list[str]:
    """Names directly under a remote folder (fresh). FileNotFoundError when there is nothing
    there or the bucket does not exist; RemoteError for other failures."""
    return sorted(_listings.folder(url, fresh=True))


def stat_file(url: str) -> RemoteStat | None:
    """The object's size, time and version, from a recent listing of its folder; None when
    the name is a folder. FileNotFoundError when nothing has that name."""
    folder, name = _split(url)
    listing = _listings.folder(folder)
    if name not in listing:
        raise FileNotFoundError(errno.ENOENT, "no such object", url)
    return listing[name]


def exists(url: str) -> bool:
    try:
        return stat_file(url) is not None
    except OSError:
        return False


def signature(url: str) -> frozenset[tuple[str, int, int, int]]:
    """(name, 0, size, hash of version) of every tfdbg object in the folder (as
    `reader.io.watch.signature` for a local folder); empty when it cannot be listed."""
    try:
        listing = _listings.folder(url, fresh=True)
    except OSError:
        return frozenset()
    return frozenset((n, 0, st.st_size, hash(st.version)) for n, st in listing.items()
                     if st is not None and n.startswith("tfdbg_events."))
