"""Reading an object from an offset to its end: a few long GETs, read ahead in a thread.

The index reads each file once, front to back, in 8 MB chunks. Against a bucket, what that
costs is set by the number of requests, not by the bytes: every GET pays a round trip and
the server's set-up (and some S3-compatible servers, moto's among them, read the whole object
for every ranged GET, so many small ranges of a big object cost its size squared). So a
sequential read is one streaming GET per `SPAN` bytes (a 224 MB object: one request), whose
body a background thread reads in `BLOCK`-sized pieces into a queue at most `AHEAD` blocks
long: the network works while the index parses, and memory stays bounded (the HTTP stream
waits when the queue is full). Nothing is downloaded before the first bytes are handed over.

**One version.** Every GET of an S3 object carries `If-Match` with the ETag the object was
listed with: a span fetched after the object was replaced fails (HTTP 412) instead of mixing
two versions' bytes, and the read stops there with a one-line error saying so. The ETag of
each response is checked too (a server or proxy that ignores `If-Match` would otherwise hand
over the replacement's bytes). GCS objects are streamed the same way (no version asked
for: `reader.io.remote_answers`); other fsspec backends are read with plain ranges of
`RANGE` bytes, read ahead the same way.

**Whole answers.** An answer must be the range asked for, as long as its Content-Length
says (`remote_errors.answer_end`, checked in `reader.io.remote_answers` for S3 and GCS), and
its body must bring all of it: an answer cut short is a failed read of the object, never
taken for an object that ends there. Another backend's range must bring every byte the
listing says the object has there (`short_of`).

**Bounded time.** A body must bring `PROGRESS` bytes (or its end) within every
`remote.timeout()` seconds: a server that stalls mid-body, or trickles a byte at a time
(which a socket's read timeout never catches), ends the read with one line naming the URL.

**Bytes seen.** The first and the last `EDGE` bytes a stream handed over are remembered per
(URL, version) in a small LRU (`seen`): the cursors' and the index cache's identity checks
(a few hundred bytes at the start and before the read position) are answered from it, not by
another request (which, against such a server, would read the whole object again).
"""

from __future__ import annotations

import asyncio
import errno
import os
import queue
import threading
from collections import OrderedDict, deque
from collections.abc import Callable, Iterator
from typing import Any

from reader.io.remote_answers import Answer, OtherVersion, checked, is_s3, open_answer
from reader.io.remote_errors import CutShort, error_for, timeout

SPAN = 256 << 20  # bytes asked for in one streaming GET (TFDBG_TUI_REMOTE_SPAN overrides)
BLOCK = 4 << 20  # bytes handed over at once
RANGE = 8 << 20  # bytes of one ranged read, for backends other than S3
AHEAD = 4  # blocks read ahead at most (and one being read, one handed over: 24 MB; 48 MB in RANGEs)
EDGE = 64 << 10  # bytes remembered at the start and at the end of what a stream read
SEEN = 64  # objects whose edges are remembered
BLOCKS = 16  # read-ahead blocks remembered (of `RemoteFile.read_ahead` bytes each, 1 MB)
PROGRESS = 64 << 10  # bytes a body must bring in every timeout (else: stalled)

_END = object()  # the queue's last item after the last block


class Stalled(TimeoutError):
    """A body brought less than `PROGRESS` bytes within the timeout."""


class Replaced(OSError):
    """The object was replaced (its ETag changed) after it was listed; one line naming it
    (as `reader.io.remote.RemoteError`)."""

    def __str__(self) -> str:
        return f"{self.filename}: {self.strerror}"


class _Seen:
    """The first and the last bytes streamed of recent objects, by (URL, version)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._edges: OrderedDict[tuple[str, str], dict[int, bytes]] = OrderedDict()

    def put(self, url: str, version: str, offset: int, data: bytes) -> None:
        if not data:
            return
        with self._lock:
            windows = self._edges.setdefault((url, version), {})
            self._edges.move_to_end((url, version))
            windows[offset] = data
            if len(windows) > 2:  # the start, and the latest end
                for k in sorted(windows)[1:-1]:
                    del windows[k]
            while len(self._edges) > SEEN:
                self._edges.popitem(last=False)

    def get(self, url: str, version: str, offset: int, n: int) -> bytes | None:
        """`n` bytes at `offset` if a remembered window holds them all."""
        with self._lock:
            windows = self._edges.get((url, version), {})
            for start, data in windows.items():
                if start <= offset and offset + n <= start + len(data):
                    return data[offset - start: offset - start + n]
        return None


seen = _Seen()


class _Blocks:
    """Read-ahead blocks of rows re-read by offset (`RemoteFile.pread`), by (URL, version,
    offset), the `BLOCKS` latest: the report and the TUI open an object once per batch of
    rows, and rows of the next batch are often in the block the last one fetched."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._blocks: OrderedDict[tuple[str, str, int], bytes] = OrderedDict()

    def put(self, url: str, version: str, offset: int, data: bytes) -> None:
        with self._lock:
            self._blocks[(url, version, offset)] = data
            self._blocks.move_to_end((url, version, offset))
            while len(self._blocks) > BLOCKS:
                self._blocks.popitem(last=False)

    def get(self, url: str, version: str, offset: int, n: int) -> tuple[int, bytes] | None:
        """A remembered block holding the `n` bytes at `offset`, and where it starts."""
        with self._lock:
            for (u, v, start), data in reversed(self._blocks.items()):
                if u == url and v == version and start <= offset \
                        and offset + n <= start + len(data):
                    self._blocks.move_to_end((u, v, start))
                    return start, data
        return None


