"""Ending `index`'s local pool of workers when the command is told to end (SIGTERM, SIGHUP):
apart from the command so the pool's own bookkeeping stays in one place."""

from __future__ import annotations

import time
from typing import Any


def end_workers(pool: Any) -> None:
    """Cancel what has not started and send SIGTERM to each worker process: a task that is
    writing a shard removes its temporary and ends the worker (`shard_task.index_task`); the
    pool's shutdown then waits for them, so the command exits only once they have.

    The pool's own table of workers (the dict its manager thread adds to), not a copy: a
    worker the manager was starting as the signal came is in it only later, and one never
    sent SIGTERM kept the shutdown waiting for ever (seen once under load). So SIGTERM goes
    to every live worker until none is left (a few seconds at most; then the pool's
    shutdown waits as before). Each is sent it once: its handler is not interrupted."""
    procs = getattr(pool, "_processes", None) or {}  # (shutdown forgets it; we keep it)
    pool.shutdown(wait=False, cancel_futures=True)
    sent: set[int] = set()
    deadline = time.monotonic() + 10.0
    while True:
        alive = [p for p in list(procs.values()) if _alive(p)]
        if not alive or time.monotonic() > deadline:
            return
        for proc in alive:
            if id(proc) in sent:
                continue
            sent.add(id(proc))
            try:
                proc.terminate()
            except (OSError, ValueError, AttributeError):  # (one that has ended already)
                pass
        time.sleep(0.05)  # (polling a few processes' exit: no event to wait on here)


def _alive(proc: Any) -> bool:
    try:
        return bool(proc.is_alive())
    except (OSError, ValueError, AssertionError):
        return False
