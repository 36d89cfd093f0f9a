"""Out of memory at a point of our choosing, not wherever the limit happens to fall.

Under an address-space limit (`ulimit -v`, `RLIMIT_AS`) a logdir too big for the process
must end in one line. Left to itself, the limit falls in the middle of parsing a chunk,
where the memory is spent on small objects, and then Python itself is out of room: while
the MemoryError unwinds, the interpreter cannot make the few small objects it needs —
closing a suspended generator fails and is printed ("Exception ignored in …") before our
line, and CPython 3.11 can even spin for ever retrying one allocation inside a `with`
block's exit (seen 1 run in 40 here). So, before each chunk of records is parsed, the file
layer asks whether the room left could hold what a chunk may cost (`FACTOR` times its bytes,
the bound SECURITY.md states, plus `MARGIN` for the unwinding) and raises MemoryError there,
with the room the error needs still free. Without a finite limit nothing is checked.
"""

from __future__ import annotations

import os

try:
    import resource
except ImportError:  # (not on Windows)
    resource = None  # type: ignore[assignment]

FACTOR = 3  # what parsing a chunk may cost, per byte of it (SECURITY.md: "~3×")
MARGIN = 4 << 20  # what raising and unwinding a MemoryError needs to be free
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def _limit() -> int | None:
    """The address-space limit in bytes, or None when there is none (or no way to know)."""
    if resource is None:
        return None
    try:
        soft, _hard = resource.getrlimit(resource.RLIMIT_AS)
    except (OSError, ValueError):
        return None
    return None if soft == resource.RLIM_INFINITY or soft <= 0 else int(soft)


def _used() -> int | None:
    """This process's address space in bytes (what RLIMIT_AS counts), from /proc."""
    try:
        fd = os.open("/proc/self/statm", os.O_RDONLY)
    except OSError:
        return None
    try:
        return int(os.read(fd, 64).split()[0]) * _PAGE
    except (OSError, ValueError, IndexError):
        return None
    finally:
        os.close(fd)


def _left(need: int) -> int | None:
    """The bytes left under the limit when fewer than `need` are (None: room enough, or
    no limit to know of)."""
    limit = _limit()
    used = None if limit is None else _used()
    if limit is None or used is None or used + need <= limit:
        return None
    return max(0, limit - used)


def fits(nbytes: int) -> bool:
    """Whether a record of `nbytes`, read into memory and then parsed, fits under the
    limit."""
    return _left(nbytes + FACTOR * nbytes + MARGIN) is None


def ensure_room(nbytes: int, name: str, offset: int) -> None:
    """Raise MemoryError (naming file `name` and `offset`) if parsing the `nbytes` of
    records there might not fit under the address-space limit; a no-op without one."""
    need = FACTOR * nbytes + MARGIN
    left = _left(need)
    if left is not None:
        raise MemoryError(f"{name} at byte {offset}: parsing the next {nbytes:,} bytes may "
                          f"need {need >> 20} MiB; {left >> 20} MiB is left under this "
                          "process's address-space limit")
