"""One ranged GET of an object, its answer checked before any of its bytes is used.

A server failing mid-answer or a proxy cutting it announces bytes its body never brings; a
server ignoring `Range` answers with the whole object. Either taken as it comes is a read
that ends early (an object "shorter than listed", an incomplete last record) or bytes from
the wrong offset. So an answer is opened here, for the backends whose answers can be seen
(S3, and GCS through its JSON API), and handed over only once its headers say it holds the
bytes asked for (`remote_errors.answer_end`); `reader.io.remote_stream` then reads its body
and fails the read if it ends before the end its headers announced.

- **S3** (s3fs/aiobotocore): `get_object` with `If-Match` the ETag listed (a replaced object
  is refused, not mixed) and the answer's ETag checked (`OtherVersion`).
- **GCS** (gcsfs's JSON API, the media download gcsfs's `cat_file` makes): the same request,
  made here to see its headers — gcsfs reads the whole body before returning anything, and
  retried a cut answer five times with backoff (over 30 s an object, its log's tracebacks on
  stderr) before failing, or took a connection that never closes for a timeout. A request
  that fails before its answer (a connection refused, a 5xx) is tried `ATTEMPTS` times, as
  botocore's are; an answer's body is never retried. Zonal buckets are read by gcsfs over
  gRPC (no HTTP answer to check): `checked` is False for them.

- **HTTP(S)** (fsspec's HTTP client): the same request through its session; a server that
  ignores `Range` (Python's `http.server`) answers with the whole object: its bytes before
  the offset asked for are read and dropped, never taken for the bytes at that offset.

Any other backend's ranged reads are checked by length against the listing only
(`reader.io.remote_stream._ranges`, `reader.io.remote_file`).
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from reader.io.remote_errors import CutShort, answer_end

ATTEMPTS = 2  # tries of a GCS request that failed before its answer (botocore's, for S3)
_RETRY = {408, 429, 500, 502, 503, 504}  # statuses worth another try (GCS's guidance)


class OtherVersion(Exception):
    """A response's ETag is not the one asked for (If-Match ignored on the way); its
    argument is the ETag the answer carried ("" for none)."""


@dataclass
class Answer:
    """An answer whose headers were checked: its bytes are the range asked for up to `end`
    (before the range's end only where the object ends). `read(n)` gives its body's next
    bytes as received (about `n`; b"" at the body's end); `read_all(n)` the body up to its
    end or until more than `n` bytes came — never more: a body without a length (chunked)
    that never ends was read into memory until the time limit (gigabytes)."""

    end: int
    read: Callable[[int], Awaitable[bytes]]
    read_all: Callable[[int], Awaitable[bytes]]
    close: Callable[[], None]


def is_s3(fs: Any) -> bool:
    return hasattr(fs, "_call_s3")


def is_http(fs: Any) -> bool:
    """fsspec's HTTP(S) client (an `http://` logdir: a web server's folder)."""
    try:
        from fsspec.implementations.http import HTTPFileSystem
    except ImportError:
        return False
    return isinstance(fs, HTTPFileSystem)


def checked(fs: Any, path: str) -> bool:
    """Are this object's answers opened here (S3; GCS through the JSON API; HTTP)?"""
    if is_s3(fs) or is_http(fs):
        return True
    try:
        from gcsfs.core import GCSFileSystem
    except ImportError:
        return False
    if not isinstance(fs, GCSFileSystem):
        return False
    zonal = getattr(fs, "_is_zonal_bucket", None)  # gcsfs's extended class (real GCS)
    if zonal is None:
        return True
    from fsspec.asyn import sync

    return not sync(fs.loop, zonal, fs.split_path(path)[0])


def check_version(headers: dict[str, Any], version: str) -> None:
    """`OtherVersion` if an S3 answer says it holds another version than `version`."""
    etag = headers.get("ETag")
    if version.startswith('"') and not (isinstance(etag, str) and etag):
        raise OtherVersion("")  # no ETag: which version the bytes are cannot be told
    if version.startswith('"') and etag != version:
        raise OtherVersion(etag)


async def open_answer(fs: Any, path: str, version: str, a: int, b: int) -> Answer:
    """The answer to `Range: bytes=a-(b-1)` of the object at `path`, its headers checked
    (`CutShort`, `OtherVersion`, or the backend's error for a failed request)."""
    if is_s3(fs):
        return await _s3(fs, path, version, a, b)
    if is_http(fs):
        return await _http(fs, path, a, b)
    return await _gcs(fs, path, a, b)


async def _s3(fs: Any, path: str, version: str, a: int, b: int) -> Answer:
    bucket, key, _ = fs.split_path(path)
    match = {"IfMatch": version} if version.startswith('"') else {}
    resp = await fs._call_s3("get_object", Bucket=bucket, Key=key,
                             Range=f"bytes={a}-{b - 1}", **match)
    body = resp["Body"]
    try:
        if match:
            check_version(resp, version)
        end = answer_end(resp, a, b)
    except BaseException:
        body.close()
        raise
    # aiohttp's stream under the body when it is there: `readany` hands over the pieces as
    # received, where `read(n)` first joins what is buffered (a copy of every byte)
    raw = getattr(getattr(getattr(body, "_raw_stream", None), "content", None), "readany",
                  None)

    async def read(n: int) -> bytes:
        return bytes(await raw()) if raw is not None else bytes(await body.read(n))

    async def read_all(n: int) -> bytes:
        parts, got = [], 0  # (botocore checks the bytes' checksum, if sent, at their end)
        while got <= n and (chunk := await body.read(min(1 << 20, n + 1 - got))):
            parts.append(bytes(chunk))
            got += len(chunk)
        return b"".join(parts)

    return Answer(end, read, read_all, body.close)


async def _gcs(fs: Any, path: str, a: int, b: int) -> Answer:
    from gcsfs.retry import validate_response

    await fs._set_session()
    for attempt in range(ATTEMPTS):
        last = attempt == ATTEMPTS - 1
        try:
            resp = await fs.session.get(
                fs.url(path), params=fs._get_params({}), timeout=fs.requests_timeout,
                headers=fs._get_headers({"Range": f"bytes={a}-{b - 1}"}))
        except Exception as exc:
            if last or not _connection_failed(exc):
                raise
            await asyncio.sleep(random.random())  # (botocore's jitter, standard mode)
            continue
        if resp.status < 300:
            break
        try:
            detail = await resp.content.read(1 << 16)  # (an error's text, bounded)
        finally:
            resp.close()
        if last or resp.status not in _RETRY:
            validate_response(resp.status, detail, path)  # raises: not found, forbidden…
            raise OSError(f"HTTP {resp.status}")  # (a 3xx: a redirect is not followed)
        await asyncio.sleep(random.random())
    try:
        end = answer_end({"ContentRange": resp.headers.get("Content-Range"),
                          "ContentLength": resp.content_length}, a, b)
    except BaseException:
        resp.close()
        raise

    return _stream(resp, end)


async def _http(fs: Any, url: str, a: int, b: int) -> Answer:
    """A web server's answer, opened here as GCS's is: fsspec's HTTP client read a range's
    body whole (a server that never ends it: into memory until the time limit), waited on
    a silent one without limit, and took a server ignoring `Range` (Python's http.server)
    as the bytes at the offset asked for."""
    from aiohttp import ClientTimeout

    from reader.io.remote_errors import timeout

    t = timeout()
    session = await fs.set_session()
    resp = await session.get(fs.encode_url(url), headers={"Range": f"bytes={a}-{b - 1}"},
                             timeout=ClientTimeout(sock_connect=t, sock_read=t))
    try:
        if resp.status >= 300:
            fs._raise_not_found_for_status(resp, url)  # FileNotFoundError, or the status
            raise OSError(f"HTTP {resp.status}")  # (a redirect not followed)
        size = resp.content_length
        if a and resp.status == 200 and not resp.headers.get("Content-Range"):
            await _skip(resp, a)  # `Range` ignored: the whole object, read up to `a`
            end = b if size is None else min(b, size)
        else:
            end = answer_end({"ContentRange": resp.headers.get("Content-Range"),
                              "ContentLength": size}, a, b)
    except BaseException:
        resp.close()
        raise
    return _stream(resp, end)


async def _skip(resp: Any, n: int) -> None:
    """Read and drop the first `n` bytes of a body (each read bounded by the session's
    read timeout); `CutShort` if it ends before."""
    left = n
    while left:
        chunk = await resp.content.read(min(left, 1 << 20))
        if not chunk:
            raise CutShort(f"ended after {n - left} bytes, before byte {n} (the server "
                           "ignores Range: it sends the object from its start)")
        left -= len(chunk)


def _stream(resp: Any, end: int) -> Answer:
    """An aiohttp answer whose headers were checked, as an `Answer`."""
    async def read(_n: int) -> bytes:
        return bytes(await resp.content.readany())

    async def read_all(n: int) -> bytes:
        parts, got = [], 0
        while got <= n and (chunk := await resp.content.readany()):
            parts.append(chunk)
            got += len(chunk)
        return b"".join(parts)

    return Answer(end, read, read_all, resp.close)


def _connection_failed(exc: BaseException) -> bool:
    """A request that got no answer (refused, reset, timed out) — another try may get one."""
    try:
        from aiohttp import ClientConnectionError
    except ImportError:
        return False
    return isinstance(exc, ClientConnectionError | asyncio.TimeoutError)
