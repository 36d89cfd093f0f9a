"""Logdirs in object storage (`s3://bucket/run`, `gs://…`, any fsspec URL): the one seam.

Training at scale writes its logdir into a bucket, so the reader takes a URL wherever it takes
a path. Everything that touches a remote object goes through this module (through the
dispatching helpers of `reader.io.regular`), so the rest of the reader keeps its file model:
a file has a size, an identity and bytes read by offset. What differs, and why:

- **Ranged reads.** Nothing is downloaded before it is read: the cursors read an object front
  to back through one long streaming GET (`reader.io.remote_stream`: blocks read ahead in a
  background thread, memory bounded), as few requests as there can be; a record re-read by
  offset costs one small range (with a 1 MB read-ahead block, so rows read in offset order
  share requests), and identity checks are answered from the edges a stream already read.
- **One listing per look.** A `stat` of each of a run's files would be one request each; a
  listing of the folder gives every size and ETag at once, so `stat` is answered from a
  listing at most `LISTING_TTL` old (a follower polling every 0.2 s makes one request a
  poll; `reader.io.remote_listing`). An object replaced after the listing its read started
  from is refused by the server (`If-Match`), not mixed.
- **Objects are replaced whole, never appended.** A bucket has no append: a run that is still
  being written shows up as the same name holding a longer object with a new ETag. The
  identity of a remote file is therefore its name (`st_ino` is 0), its `version` (ETag, or
  generation) says when its bytes were replaced, and the cursors check that the bytes they
  already read are still the object's first bytes before reading on (`reader.io.cursors`).
- **Errors are one line naming the URL**: a missing extra names the `pip install` that adds
  it; a missing bucket, a wrong credential, a network failure or an object deleted mid-read
  is an `OSError` whose `strerror` says which, never a traceback.

- **Bounded time.** An S3 client connects and waits for each answer at most
  `TFDBG_TUI_REMOTE_TIMEOUT` seconds (default 30), retried once; a body that stalls or
  trickles (less than 64 KiB in that time) ends the read (`reader.io.remote_stream`): a
  server that never answers costs a minute, then one line naming the URL.

Credentials come from where the fsspec backend looks (for S3: the `AWS_*` environment,
`~/.aws` profiles, instance roles; `AWS_ENDPOINT_URL` points it at another S3 server).
"""

from __future__ import annotations

import errno
import logging
import os
import re
import stat
import threading
from dataclasses import dataclass
from typing import Any

from reader.io.remote_clients import (
    check_listings,
    host_options,
    make_client,
)
from reader.io.remote_errors import (
    RemoteError,
    _one_line,
    error_for,
    timeout,
)

_URL = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]+)://")  # not C:// (a drive)
EXTRAS = {"s3": "s3", "s3a": "s3", "gs": "gcs", "gcs": "gcs"}
LISTING_TTL = 0.1  # seconds a folder listing answers `stat` before it is fetched again
LISTING_TIMEOUTS = 10  # a folder's listing, all its pages, may take this many timeouts
READ_AHEAD = 1 << 20  # bytes fetched at once for small reads by offset
SMALL = 64 << 10  # a `read` of fewer bytes fetches this many (a record's header, then body)
ATTEMPTS = 2  # tries of one S3 request (botocore's; s3fs's own retries off)


def is_remote(path: str) -> bool:
    """True for a URL other than `file://` (which is a local path)."""
    m = _URL.match(path)
    return m is not None and m.group(1).lower() != "file"


def local_path(path: str) -> str:
    """`file:///x` → `/x`; anything else unchanged."""
    return path[len("file://"):] if path.lower().startswith("file://") else path


def normalize(url: str) -> str:
    """A remote logdir URL without trailing slashes (names are joined with `/`)."""
    m = _URL.match(url)
    if m is None:
        return url
    rest = url[m.end():].rstrip("/")
    return f"{m.group(1)}://{rest}"


