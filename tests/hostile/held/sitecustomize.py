"""Loaded by every Python process a test of tests/hostile/test_attack_sigterm_temporaries.py
starts (this folder first on PYTHONPATH), spawned workers included: when
`TFDBG_TEST_HOLD` names a writer, that writer, once its temporary file exists and before it
writes a byte, says so on the FIFO `TFDBG_TEST_EVENT` and waits for a signal — a point the
test waits for by event, then sends SIGTERM."""

import os

_WHAT = os.environ.get("TFDBG_TEST_HOLD", "")


def _hold() -> None:
    import signal

    fd = os.open(os.environ["TFDBG_TEST_EVENT"], os.O_WRONLY)
    os.write(fd, f"held {os.getpid()}\n".encode())
    os.close(fd)
    while True:
        signal.pause()


def _first() -> bool:
    """Whether this is the first writer of all the command's processes to get here (a marker
    beside the event FIFO made with O_EXCL): `shard-once` holds that one alone, so the task
    Dask runs again elsewhere after its worker was killed is not held too."""
    try:
        os.close(os.open(os.environ["TFDBG_TEST_EVENT"] + ".once",
                         os.O_WRONLY | os.O_CREAT | os.O_EXCL))
    except FileExistsError:
        return False
    return True


if _WHAT in ("shard", "shard-once"):  # `index`: a shard's temporary made, no Parquet yet
    import reader.index.shard_task as _task

    _write = _task.write

    def _held_write(*args, **kwargs):  # type: ignore[no-untyped-def]
        if _WHAT == "shard" or _first():
            _hold()
        return _write(*args, **kwargs)

    _task.write = _held_write
elif _WHAT == "csv":  # `diff --csv FILE`: its temporary made, nothing written yet
    import tfdbg_tui.commands.diff as _diff

    _replace = _diff.replace_file

    def _held_replace(path, fill):  # type: ignore[no-untyped-def]
        return _replace(path, lambda f: (_hold(), fill(f)))

    _diff.replace_file = _held_replace
elif _WHAT == "dask-start":  # `index --engine dask`: a worker process Dask spawns, starting
    try:
        with open("/proc/self/cmdline", "rb") as _f:
            _spawned = b"spawn_main" in _f.read()
    except OSError:
        _spawned = False
    if _spawned and _first():
        _hold()
