"""Making an fsspec client for a URL (where the URL says to connect; a client that fails
half-made let go quietly; an S3 client that refuses a listing that is no listing), and the
sizes a listing left out (`reader.io.remote` keeps the
clients made and the listings)."""

from __future__ import annotations

import asyncio
import errno
import gc
import sys
from typing import Any

from reader.io.remote_errors import (
    TIMEOUT_ENV,
    Malformed,
    RemoteError,
    _one_line,
    error_for,
    malformed_listing,
)


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


RESIZED = 4  # sizes of files an earlier listing gave asked again per listing, at most


def _sizeless(e: Any) -> bool:
    """A tfdbg file a listing gave no size for (an HTTP server's index page)."""
    return (isinstance(e, dict) and e.get("type") == "file" and e.get("size") is None
            and isinstance(e.get("name"), str)
            and e["name"].rsplit("/", 1)[-1].startswith("tfdbg_events."))


def reuse_sizes(entries: list[Any], previous: dict[str, Any], turn: int, grown: set[str]
                ) -> tuple[list[Any], set[str]]:
    """`entries` with the size (and time, version) an earlier listing of the folder found for
    each file it knew (`previous`: name → `RemoteStat`), but for at most `RESIZED` of them,
    left to be asked again (`sized`): those that grew at their last look first (the files a
    live run appends to), then one more in turn (`turn`: how many listings came before), so
    every file is asked again within a few listings. Returns the entries and the names
    left to be asked. Why: an index page gives no sizes, and a follower lists the folder
    every 0.2 s — a HEAD of every file on every poll was six requests a poll per host."""
    names = sorted(n for e in entries if _sizeless(e)
                   if previous.get(n := e["name"].rsplit("/", 1)[-1]) is not None)
    again = [n for n in names if n in grown][: RESIZED - 1]
    rest = [n for n in names if n not in again]
    if rest:
        again.append(rest[turn % len(rest)])
    out = []
    for e in entries:
        st = previous.get(e["name"].rsplit("/", 1)[-1]) if _sizeless(e) else None
        if st is not None and e["name"].rsplit("/", 1)[-1] not in again:
            e = {**e, "size": st.st_size, "mtime": st.st_mtime,
                 **({"ETag": st.version} if st.versioned else {})}
        out.append(e)
    return out, set(again)


def sized(fs: Any, url: str, entries: list[Any], limit: float) -> list[Any]:
    """`entries` with the size of each tfdbg file a listing gave none for (an HTTP server's
    index page lists links, not sizes) asked of the object itself (a HEAD), within `limit`
    seconds each. Before, such a file counted as empty: an HTTP logdir was "empty,
    no metadata record"."""
    todo = [i for i, e in enumerate(entries) if _sizeless(e)]
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
        except (FileNotFoundError, ValueError) as exc:  # (aiohttp's InvalidURL is one)
            # the page links to what the server does not have, or to no URL at all: the
            # folder is there (its page was read) — its listing is what is wrong
            name = entry["name"].rsplit("/", 1)[-1]
            raise RemoteError(errno.EBADMSG, f"its listing is malformed: it names {name!r}, "
                              "which the server does not have "
                              f"({type(exc).__name__}; an index page that is no folder's "
                              "listing?)", url) from None
        except Exception as exc:
            raise (malformed_listing(url, exc) or error_for(url, exc)) from None
        return {**entry, **got, "name": entry["name"]} if isinstance(got, dict) else entry

    out = list(entries)
    for i in todo:
        out[i] = one(out[i])
    return out


def check_listings(fs: Any) -> None:
    """Make an S3 client refuse a listing whose answer is no listing (`Malformed`). Why:
    botocore takes XML it cannot parse in a 200 answer for a server error (a 500, retried,
    then "Internal Server Error": said as "cannot reach it"), and an HTML page (a proxy's, a
    captive portal's) for an empty listing ("no such bucket"); either way the user looks at
    the network or the bucket, not at what answered. botocore's own check of a 200 answer
    (`_handle_200_error`, which turns it into a 500) runs first of all handlers, so ours
    takes its place and calls it after looking."""
    try:
        from botocore.handlers import _handle_200_error
        from fsspec.asyn import sync

        client = sync(fs.loop, fs.set_session)
        events = client.meta.events

        def answer(operation_model: Any = None, response_dict: Any = None,
                   **kwargs: Any) -> None:
            if getattr(operation_model, "name", "") in ("ListObjectsV2", "ListObjects"):
                _listing_answer(response_dict)
            _handle_200_error(operation_model=operation_model, response_dict=response_dict,
                              **kwargs)

        events.unregister("before-parse.s3.*", _handle_200_error)
        events.register_first("before-parse.s3.*", answer)
    except Exception:  # (another botocore, a client made otherwise: said as before)
        return


def _listing_answer(response_dict: Any) -> None:
    """A 200 answer to a listing must be an XML `ListBucketResult` (`Malformed` if not)."""
    if not isinstance(response_dict, dict) or response_dict.get("status_code") != 200:
        return
    from xml.etree.ElementTree import ParseError, XMLParser

    body = response_dict.get("body")
    parser = XMLParser()
    try:
        parser.feed(body if isinstance(body, bytes) else b"")
        root = parser.close()
    except ParseError as exc:
        raise Malformed(f"not XML: {exc}") from None
    tag = str(root.tag).rsplit("}", 1)[-1]
    if tag not in ("ListBucketResult", "Error"):  # (an error is botocore's to say)
        raise Malformed(f"a <{_one_line(tag)[:40]}> document, not a ListBucketResult")


def bounded_ls(fs: Any, path: str, limit: float) -> list[Any]:
    """`fs.ls(path)` within `limit` seconds in all. Why: each request of a listing is
    bounded, but a listing is as many requests as the server says there are pages
    — one that answers "there is more" for ever (a new continuation token each time) kept
    `report` listing without end, its memory growing."""
    from reader.io.remote_answers import is_http

    if is_http(fs):  # a folder's page is at `…/`: web servers redirect there, a request more
        path = path.rstrip("/") + "/"
    if not (getattr(fs, "async_impl", False) and hasattr(fs, "_ls")):
        return list(fs.ls(path, detail=True))
    from fsspec.asyn import sync

    async def bounded() -> Any:
        return await asyncio.wait_for(fs._ls(path, detail=True), limit)

    return list(sync(fs.loop, bounded))
