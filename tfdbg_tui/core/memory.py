"""Make freed numpy temporaries go back to the OS, so the TUI's RSS tracks what it holds;
and keep Python's cyclic collector from stalling the app's keys (`calm_collector`).

Why: glibc's malloc serves blocks ≥ 128 KiB with `mmap` and returns them on `free` — but its
threshold is *dynamic*: each time such a block is freed, the threshold rises to that block's
size (up to 32 MiB). After the first few column reallocations and sort temporaries, every
array up to 32 MiB lands on the heap (and in the indexing and diagnosis threads, in their
own arenas), where a free rarely shrinks the process. Measured on the 1M-trace benchmark
logdir: ~45 MB of peak RSS and ~75 MB of resting RSS were such freed-but-kept memory.
Setting `M_MMAP_THRESHOLD` explicitly turns the dynamic adjustment off, so big temporaries
are unmapped when freed. The cost is an `mmap`/`munmap` pair per big temporary (microseconds;
key-to-repaint allocates none).

A no-op where glibc's `mallopt` is not available (macOS, musl, Windows).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import sys

M_MMAP_THRESHOLD = -3  # glibc's malloc.h
MMAP_THRESHOLD = 128 * 1024  # glibc's default, but fixed: no longer raised by frees

_done = False


def release_freed_memory() -> bool:
    """Pin glibc's mmap threshold (once per process); True when it took effect."""
    global _done
    if _done:
        return True
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):  # not glibc (e.g. musl without mallopt)
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    _done = bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD))
    return _done


# Young objects collected after this many allocations (Python's default: 700). While a big
# logdir is read in the app's worker, the default made the collector run every few
# milliseconds and, now and then, walk every object of the process.
YOUNG = 50_000


def calm_collector() -> None:
    """Python's cyclic collector made to stay out of the way of the app's keys: what the
    process holds once it has imported everything (modules, classes, Textual, numpy,
    protobuf) is moved out of its reach (`gc.freeze`), and the young generation is
    collected after `YOUNG` allocations instead of 700.

    Why: a full collection walks every object; while a 12.5M-record logdir was read, one
    of them now and then held the GIL for ~100 ms, and the key pressed then waited for it
    (max key-to-repaint while indexing in `make bench`: 127 ms; standalone runs 48–112 ms;
    with the collector off 20–40 ms, with this 15–61 ms). For the process that runs the
    app (`tfdbg-tui LOGDIR`, and the benchmarks that stand for it), not for a caller's:
    what is frozen is never collected, which a long test session should not get."""
    gc.freeze()
    gc.set_threshold(YOUNG, *gc.get_threshold()[1:])
