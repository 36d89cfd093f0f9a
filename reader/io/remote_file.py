"""A remote object opened for reading (`RemoteFile`), and streams started before it opens.

Apart from `reader.io.remote` (URLs, errors, listings, the filesystem of a URL) because this
is the part that moves bytes: sequential reads take the blocks of one streaming GET read ahead
in the background (`reader.io.remote_stream`), reads by offset share read-ahead blocks, and
bytes of the listed version already read are never asked for again.
"""

from __future__ import annotations

from typing import Any

from reader.io.remote import SMALL, RemoteStat, filesystem
from reader.io.remote_answers import checked
from reader.io.remote_errors import error_for
from reader.io.remote_listing import stat_file
from reader.io.remote_stream import EDGE, Key, Stream, adopt, fetch, short_of, verifiable, warm
from reader.io.remote_stream import blocks as _blocks
from reader.io.remote_stream import seen as _seen


class RemoteFile:
    """An object opened for ranged reads: the part of a binary file the reader uses (seek,
    read, readinto, pread), bounded by the size it had when opened (`st`)."""

    def __init__(self, url: str, st: RemoteStat) -> None:
        self.url = url
        self.st = st
        self._fs, self._path = filesystem(url)
        self._verified = verifiable(self._fs, st.version)
        self._checked = checked(self._fs, self._path)  # S3, GCS: answers checked
        self._pos = 0
        self.read_ahead = 0  # pread fetches this much at once (for many reads by offset)
        self._block: tuple[int, bytes] = (0, b"")
        # sequential reads (the cursors' chunks): the block being read, from a stream that
        # reads on ahead of it (`reader.io.remote_stream`), and the last EDGE bytes read
        self._got: tuple[int, bytes] = (0, b"")
        self._stream: Stream | None = None
        self._tail = b""

    def __enter__(self) -> RemoteFile:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._block = self._got = (0, b"")
        if self._stream is not None:
            self._stream.close()  # its thread ends after the block it is reading
            self._stream = None

    def _range(self, start: int, stop: int) -> bytes:
        stop = min(stop, self.st.st_size)
        if stop <= start:
            return b""
        try:
            if self._checked:  # its answer checked (S3: of the listed version, or Replaced)
                return fetch(self._fs, self._path, self.url, self.st.version, start, stop)
            data = self._fs.cat_file(self._path, start=start, end=stop)
            return bytes(short_of(data, start, stop, self.st.st_size))
        except Exception as exc:
            raise error_for(self.url, exc) from None

    def seek(self, offset: int, whence: int = 0) -> int:
        self._pos = offset if whence == 0 else (self._pos + offset if whence == 1
                                                else self.st.st_size + offset)
        return self._pos

    def tell(self) -> int:
        return self._pos

    def read(self, n: int = -1) -> bytes:
        """Up to `n` bytes at the position (all to the end if `n` < 0). A small read (a
        record re-read: its header, body, footer) fetches a `SMALL` block, and is answered
        from bytes of this version already read when it can be."""
        stop = self.st.st_size if n < 0 else min(self._pos + n, self.st.st_size)
        n = stop - self._pos
        data = self._known(self._pos, n) if n > 0 else b""
        if data is None:
            if n < SMALL:
                start, block = self._fetch_block(self._pos, SMALL)
                data = block[self._pos - start: self._pos - start + n]
            else:
                data = self._range(self._pos, stop)
        self._pos += len(data)
        return data

    def _known(self, offset: int, n: int) -> bytes | None:
        """The `n` bytes at `offset` if this version's bytes were read already (the block
        just read sequentially or by offset, an edge a stream read, a recent block)."""
        for start, got in (self._got, self._block):
            if start <= offset and offset + n <= start + len(got):
                return got[offset - start: offset - start + n]
        known = _seen.get(self.url, self.st.version, offset, n)
        if known is None and self._verified:
            hit = _blocks.get(self.url, self.st.version, offset, n)
            if hit is not None:
                self._block = hit
                known = hit[1][offset - hit[0]: offset - hit[0] + n]
        return known

    def _fetch_block(self, offset: int, size: int) -> tuple[int, bytes]:
        """A block of `size` bytes at `offset`, fetched and remembered (this object's
        current block; of a verified version, also in the shared recent blocks)."""
        self._block = offset, self._range(offset, offset + size)
        if self._verified:
            _blocks.put(self.url, self.st.version, *self._block)
        return self._block

    def _next_block(self) -> tuple[int, bytes]:
        """The next bytes of the stream that goes on from the position (a new stream if the
        position is not where the current one goes on); (position, b"") at the end."""
        if self._pos >= self.st.st_size:
            return self._pos, b""
        stream = self._stream
        if stream is None or stream.pos != self._pos:
            if stream is not None:
                stream.close()
            self._tail = b""
            stream = self._stream = adopt((self.url, self.st.version, self._pos)) or Stream(
                self._fs, self._path, self.url, self.st.version, self._pos, self.st.st_size,
                error_for)
        start = stream.pos
        return start, stream.take()

    def readinto(self, buf: Any) -> int:
        """Read at the position into `buf`, filling it unless the object ends first (0: the
        end). Reading on from where the last read stopped takes the next blocks of one
        stream, read ahead in the background (a failed fetch raises here, on the read that
        needs it); the bytes are copied once, from what the socket gave into `buf`."""
        done, first = 0, self._pos
        with memoryview(buf) as view:
            while done < len(view):
                start, got = self._got
                if not start <= self._pos < start + len(got):
                    self._got = start, got = self._next_block()
                    if not got:
                        break
                at = self._pos - start
                k = min(len(view) - done, len(got) - at)
                with memoryview(got) as block:
                    view[done: done + k] = block[at: at + k]
                done += k
                self._pos += k
            if done and self._stream is not None and self._stream.verified:
                self._remember(first, view[:done])
        return done

    def _remember(self, first: int, data: memoryview) -> None:
        """The edges of what a read of the listed version gave (`_seen`): its first bytes,
        and the last ones read so far (the cursors' and the cache's identity checks)."""
        if first == 0:
            _seen.put(self.url, self.st.version, 0, bytes(data[:EDGE]))
        self._tail = (self._tail + bytes(data[-EDGE:]))[-EDGE:]
        _seen.put(self.url, self.st.version, self._pos - len(self._tail), self._tail)

    def pread(self, n: int, offset: int) -> bytes:
        """`n` bytes at `offset`; with `read_ahead` set, small reads in offset order share
        one block of that size per request. Bytes of this version already read are not
        asked for again (`_known`): an identity check or a row re-read costs no request."""
        known = self._known(offset, n)
        if known is not None:
            return known
        if n >= self.read_ahead:
            return self._range(offset, offset + n)
        start, block = self._fetch_block(offset, self.read_ahead)
        return block[offset - start: offset - start + n]


def prefetch(url: str, start: int) -> Key | None:
    """Start reading the object from `start` in the background, for a `RemoteFile` of the
    same version that reads from there soon (it takes the stream over). Returns the key to
    `drop` it by if it is not taken; None when there is nothing to read (or no listing)."""
    try:
        st = stat_file(url)
        if st is None or start >= st.st_size:
            return None
        fs, path = filesystem(url)
    except OSError:
        return None  # said by the read itself, when it comes
    return warm((url, st.version, start),
                lambda: Stream(fs, path, url, st.version, start, st.st_size, error_for))


def open_file(url: str, st: RemoteStat) -> RemoteFile:
    """Open an object whose `st` was just seen, for ranged reads (no bytes fetched yet)."""
    return RemoteFile(url, st)
