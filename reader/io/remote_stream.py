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
over the replacement's bytes). Other fsspec backends are read with plain ranges of `RANGE`
bytes, read ahead the same way.

**Whole answers.** An answer must be the range asked for, as long as its Content-Length
says (`remote_errors.answer_end`), and its body must bring all of it: an answer cut short is
a failed read of the object, never taken for an object that ends there.

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

from reader.io.remote_errors import CutShort, answer_end, error_for, timeout

SPAN = 256 << 20  # bytes asked for in one streaming GET (TFDBG_TUI_REMOTE_SPAN overrides)
BLOCK = 4 << 20  # bytes handed over at once
RANGE = 8 << 20  # bytes of one ranged read, for backends other than S3
AHEAD = 4  # blocks read ahead at most (and one being read, one handed over: 24 MB; 48 MB in RANGEs)
EDGE = 64 << 10  # bytes remembered at the start and at the end of what a stream read
SEEN = 64  # objects whose edges are remembered
BLOCKS = 16  # read-ahead blocks remembered (of `RemoteFile.read_ahead` bytes each, 1 MB)
PROGRESS = 64 << 10  # bytes a body must bring in every timeout (else: stalled)

_END = object()  # the queue's last item after the last block


class _OtherVersion(Exception):
    """A response's ETag is not the one asked for (If-Match ignored on the way)."""


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
    return hasattr(fs, "_call_s3") and version.startswith('"')


def fetch(fs: Any, path: str, url: str, version: str, start: int, stop: int) -> bytes:
    """The bytes [start, stop) of the object's listed `version` in one GET (If-Match);
    `Replaced` when the object is another version now."""
    from fsspec.asyn import sync

    bucket, key, _ = fs.split_path(path)

    async def get() -> bytes:
        resp = await fs._call_s3("get_object", Bucket=bucket, Key=key, IfMatch=version,
                                 Range=f"bytes={start}-{stop - 1}")
        try:
            _check_version(resp, version)
            end = answer_end(resp, start, stop)
            limit = timeout() * (1 + (stop - start) // PROGRESS)  # `PROGRESS` per timeout
            try:
                data = bytes(await asyncio.wait_for(resp["Body"].read(), limit))
            except asyncio.TimeoutError:
                raise Stalled(f"less than {PROGRESS >> 10} KiB in {timeout():g} s") from None
            if len(data) < end - start:
                raise CutShort(f"ended after {len(data)} of the {end - start} bytes it "
                               "announced")
            return data
        finally:
            resp["Body"].close()

    try:
        return sync(fs.loop, get)  # type: ignore[no-any-return]
    except Exception as exc:
        if _is_replaced(exc):
            raise _replaced(url, exc) from None
        if isinstance(exc, Stalled):
            raise error_for(url, exc) from None
        raise


def _check_version(resp: dict[str, Any], version: str) -> None:
    """`_OtherVersion` if the response says it holds another version than `version`."""
    etag = resp.get("ETag")
    if version.startswith('"') and not (isinstance(etag, str) and etag):
        raise _OtherVersion("")  # no ETag: which version the bytes are cannot be told
    if version.startswith('"') and etag != version:
        raise _OtherVersion(etag)


def span_bytes() -> int:
    """Bytes of one GET: `SPAN`, or `TFDBG_TUI_REMOTE_SPAN` (at least 64 KB) if set."""
    try:
        return max(int(os.environ.get("TFDBG_TUI_REMOTE_SPAN", "")), 1 << 16)
    except ValueError:
        return SPAN


def _s3_spans(fs: Any, path: str, version: str, start: int, stop: int
              ) -> Iterator[list[bytes]]:
    """Blocks of [start, stop) of an S3 object, each as the socket's pieces: one streaming
    GET per SPAN (If-Match)."""
    from fsspec.asyn import sync

    bucket, key, _ = fs.split_path(path)
    match = {"IfMatch": version} if version.startswith('"') else {}

    async def fill(body: Any, n: int, last: bool) -> list[bytes]:
        """The pieces the socket gave, about `n` bytes (exactly, at most, when `last`: the
        span's end, past which nothing is the object's), not joined: copied once, later.
        From aiohttp's stream under the body when it is there: `readany` hands over the
        pieces as received, where `read(n)` first joins what is buffered (a copy of every
        byte, ~0.1 s of a 400 MB logdir)."""
        raw = getattr(getattr(getattr(body, "_raw_stream", None), "content", None),
                      "readany", None)
        parts, got = [], 0
        loop = asyncio.get_running_loop()
        window, brought = loop.time(), 0  # `PROGRESS` bytes due by `window` + `limit`
        while got < n:
            try:
                data = await asyncio.wait_for(raw() if raw is not None else body.read(n - got),
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

    span, limit = span_bytes(), timeout()
    for a in range(start, stop, span):
        b = min(stop, a + span)
        resp = sync(fs.loop, fs._call_s3, "get_object", Bucket=bucket, Key=key,
                    Range=f"bytes={a}-{b - 1}", **match)
        body = resp["Body"]
        try:
            if match:
                _check_version(resp, version)
            end = answer_end(resp, a, b)
            pos = a
            while pos < b:
                want = min(BLOCK, span, b - pos)
                parts = sync(fs.loop, fill, body, want, want == b - pos)
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
            body.close()


def _ranges(fs: Any, path: str, start: int, stop: int) -> Iterator[list[bytes]]:
    """Blocks of [start, stop) by plain ranged reads of `RANGE` bytes (any fsspec backend:
    no streaming body in its API; one range fetched ahead of the one being read)."""
    for a in range(start, stop, RANGE):
        data = fs.cat_file(path, start=a, end=min(stop, a + RANGE))
        if not isinstance(data, bytes | bytearray) or not data:
            return
        yield [bytes(data[: min(stop, a + RANGE) - a])]


def _replaced(url: str, exc: BaseException | None = None) -> Replaced:
    if isinstance(exc, _OtherVersion) and not exc.args[0]:  # S3 always sends one
        return Replaced(errno.ESTALE, "the server's answer carries no ETag, so the version "
                        "of its bytes cannot be checked (a proxy in between?)", url)
    return Replaced(errno.ESTALE, "replaced by a new version while it was being read (its "
                    "ETag changed)", url)


def _is_replaced(exc: BaseException) -> bool:
    if isinstance(exc, _OtherVersion):
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
        blocks = (_s3_spans(fs, path, version, start, stop) if hasattr(fs, "_call_s3")
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
