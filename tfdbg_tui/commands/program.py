"""The PROGRAM of `tfdbg-tui run`, checked and compiled before TensorFlow is loaded.

Why: `run` records a program by running it in its own process, so PROGRAM must be Python.
Given something else (`run -- /bin/true`, a shell script, a folder, a FIFO, a file it may not
read), the old path loaded TensorFlow (seconds, and its log lines) and then showed runpy's
SyntaxError traceback with exit status 1 — as if the program had failed. Here each such
PROGRAM is one line naming it and what it is, exit 2, before anything starts; and a script
that is Python is compiled once, here, and run from that code (no `<frozen runpy>` frames
under the recorded stacks).

What Python itself runs is accepted: a script (any name: `train`, with a `#!` line, is
Python too when it compiles), a folder or a zip archive holding `__main__.py` (those two go
through `runpy.run_path`, as `python DIR` does).
"""

from __future__ import annotations

import codecs
import errno
import os
import stat
import tokenize
import zipfile
from dataclasses import dataclass
from types import CodeType

# a script is a few MB at most; a bigger "script" is not read whole into memory
MAX_SCRIPT_BYTES = 64 << 20
WHAT_RUN_TAKES = "run records Python programs: -- SCRIPT.py ARGS or -- -m MODULE ARGS"


class ProgramError(Exception):
    """PROGRAM cannot be run as Python; the message is one line naming it."""


@dataclass(frozen=True)
class Script:
    """A checked PROGRAM: `code` compiled from a script file, or None for a folder or zip
    archive with `__main__.py` (run by `runpy.run_path`)."""

    path: str
    code: CodeType | None


def load(script: str) -> Script:
    """`script` checked (and compiled when it is a file); ProgramError when it is not a
    Python program Python could run."""
    name = repr(script)
    try:
        st = os.stat(script)
    except OSError as exc:
        if exc.errno == errno.ENOENT:
            raise ProgramError(f"can't open file {name}: no such file") from None
        raise ProgramError(f"can't open file {name}: {exc.strerror}") from None
    if stat.S_ISDIR(st.st_mode):
        if not os.path.isfile(os.path.join(script, "__main__.py")):
            raise ProgramError(f"{name} is a folder without __main__.py; {WHAT_RUN_TAKES}")
        return Script(script, None)
    if not stat.S_ISREG(st.st_mode):  # a FIFO would block, a device do something
        raise ProgramError(f"{name} is a device, FIFO or socket, not a script; "
                           f"{WHAT_RUN_TAKES}")
    source = _read(script, name)
    if source[:4] == b"PK\x03\x04" and zipfile.is_zipfile(script):
        return _archive(script, name)
    return Script(script, _compile(source, os.path.abspath(script), name))


def _read(script: str, name: str) -> bytes:
    try:
        fd = os.open(script, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except OSError as exc:
        raise ProgramError(f"can't open file {name}: {exc.strerror}") from None
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(fd).st_mode):  # (replaced since the stat)
            raise ProgramError(f"{name} is not a regular file; {WHAT_RUN_TAKES}")
        try:
            data = f.read(MAX_SCRIPT_BYTES + 1)
        except OSError as exc:
            raise ProgramError(f"can't read file {name}: {exc.strerror}") from None
    if len(data) > MAX_SCRIPT_BYTES:
        raise ProgramError(f"{name} is more than {MAX_SCRIPT_BYTES >> 20} MiB, not a "
                           f"script; {WHAT_RUN_TAKES}")
    return data


def _archive(script: str, name: str) -> Script:
    try:
        with zipfile.ZipFile(script) as z:
            has_main = "__main__.py" in z.namelist()
    except (OSError, zipfile.BadZipFile, ValueError) as exc:
        raise ProgramError(f"{name} is an unreadable zip archive ({exc}); "
                           f"{WHAT_RUN_TAKES}") from None
    if not has_main:
        raise ProgramError(f"{name} is a zip archive without __main__.py; {WHAT_RUN_TAKES}")
    return Script(script, None)


def _compile(source: bytes, path: str, name: str) -> CodeType:
    """Compile as Python compiles a script: the encoding its first lines declare (PEP 263),
    UTF-8 otherwise. Each way it can fail is said as what PROGRAM then is."""
    nul = source.find(b"\0")
    if nul >= 0:  # an executable, an image, …: Python refuses NUL anywhere
        kind = "an executable" if source[:4] == b"\x7fELF" else "a binary file"
        raise ProgramError(f"{name} is {kind}, not a Python script (byte 0 at offset {nul}); "
                           f"{WHAT_RUN_TAKES}")
    lines = iter(source.splitlines(keepends=True)[:2])
    try:
        encoding, _ = tokenize.detect_encoding(lambda: next(lines, b""))
    except SyntaxError as exc:
        if "encoding" in str(exc.msg) and "declaration" not in str(exc.msg):
            # an unknown or contradictory coding declaration
            raise ProgramError(f"{name} is not a Python script ({exc.msg}); "
                               f"{WHAT_RUN_TAKES}") from None
        encoding = "utf-8"  # (its first lines are not UTF-8: said below, with the byte)
    try:
        text = codecs.decode(source, encoding)
    except UnicodeDecodeError as exc:
        raise ProgramError(f"{name} is not a Python script: not {encoding} text (byte "
                           f"{source[exc.start]:#04x} at offset {exc.start}); "
                           f"{WHAT_RUN_TAKES}") from None
    try:
        return compile(text.removeprefix("\ufeff"), path, "exec", dont_inherit=True)
    except SyntaxError as exc:  # (a shell script is text, but not Python)
        where = f"line {exc.lineno}" if exc.lineno else "its text"
        raise ProgramError(f"{name} is not a Python script: {exc.msg} at {where}; "
                           f"{WHAT_RUN_TAKES}") from None
    except (ValueError, RecursionError, MemoryError) as exc:  # too deeply nested, …
        raise ProgramError(f"{name} cannot be compiled as Python ({type(exc).__name__}); "
                           f"{WHAT_RUN_TAKES}") from None
