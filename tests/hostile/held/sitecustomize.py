"""Loaded by every Python process a test of tests/hostile/test_attack_sigterm_temporaries.py
starts (this folder first on PYTHONPATH), spawned workers included. When
`TFDBG_TEST_SHM_LOG` names a file, each process notes there the /dev/shm names it makes. When
`TFDBG_TEST_HOLD` names a writer, that writer, once its temporary file exists and before it
writes a byte, says so on the FIFO `TFDBG_TEST_EVENT` and waits for a signal — a point the
test waits for by event, then sends SIGTERM."""

import os

_WHAT = os.environ.get("TFDBG_TEST_HOLD", "")


def _log_shm_names(log: str) -> None:
    """Append to `log` the /dev/shm name of every semaphore or shared memory block this
    process makes through multiprocessing, so a test asks whether what the command's
    processes made is gone — not whether /dev/shm grew, which other tests' and other users'
    processes make it do on a busy machine (CI failed on 13 `sem.mp-` names not ours)."""
    import multiprocessing.shared_memory as shared_memory
    import multiprocessing.synchronize as synchronize

    def note(made: str) -> str:
        fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:  # a named semaphore "/mp-x" is the file sem.mp-x; shared memory "psm_x" is psm_x
            os.write(fd, (("sem." + made.lstrip("/")) if made.lstrip("/").startswith("mp-")
                          else made.lstrip("/")).encode() + b"\n")
        finally:
            os.close(fd)
        return made

    sem_name = synchronize.SemLock._make_name
    shm_name = shared_memory._make_filename
    synchronize.SemLock._make_name = staticmethod(  # type: ignore[method-assign]
        lambda: note(sem_name()))
    shared_memory._make_filename = lambda: note(shm_name())  # type: ignore[attr-defined]


if os.environ.get("TFDBG_TEST_SHM_LOG"):
    _log_shm_names(os.environ["TFDBG_TEST_SHM_LOG"])


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
