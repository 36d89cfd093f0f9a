"""What a failed remote call says, and how long a remote call may wait.

Every remote failure reaches the user as one `OSError` line naming the URL and the cause
(a missing object, a credential, a timeout with the setting that bounds it, bytes that did
not match their checksum, a network failure) — never a backend's traceback. The time limit
lives here too: the timeout message names it, and `reader.io.remote` and
`reader.io.remote_stream` apply it.
"""

from __future__ import annotations

import errno
import os

TIMEOUT_ENV = "TFDBG_TUI_REMOTE_TIMEOUT"
TIMEOUT = 30.0  # seconds to connect, to wait for an answer, for a body to bring 64 KiB


def timeout() -> float:
    """Seconds a remote operation may wait for the network (`TFDBG_TUI_REMOTE_TIMEOUT`)."""
    try:
        value = float(os.environ.get(TIMEOUT_ENV, ""))
    except ValueError:
        return TIMEOUT
    return value if 0 < value < 1e6 else TIMEOUT


class RemoteError(OSError):
    """A remote operation failed; `strerror` is one line saying why, `filename` the URL."""

    def __str__(self) -> str:
        return f"{self.filename}: {self.strerror}"


def _one_line(text: str) -> str:
    line = " ".join(str(text).split())
    return line[:300] + ("…" if len(line) > 300 else "")


def error_for(url: str, exc: BaseException) -> OSError:
    """The one-line OSError for a failed remote call (FileNotFoundError stays one)."""
    if isinstance(exc, RemoteError):
        return exc
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
    if _checksum_failed(exc):  # the server was reached: what it sent is what is wrong
        return RemoteError(errno.EBADMSG, "the bytes received did not match the object's "
                           "checksum: the object changed during the read, or the server or "
                           f"a proxy on the way corrupts it ({name}: {text})", url)
    return RemoteError(errno.EIO, f"cannot reach it ({name}: {text})", url)


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
