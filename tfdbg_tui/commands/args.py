"""Argument parsing the subcommands share: usage errors as exceptions, counts that are counts.

Why one module: argparse's default `error()` prints a usage block and exits, which is not the
one-line error with exit status 2 every command promises; and `--limit -1` must be refused,
not read as "no limit". Each command catches `UsageError` and prints it through
`error_line`.
"""

from __future__ import annotations

import argparse
import errno
import os
import stat
import sys
from typing import TYPE_CHECKING, NoReturn

if TYPE_CHECKING:
    from _typeshed import SupportsWrite


class UsageError(Exception):
    """A command line the parser refused; its message is one line."""


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)

    def _print_message(self, message: str, file: SupportsWrite[str] | None = None) -> None:
        """As argparse's, but an output that cannot be written (`--help > /dev/full`) is
        an error (the CLI's one line, status 2), not silently skipped with status 0."""
        if message:
            (file or sys.stderr).write(message)


def count(text: str) -> int:
    """A count (`--limit`, `--tight-steps`): a negative one is a usage error, not "no limit"."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be ≥ 0: {text!r}")
    return value


def read_input(path: str, limit: int) -> str:
    """The UTF-8 text of an input file the user names (`diff --map`): a regular file, or a
    pipe (`--map <(…)`, `/dev/stdin` fed by a pipe). Why not plain `open`: opening a FIFO
    nobody writes to blocks forever, and opening a device may do something (a tape
    rewinds). So a device or folder is refused before it is opened, the file is opened
    without blocking, a FIFO with no writer is one line; more than `limit` bytes is one line
    too (never a silent cut). OSError or ValueError, one line each."""
    st = os.stat(path)
    if stat.S_ISDIR(st.st_mode):
        raise OSError(errno.EISDIR, "is a folder, not a file", path)
    if not (stat.S_ISREG(st.st_mode) or stat.S_ISFIFO(st.st_mode)):
        raise OSError(errno.EINVAL, "is a device or socket, not a file", path)
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    with os.fdopen(fd, "rb") as f:
        fifo = stat.S_ISFIFO(os.fstat(fd).st_mode)
        if fifo:  # a writer that is still writing is waited for; none at all is EOF now
            os.set_blocking(fd, True)
        data = f.read(limit + 1)
    if len(data) > limit:
        raise ValueError(f"more than {limit >> 10} KiB; a map is a few lines")
    if fifo and not data:
        raise OSError(errno.ENODATA, "a FIFO nothing writes to; nothing read", path)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"not UTF-8 text (byte {exc.start})") from None


REMOTE_TIMEOUT_HELP = ("how long a read from a bucket (s3://, gs://) may wait for the network:"
                       " to connect, for each answer, for each 64 KiB of a body (default 30, or"
                       " $TFDBG_TUI_REMOTE_TIMEOUT)")


def seconds(text: str) -> float:
    """A time limit (`--remote-timeout`): a finite number of seconds > 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not 0 < value < 1e6:  # (also refuses NaN and ∞)
        raise argparse.ArgumentTypeError(f"must be > 0 and < 1e6 seconds: {text!r}")
    return value


def add_remote_timeout(p: argparse.ArgumentParser) -> None:
    p.add_argument("--remote-timeout", type=seconds, metavar="SECONDS",
                   help=REMOTE_TIMEOUT_HELP)


def apply_remote_timeout(value: float | None) -> None:
    """Make `--remote-timeout` the limit of every remote read of this command — and of the
    processes it starts (workers inherit the environment): it sets the variable the reader
    reads (`reader.io.remote.timeout`), overriding one the user exported."""
    from reader.io.remote_errors import TIMEOUT_ENV

    if value is not None:
        os.environ[TIMEOUT_ENV] = repr(value)
