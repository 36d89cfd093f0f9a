"""What a failed remote call says, and how long a remote call may wait.

Every remote failure reaches the user as one `OSError` line naming the URL and the cause
(a missing object, a credential, a timeout with the setting that bounds it, bytes that did
not match their checksum, an answer cut short, a network failure) — never a backend's
traceback; what makes an answer cut short is here too (`answer_end`). The time limit
lives here too: the timeout message names it, and `reader.io.remote` and
`reader.io.remote_stream` apply it.
"""

from __future__ import annotations

import errno
import os
import re
from typing import Any

TIMEOUT_ENV = "TFDBG_TUI_REMOTE_TIMEOUT"
TIMEOUT = 30.0  # seconds to connect, to wait for an answer, for a body to bring 64 KiB


def timeout() -> float:
    """Seconds a remote operation may wait for the network (`TFDBG_TUI_REMOTE_TIMEOUT`)."""
    try:
        value = float(os.environ.get(TIMEOUT_ENV, ""))
    except ValueError:
        return TIMEOUT
    return value if 0 < value < 1e6 else TIMEOUT


class CutShort(Exception):
    """A server's answer that does not hold all the bytes asked for: its body ended before
    its Content-Length, or its headers announce another length or range than the one asked
    (`str`: what is wrong with it). Never taken for an object that ends there."""


class Malformed(Exception):
    """A server's answer that is not what was asked for, although the server was reached: a
    listing that is no listing (XML cut short, an HTML page from a proxy or a captive portal,
    links to objects the server does not have). Said as such, never as "cannot reach it"."""


class RemoteError(OSError):
    """A remote operation failed; `strerror` is one line saying why, `filename` the URL."""

    def __str__(self) -> str:
        return f"{self.filename}: {self.strerror}"


def _one_line(text: str) -> str:
    line = " ".join(str(text).split())
    return line[:300] + ("…" if len(line) > 300 else "")


_CONTENT_RANGE = re.compile(r"bytes (\d+)-(\d+)/(\d+|\*)")


def answer_end(resp: dict[str, Any], a: int, b: int) -> int:
    """Where the bytes of an answer to `Range: bytes=a-(b-1)` end (at most `b`; before it
    when the object is shorter than that): the end its Content-Range says, checked against
    its Content-Length. `CutShort` when the answer cannot be those bytes: another range, or
    a Content-Length its range does not have (a server failing mid-answer or a proxy
    cutting it announce bytes the body never brings: reading only as far as asked, the
    missing ones would go unnoticed, or not, by how soon the connection's close arrives)."""
    length = resp.get("ContentLength")
    size = length if isinstance(length, int) and length >= 0 else None
    text = resp.get("ContentRange")
    if text:
        m = _CONTENT_RANGE.fullmatch(str(text).strip())
        if m is None or int(m[1]) != a or not a <= int(m[2]) < b:
            raise CutShort(f"is not the range asked for (Content-Range {str(text)[:80]!r} "
                           f"for bytes {a}-{b - 1})")
        end = int(m[2]) + 1
        if size is not None and size != end - a:
            raise CutShort(f"announces {size} bytes for the {end - a} of its range "
                           f"(Content-Range {str(text)[:80]!r}, Content-Length {size})")
        return end
    if a:  # a whole object (the range ignored): its first bytes are not those asked for
        raise CutShort(f"has no Content-Range: it is not bytes {a}-{b - 1}")
    return b if size is None else min(b, size)


def error_for(url: str, exc: BaseException) -> OSError:
    """The one-line OSError for a failed remote call (FileNotFoundError stays one)."""
    if isinstance(exc, RemoteError):
        return exc
    if isinstance(exc, TimeoutError) and not str(exc) and exc.__cause__ is not None:
        exc = exc.__cause__  # fsspec's sync raises a bare FSTimeoutError from the real one
    if isinstance(exc, FileNotFoundError):
        text = _one_line(exc.strerror or (exc.args[0] if exc.args else "not found"))
        return FileNotFoundError(errno.ENOENT, f"not found ({text})", url)
    if isinstance(exc, PermissionError):
        text = _one_line(exc.strerror or (exc.args[0] if exc.args else "access denied"))
        return RemoteError(errno.EACCES, f"access denied ({text}); check the credentials "
                           "(environment, profile) for this bucket", url)
    name = type(exc).__name__
    text = _one_line(str(exc)) or name
    if isinstance(exc, TimeoutError) or "timeout" in name.lower():
        return RemoteError(errno.ETIMEDOUT, f"no answer within {timeout():g} s ({name}: "
                           f"{text}); --remote-timeout or {TIMEOUT_ENV} sets the limit", url)
    if isinstance(exc, CutShort) or _cut_short(exc):  # reached: its answer is incomplete
        what = str(exc) if isinstance(exc, CutShort) else f"was cut short ({name}: {text})"
        return RemoteError(errno.EIO, f"the server's answer {what}: a server failing "
                           "mid-answer or a proxy cutting it; none of that answer is used",
                           url)
    if _checksum_failed(exc):  # the server was reached: what it sent is what is wrong
        return RemoteError(errno.EBADMSG, "the bytes received did not match the object's "
                           "checksum: the object changed during the read, or the server or "
                           f"a proxy on the way corrupts it ({name}: {text})", url)
    return RemoteError(errno.EIO, f"cannot reach it ({name}: {text})", url)


def malformed_listing(url: str, exc: BaseException | None) -> RemoteError | None:
    """The one line for a listing the server answered with something that is no listing
    (`Malformed`, or a parser's error: XML, JSON, text that is not text), in `exc` or what it
    was raised from; None for any other failure (`error_for` says those)."""
    import json
    from xml.etree.ElementTree import ParseError

    for _ in range(4):
        if exc is None:
            return None
        if isinstance(exc, (Malformed, ParseError, json.JSONDecodeError, UnicodeDecodeError)):
            what = str(exc) if isinstance(exc, Malformed) else f"{type(exc).__name__}: {exc}"
            return RemoteError(errno.EBADMSG, f"its listing is malformed ({_one_line(what)}): "
                               "the server answered, but not with a listing of its objects "
                               "(a proxy or a server in its place?)", url)
        exc = exc.__cause__ or exc.__context__
    return None


# a client's words for a body that ended before its Content-Length (aiohttp, botocore,
# urllib3, http.client)
_CUT = ("payload is not completed", "contentlengtherror", "incompleteread")


def _cut_short(exc: BaseException | None) -> bool:
    """The client found an answer's body ended before the length its headers announced (by
    name, in `exc` or what it was raised from)."""
    for _ in range(4):
        if exc is None:
            return False
        text = f"{type(exc).__name__} {exc}".lower()
        if any(word in text for word in _CUT):
            return True
        exc = exc.__cause__ or exc.__context__
    return False


def _checksum_failed(exc: BaseException | None) -> bool:
    """The client found an answer's bytes differ from the checksum the server sent for them
    (botocore's FlexibleChecksumError, gcsfs's ChecksumError: by name, the backends being
    optional), in `exc` or what it was raised from."""
    for _ in range(4):  # (a few links of the chain)
        if exc is None:
            return False
        text = f"{type(exc).__name__} {exc}".lower()
        if "checksum" in text and ("checksumerror" in text or "match" in text):
            return True
        exc = exc.__cause__ or exc.__context__
    return False