blocks = _Blocks()


def verifiable(fs: Any, version: str) -> bool:
    """Can every GET of this object be made conditional on its version (S3, an ETag)?"""
    return is_s3(fs) and version.startswith('"')


def fetch(fs: Any, path: str, url: str, version: str, start: int, stop: int) -> bytes:
    """The bytes [start, stop) of the object in one GET whose answer is checked
    (`reader.io.remote_answers`: S3 or GCS's JSON API): fewer only where the object ends,
    else a failed read. Of S3's listed `version` (If-Match): `Replaced` when the object is
    another version now."""
    from fsspec.asyn import sync

    async def get() -> bytes:
        answer = await open_answer(fs, path, version, start, stop)
        try:
            end = answer.end
            limit = timeout() * (1 + (stop - start) // PROGRESS)  # `PROGRESS` per timeout
            try:
                data = await asyncio.wait_for(answer.read_all(end - start), limit)
            except asyncio.TimeoutError:
                raise Stalled(f"less than {PROGRESS >> 10} KiB in {timeout():g} s") from None
            if len(data) < end - start:
                raise CutShort(f"ended after {len(data)} of the {end - start} bytes it "
                               "announced")
            return data[: end - start]
        finally:
            answer.close()

    try:
        return sync(fs.loop, get)  # type: ignore[no-any-return]
    except Exception as exc:
        if _is_replaced(exc):
            raise _replaced(url, exc) from None
        if isinstance(exc, Stalled):
            raise error_for(url, exc) from None
        raise


def span_bytes() -> int:
    """Bytes of one GET: `SPAN`, or `TFDBG_TUI_REMOTE_SPAN` (at least 64 KB) if set."""
    try:
        return max(int(os.environ.get("TFDBG_TUI_REMOTE_SPAN", "")), 1 << 16)
    except ValueError:
        return SPAN


async def _fill(answer: Answer, n: int, last: bool, limit: float) -> list[bytes]:
    """The pieces the socket gave, about `n` bytes (exactly, at most, when `last`: the
    span's end, past which nothing is the object's), not joined: copied once, later; `limit`
    seconds for each `PROGRESS` bytes."""
    parts, got = [], 0
    loop = asyncio.get_running_loop()
    window, brought = loop.time(), 0  # `PROGRESS` bytes due by `window` + `limit`
    while got < n:
        try:
            data = await asyncio.wait_for(answer.read(n - got),
                                          max(0.0, window + limit - loop.time()))
        except asyncio.TimeoutError:
            raise Stalled(f"less than {PROGRESS >> 10} KiB in {limit:g} s") from None
        if not data:
            break
        brought += len(data)
        if brought >= PROGRESS:
            window, brought = loop.time(), 0
        if last and got + len(data) > n:
            data = data[: n - got]
        parts.append(data)
        got += len(data)
    return parts


def _spans(fs: Any, path: str, version: str, start: int, stop: int
           ) -> Iterator[list[bytes]]:
    """Blocks of [start, stop) of an object whose answers are checked (S3, GCS's JSON API),
    each as the socket's pieces: one streaming GET per span (S3: If-Match)."""
    from fsspec.asyn import sync

    span, limit = span_bytes(), timeout()
    for a in range(start, stop, span):
        b = min(stop, a + span)
        answer = sync(fs.loop, open_answer, fs, path, version, a, b)
        try:
            end, pos = answer.end, a
            while pos < b:
                want = min(BLOCK, span, b - pos)
                parts = sync(fs.loop, _fill, answer, want, want == b - pos, limit)
                got = sum(map(len, parts))
                if parts:
                    yield parts
                    pos += got
                if got < want:  # the body ended
                    if pos < end:  # before the length it announced: a failed read
                        raise CutShort(f"ended after {pos - a} of the {end - a} bytes it "
                                       "announced")
                    return  # the object is shorter than listed: the caller sees its end
        finally:
            answer.close()


def _ranges(fs: Any, path: str, start: int, stop: int) -> Iterator[list[bytes]]:
    """Blocks of [start, stop) by plain ranged reads of `RANGE` bytes (any other fsspec
    backend: no answer to check in its API; one range fetched ahead of the one being read).
    A range brings all its bytes — `stop` is the listed size — or the read fails: a short
    one is never taken for the object's end, nor followed by the next range's bytes."""
    for a in range(start, stop, RANGE):
        b = min(stop, a + RANGE)
        data = fs.cat_file(path, start=a, end=b)
        yield [bytes(short_of(data, a, b, stop))]


def short_of(data: Any, a: int, b: int, size: int) -> bytes | bytearray:
    """`data`, the answer for bytes [a, b) of an object listed with `size` bytes, unless it
    holds fewer (`CutShort`: cut short, or the object replaced by a shorter one)."""
    if not isinstance(data, bytes | bytearray):
        raise CutShort("brought no bytes")
    if len(data) < b - a:
        raise CutShort(f"brought {len(data)} of the {b - a} bytes asked for (bytes "
                       f"{a}-{b - 1} of an object listed with {size}): cut short, or the "
                       "object was replaced by a shorter one")
    return data[: b - a]  # never more than asked, whatever was sent


def _replaced(url: str, exc: BaseException | None = None) -> Replaced:
    if isinstance(exc, OtherVersion) and not exc.args[0]:  # S3 always sends one
        return Replaced(errno.ESTALE, "the server's answer carries no ETag, so the version "
                        "of its bytes cannot be checked (a proxy in between?)", url)
    return Replaced(errno.ESTALE, "replaced by a new version while it was being read (its "
                    "ETag changed)", url)


def _is_replaced(exc: BaseException) -> bool:
    if isinstance(exc, OtherVersion):
        return True
    cause = exc.__cause__ or exc.__context__
    response = getattr(cause, "response", None) or getattr(exc, "response", None)
    code = response.get("Error", {}).get("Code") if isinstance(response, dict) else None
    return code in ("PreconditionFailed", "412")


class Stream:
    """The bytes of one object from `start` to `stop`, read ahead by a background thread.

    `take()` gives the next block (b"" at the end; the thread's error, raised, when a fetch
    failed); `close()` stops the thread (it ends after the block it is reading)."""

    def __init__(self, fs: Any, path: str, url: str, version: str, start: int, stop: int,
                 error: Callable[[str, BaseException], OSError]) -> None:
        self.url, self.version, self.pos = url, version, start
        self._error = error
        self._queue: queue.Queue[Any] = queue.Queue(maxsize=AHEAD)
        self._closed = threading.Event()
        self._parts: deque[bytes] = deque()  # the rest of the block taken last
        # every byte is of the listed version (else the read fails): S3 with an ETag
        self.verified = verifiable(fs, version)
        blocks = (_spans(fs, path, version, start, stop) if checked(fs, path)
                  else _ranges(fs, path, start, stop))
        self._thread = threading.Thread(target=self._run, args=(blocks,), daemon=True,
                                        name="tfdbg-stream")
        self._thread.start()

    def _put(self, item: Any) -> bool:
        if self._closed.is_set():
            return False
        self._queue.put(item)  # waits while AHEAD blocks are not taken (close() drains)
        return not self._closed.is_set()

    def _run(self, blocks: Iterator[list[bytes]]) -> None:
        try:
            for block in blocks:
                if not self._put(block):
                    break
            else:
                self._put(_END)
        except BaseException as exc:  # handed to the reader, raised there as one line
            self._put(exc)
        finally:
            close = getattr(blocks, "close", None)
            if close is not None:
                close()

    def take(self) -> bytes:
        """The next bytes (their first at `pos`, which moves past them); b"" at the end."""
        if self._parts:
            part = self._parts.popleft()
            self.pos += len(part)
            return part
        item = self._queue.get()
        if item is _END:
            self._queue.put(_END)  # the end stays the end
            return b""
        if isinstance(item, BaseException):
            self._queue.put(item)
            if _is_replaced(item):
                raise _replaced(self.url, item) from None
            raise self._error(self.url, item) from None
        self._parts.extend(item)
        return self.take() if self._parts else b""

    def close(self) -> None:
        self._closed.set()
        while True:  # unblock a put waiting for room; the thread then sees `closed`
            try:
                self._queue.get_nowait()
            except queue.Empty:
                break


# Streams started before their object is opened (`reader.io.remote_file.prefetch`), by (URL,
# version, offset): the first bytes of the next files are on their way while the index
# parses this one; a `RemoteFile` reading that version from there takes its stream over.
Key = tuple[str, str, int]
_warm_lock = threading.Lock()
_warm: dict[Key, Stream] = {}


def warm(key: Key, start: Callable[[], Stream]) -> Key:
    """Keep the stream `start()` makes under `key`, unless one is kept already."""
    with _warm_lock:
        if key in _warm:
            return key
    stream = start()
    with _warm_lock:
        old = _warm.pop(key, None)
        _warm[key] = stream
    if old is not None:
        old.close()
    return key


def adopt(key: Key) -> Stream | None:
    """The stream kept under `key` (no longer kept), if any."""
    with _warm_lock:
        return _warm.pop(key, None)


def drop(key: Key) -> None:
    """Stop a stream kept under `key` that no read took over."""
    stream = adopt(key)
    if stream is not None:
        stream.close()
