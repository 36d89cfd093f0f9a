"""Whether `export` has the address space it needs, said before it runs out of it.

Why: under an address-space limit (`ulimit -v`, a container's), running out inside pyarrow or
while starting a thread is not an exception Python can report: Arrow aborts (`std::bad_alloc`),
glibc aborts allocating a thread's local storage, a thread's stack lands on a failed mapping
(SIGSEGV) — or pyarrow fails to load and the export says it is not installed. What export
takes is mostly fixed: pyarrow's libraries, its thread pools' and our threads' stacks and
malloc arenas, about `BASE` bytes whatever the logdir (measured: a 4 MB logdir fails below
~1,000 MB), plus a few times the bytes of the logdir's event files (1.1-1.5 GB for 95 MB).
So the limit is compared with that before pyarrow is loaded and before the tables are
written, and an error that gets through anyway names the same figure.
"""

from __future__ import annotations

import resource

BASE = 1100 << 20  # address space taken before any data: pyarrow, thread stacks, arenas
PER_BYTE = 4  # and per byte of the logdir's event files (the index, the tables' batches)


def limit() -> int | None:
    """This process's address-space limit in bytes (None: unlimited)."""
    try:
        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    except (OSError, ValueError):
        return None
    return None if soft == resource.RLIM_INFINITY else int(soft)


def need(data: int) -> int:
    return BASE + PER_BYTE * max(0, data)


def figure(data: int) -> str:
    """What export needs, in words (`data` 0: not known yet)."""
    if data <= 0:
        return (f"at least {BASE >> 20} MB of address space (pyarrow and its threads), plus "
                f"~{PER_BYTE}x the size of the logdir's event files")
    return (f"about {need(data) >> 20} MB of address space (pyarrow and its threads "
            f"~{BASE >> 20} MB, plus ~{PER_BYTE}x the logdir's {max(1, data >> 20)} MB)")


def problem(data: int = 0) -> str | None:
    """One line if the address-space limit leaves less than export needs, else None."""
    room = limit()
    if room is None or room >= need(data):
        return None
    return (f"export needs {figure(data)}; this process may use {room >> 20} MB "
            "(ulimit -v): raise the limit, or use `tfdbg-tui report --json`")