_fs_lock = threading.Lock()
_filesystems: dict[tuple[str, ...], Any] = {}
# where backends find credentials and endpoints: a client is made again when one changes
_CREDENTIAL_ENV = ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
                   "AWS_PROFILE", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3",
                   "AWS_DEFAULT_REGION", "GOOGLE_APPLICATION_CREDENTIALS",
                   "STORAGE_EMULATOR_HOST")


def filesystem(url: str) -> tuple[Any, str]:
    """The fsspec filesystem for `url` and the path inside it.

    Raises RemoteError naming the extra to install when the backend is missing."""
    m = _URL.match(url)
    protocol = m.group(1).lower() if m else ""
    try:
        import fsspec
        from fsspec.core import split_protocol
    except ImportError:
        raise _missing(url, protocol) from None
    key = (protocol, str(timeout()), *(os.environ.get(name, "") for name in _CREDENTIAL_ENV))
    with _fs_lock:
        try:
            cls = _emulated(protocol) or fsspec.get_filesystem_class(protocol)
            where = {} if EXTRAS.get(protocol) in ("s3", "gcs") else host_options(cls, url)
        except ImportError:
            raise _missing(url, protocol) from None
        except ValueError as exc:  # unknown protocol
            raise RemoteError(errno.EINVAL, f"unknown protocol ({_one_line(str(exc))})",
                              url) from None
        except Exception as exc:
            raise error_for(url, exc) from None
        key += (repr(sorted(where.items())),)
        fs = _filesystems.get(key)
        if fs is None:
            # our own listing cache (below) decides how fresh a listing is
            try:
                fs = make_client(cls, url, use_listings_cache=False, skip_instance_cache=True,
                                 **_bounded(protocol), **where)
            except ImportError:
                raise _missing(url, protocol) from None
            if hasattr(fs, "retries") and EXTRAS.get(protocol) == "s3":
                fs.retries = 1  # s3fs's own loop would multiply botocore's tries
                check_listings(fs)
            _filesystems[key] = fs
    try:  # (fsspec's `generic://` recursed until RecursionError here)
        path = (fs._strip_protocol(url) if hasattr(fs, "_strip_protocol")
                else split_protocol(url)[1])
    except Exception as exc:
        raise error_for(url, exc) from None
    if not isinstance(path, str):
        raise RemoteError(errno.EINVAL, "not a URL of files", url)
    return fs, path


# the settings that choose an endpoint: what identifies one when no client can be made
_SOURCE_ENV = ("AWS_PROFILE", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3", "AWS_DEFAULT_REGION",
               "AWS_REGION", "GOOGLE_CLOUD_PROJECT", "STORAGE_EMULATOR_HOST")


def source(url: str) -> str:
    """Where the bytes of `url` come from beyond its name: the protocol, and the endpoint and
    region the client actually talks to (an S3 client's, wherever it found them: environment,
    `~/.aws` profile…; gcsfs's, an emulator's when `STORAGE_EMULATOR_HOST` names one). The
    same bucket and key on another endpoint (another server, a test server copying the names
    and ETags) is other data: the index cache and the shards must never take one for the
    other (see SECURITY.md). The settings that chose the endpoint are not part of it: a
    laptop and a cluster's workers reach one bucket through different variables and
    profiles (a GCS project set in one shell only, `AWS_REGION` for `AWS_DEFAULT_REGION`),
    and the shards one wrote are the other's. Only when no client can be made are those
    settings all there is (never a match by luck)."""
    m = _URL.match(url)
    protocol = m.group(1).lower() if m else ""
    try:
        fs, _ = filesystem(url)
        if EXTRAS.get(protocol) == "gcs":
            endpoint, region = str(getattr(fs, "_location", "")), ""
        else:
            client = getattr(fs, "s3", None)
            if client is None and hasattr(fs, "set_session"):
                from fsspec.asyn import sync

                client = sync(fs.loop, fs.set_session)
            meta = getattr(client, "meta", None)
            endpoint = getattr(meta, "endpoint_url", "")
            region = getattr(meta, "region_name", "")
    except Exception as exc:
        return "\n".join([protocol, *(f"{name}={os.environ.get(name, '')}"
                                      for name in _SOURCE_ENV), f"client={type(exc).__name__}"])
    return "\n".join([protocol, f"endpoint={endpoint}", f"region={region}"])


