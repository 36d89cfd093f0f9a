"""Making an fsspec client for a URL (where the URL says to connect; a client that fails
half-made let go quietly), and the sizes a listing left out (`reader.io.remote` keeps the
clients made and the listings)."""

from __future__ import annotations

import asyncio
import errno
import gc
import sys
from typing import Any

from reader.io.remote_errors import TIMEOUT_ENV, RemoteError, error_for


def host_options(cls: Any, url: str) -> dict[str, Any]:
    """What the URL itself says of where to connect, for backends whose URLs name a host
    (`ftp://host:port/…`, `webhdfs://…`): each host is a client of its own. (Buckets are
    named in the path, s3:// and gs://: the caller asks nothing of those.) Before, an
    `ftp://` logdir's client was made without its host: never readable."""
    if not hasattr(cls, "_get_kwargs_from_urls"):
        return {}
    got = cls._get_kwargs_from_urls(url)
    return dict(got) if isinstance(got, dict) else {}


def make_client(cls: Any, url: str, **options: Any) -> Any:
    """`cls(**options)`; the one-line error of `error_for` when it fails (ImportError passes:
    the caller names the package to install). A client that fails half-made is let go with
    the interpreter's "Exception ignored" report silenced: fsspec's FTP client's `__del__`
    printed an AttributeError traceback on stderr under our one line."""
    hook = sys.unraisablehook
    sys.unraisablehook = lambda _u: None
    try:
        try:
            return cls(**options)
        except ImportError:
            raise
        except Exception as exc:
            error = error_for(url, exc)
            exc.__traceback__ = None  # the frames that hold the half-made client
            del exc
            gc.collect()
        raise error
    finally:
        sys.unraisablehook = hook


def sized(fs: Any, url: str, entries: list[Any], limit: float) -> list[Any]:
    """`entries` with the size of each tfdbg file a listing gave none for (an HTTP server's
    index page lists links, not sizes) asked of the object itself (a HEAD), within `limit`
    seconds each. Before, such a file counted as empty: an HTTP logdir was "empty,
    no metadata record"."""
    todo = [i for i, e in enumerate(entries) if isinstance(e, dict) and e.get("type") == "file"
            and e.get("size") is None and isinstance(e.get("name"), str)
            and e["name"].rsplit("/", 1)[-1].startswith("tfdbg_events.")]
    if not todo:
        return entries

    def one(entry: dict[str, Any]) -> dict[str, Any]:
        try:
            if getattr(fs, "async_impl", False) and hasattr(fs, "_info"):
                from fsspec.asyn import sync

                async def info() -> Any:
                    return await asyncio.wait_for(fs._info(entry["name"]), limit)

                got = sync(fs.loop, info)
            else:
                got = fs.info(entry["name"])
        except asyncio.TimeoutError:
            raise RemoteError(errno.ETIMEDOUT, f"no size of {entry['name']} within {limit:g} "
                              f"s; --remote-timeout or {TIMEOUT_ENV} sets the limit",
                              url) from None
        except Exception as exc:
            raise error_for(url, exc) from None
        return {**entry, **got, "name": entry["name"]} if isinstance(got, dict) else entry

    out = list(entries)
    for i in todo:
        out[i] = one(out[i])
    return out