def _emulated(protocol: str) -> Any:
    """gcsfs's JSON-API filesystem when `STORAGE_EMULATOR_HOST` names a GCS emulator (None
    otherwise). gcsfs's default class first asks a bucket's layout over gRPC (Storage
    Control, for zonal buckets) at the endpoint; an emulator speaks only the JSON API, so
    each such probe waited out its 30 s retries on every operation (not cached when it
    fails) — a listing took 30 s. As Google's own client does for an emulator, no
    credentials are looked for either (`token="anon"`, in `_bounded`)."""
    if EXTRAS.get(protocol) != "gcs" or not _emulator():
        return None
    from gcsfs.core import GCSFileSystem

    return GCSFileSystem


def _emulator() -> bool:
    return os.environ.get("STORAGE_EMULATOR_HOST", "") not in ("", "default")


def _bounded(protocol: str) -> dict[str, Any]:
    """Options bounding the time of a backend's requests (S3: botocore's timeouts and
    retries; GCS: gcsfs's per-request timeout)."""
    if EXTRAS.get(protocol) == "gcs":
        from aiohttp import ClientTimeout  # gcsfs's HTTP client

        # gcsfs logs a request out of retries with its traceback: with no logging set up,
        # Python's last-resort handler printed it on stderr above our one line (the error
        # itself reaches the user, as one line, from `error_for`)
        logging.getLogger("gcsfs").addHandler(_QUIET)

        t = timeout()  # to connect, and for each read of a body (not the whole body)
        anon = {"token": "anon"} if _emulator() else {}
        return {"requests_timeout": ClientTimeout(sock_connect=t, sock_read=t), **anon}
    if EXTRAS.get(protocol) != "s3":
        return {}
    t = timeout()
    return {"config_kwargs": {
        "connect_timeout": t, "read_timeout": t,
        "retries": {"total_max_attempts": ATTEMPTS, "mode": "standard"}}}


_QUIET = logging.NullHandler()  # (one handler, however many clients are made)


def _missing(url: str, protocol: str) -> RemoteError:
    extra = EXTRAS.get(protocol)
    how = (f"pip install 'tfdbg-tui[{extra}]'" if extra
           else f"pip install fsspec and the fsspec backend for {protocol}://")
    return RemoteError(errno.ENOSYS, f"reading {protocol}:// needs an extra package: {how}",
                       url)


@dataclass(frozen=True)
class RemoteStat:
    """What `os.stat` says of a local file, for an object (regular, no device or inode)."""

    st_size: int
    st_mtime: float
    version: str
    st_mode: int = stat.S_IFREG | 0o444
    # False when the server gave no version of the bytes (an ETag, a generation…): `version`
    # is then only the size and time, which a rewrite of the same length in the same second
    # (or on a server that gives no time) keeps — nothing to trust a cache entry on
    versioned: bool = True
    st_dev: int = 0
    st_ino: int = 0

    @property
    def st_mtime_ns(self) -> int:
        return int(self.st_mtime * 1e9)


def stat_of(info: dict[str, Any]) -> RemoteStat | None:
    """The RemoteStat of one listing entry; None for a folder (or anything but an object)."""
    if info.get("type") != "file":
        return None
    size = info.get("size")
    size = size if isinstance(size, int) and size >= 0 else 0  # a server's claim, not trusted
    modified: Any = (info.get("LastModified") or info.get("mtime") or info.get("updated")
                     or info.get("created"))
    try:
        mtime = float(modified.timestamp() if hasattr(modified, "timestamp") else modified or 0)
    except (TypeError, ValueError, OverflowError):
        mtime = 0.0
    version = next((str(info[k]) for k in ("ETag", "etag", "generation", "md5Hash", "version_id")
                    if info.get(k)), None)
    if version is None:
        return RemoteStat(size, mtime, f"{size}:{mtime}", versioned=False)
    return RemoteStat(size, mtime, version)
