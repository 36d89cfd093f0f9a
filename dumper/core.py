"""Turn TensorFlow's own tfdbg2 dumping on and off so that nothing recorded is lost.

`enable()` wraps `tf.debugging.experimental.enable_dump_debug_info` (so TensorFlow's reader and
TensorBoard read the result) and adds what a NaN hunt needs around it:
- checks on the logdir and arguments, failing with one-line `DumperError`s;
- with `buffer=-1`, a daemon thread calling the writer's `FlushExecutionFiles` and
  `FlushNonExecutionFiles` every `flush_interval` seconds, so a hard kill loses at most that
  much (TensorFlow otherwise leaves the last few KB of every file in stdio buffers);
- on SIGTERM, a handler that closes the dump and then lets the signal end the process as it
  would have (default action: death by SIGTERM); on exit and on an uncaught exception
  (including Ctrl-C's KeyboardInterrupt) an atexit hook closes it;
- optionally, the stop at the first NaN/∞ (`dumper.stop`);
- around a fork, the parent's dump is kept out of the child's reach (`dumper.fork`).
TensorFlow is imported only when `enable()` is called.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import re
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from types import FrameType
from typing import Any, ParamSpec

from dumper import fork
from dumper.errors import DumperError
from dumper.graph_vars import keep_variables_checkpointable
from dumper.logdir import disk_full, prepare_logdir
from dumper.tensors import MODE_NAMES, VALUE_MODES, mode_number

FLUSH_INTERVAL = 1.0


@dataclass
class Dump:
    """The dump in progress: where it goes and how; `flush()` forces data to disk now."""

    logdir: str
    mode: str
    buffer: int
    stop_at_nan: bool
    _writer: Any = field(repr=False, default=None)
    _stop_flusher: threading.Event = field(repr=False, default_factory=threading.Event)
    _flusher: threading.Thread | None = field(repr=False, default=None)
    _old_sigterm: Any = field(repr=False, default=None)
    _watcher: Any = field(repr=False, default=None)
    _pid: int = field(repr=False, default_factory=os.getpid)
    # The stop message once the NaN watcher stopped the program (`stop_at_nan`).
    stopped: str | None = None

    def flush(self) -> None:
        """Write buffered executions and traces out (with a circular buffer: its content)."""
        self._writer.FlushNonExecutionFiles()
        self._writer.FlushExecutionFiles()

    def enforce_stop(self, on_swallowed: Callable[[str], None] | None) -> None:
        """Make the stop at NaN hold against a program that catches `StoppedAtNaN`.

        If the program swallows the exception and runs another TensorFlow op, the watcher
        calls `on_swallowed(message)` there (`run` prints and ends the process). None turns
        it off again (the stop was handled). Needs `stop_at_nan`.
        """
        if self._watcher is not None:
            self._watcher.on_swallowed = on_swallowed
            if on_swallowed is None:
                self._watcher.disarm()


_current: Dump | None = None
_lock = threading.RLock()
_fork_handlers = False
_fork_held = False
# Called with the signal number after the dump was closed because of a signal (`run` uses
# it to say where the data is before the process dies).
signal_hooks: list[Callable[[int], None]] = []


def _undo_enable(path: str) -> None:
    """Undo what TensorFlow's `enable_dump_debug_info` did for `path` before its writer
    failed (a full disk, a folder it cannot write): its callbacks stay installed and its
    exit hook, which opens the writer again, would print a traceback as the process ends.
    A dumping state of another path (the program's own) is left alone."""
    try:
        from tensorflow.python.debug.lib import dumping_callback as dc
        from tensorflow.python.eager import function as function_lib
        from tensorflow.python.framework import op_callbacks
    except ImportError:
        return
    state = getattr(dc._state, "dumping_callback", None)
    if state is None or state.dump_root != path:
        return
    atexit.unregister(dc.disable_dump_debug_info)
    with contextlib.suppress(Exception):
        op_callbacks.remove_op_callback(state.callback)
    with contextlib.suppress(Exception):
        function_lib.CONCRETE_FUNCTION_CALLBACKS.remove(state.function_callback)
    with contextlib.suppress(AttributeError):
        delattr(dc._state, "dumping_callback")


class _FrozenSourceFilter(logging.Filter):
    """Drop TensorFlow's warning that it can't read `<frozen runpy>` and the like.

    Frozen stdlib modules (runpy, when the program runs under `python -m`) sit in every
    recorded stack; TensorFlow tries to snapshot their source once and warns. It is noise
    the user can do nothing about.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        return "<frozen " not in record.getMessage()


_FROZEN_FILTER = _FrozenSourceFilter()


def _check_dtypes(tf: Any, dtypes: Sequence[Any] | None) -> list[Any] | None:
    if dtypes is None:
        return None
    out = []
    for d in dtypes:
        try:
            out.append(tf.as_dtype(d))
        except TypeError:
            raise DumperError(f"unknown dtype {d!r}") from None
    return out


def enable(
    logdir: str,
    mode: str = "FULL_HEALTH",
    buffer: int = -1,
    op_regex: str | None = None,
    dtypes: Sequence[Any] | None = None,
    overwrite: bool = False,
    stop_at_nan: bool = False,
    flush_interval: float = FLUSH_INTERVAL,
) -> Dump:
    """Start recording this process's TensorFlow program into `logdir`; returns the `Dump`.

    Defaults fit NaN hunting: FULL_HEALTH summarizes every float tensor, and `buffer=-1`
    keeps the whole history (a circular buffer of N records usually drops the first NaN).
    `op_regex` and `dtypes` narrow what is recorded (TensorFlow's op-type and dtype filters).
    `stop_at_nan` raises `StoppedAtNaN` into the program right after the first record that
    shows a NaN/∞, with the dump already closed. Call it from the thread that runs the model:
    TensorFlow's dumping is per thread.
    """
    global _current
    number = mode_number(mode)
    mode_name = MODE_NAMES[number]
    if not isinstance(buffer, int) or isinstance(buffer, bool):
        raise DumperError(f"buffer must be an integer (-1: no circular buffer), not {buffer!r}")
    if not -(1 << 63) <= buffer < 1 << 63:  # TensorFlow's writer takes an int64: a TypeError
        raise DumperError(f"buffer {buffer} is out of range (-1: no circular buffer; at most "
                          f"{(1 << 63) - 1} records)")
    if op_regex is not None:
        try:
            re.compile(op_regex)
        except re.error as exc:
            raise DumperError(f"bad op regex {op_regex!r}: {exc}") from None
    if stop_at_nan and number not in VALUE_MODES:
        raise DumperError(
            f"stop at NaN needs a mode that sees values (CURT_HEALTH, CONCISE_HEALTH, "
            f"FULL_HEALTH or FULL_TENSOR), not {mode_name}"
        )
    if stop_at_nan and buffer > 0:
        raise DumperError("stop at NaN records everything up to the NaN; use buffer=-1")
    with _lock:
        if _current is not None:
            raise DumperError(
                f"dumping is already on into {_current.logdir}; call dumper.disable() first"
            )
        path = prepare_logdir(logdir, overwrite)
        try:
            import tensorflow as tf
        except ImportError:
            raise DumperError(
                "TensorFlow is not installed; install it with: pip install 'tfdbg-tui[tf]'"
            ) from None
        tensor_dtypes = _check_dtypes(tf, dtypes)
        logging.getLogger("tensorflow").addFilter(_FROZEN_FILTER)
        try:
            writer = tf.debugging.experimental.enable_dump_debug_info(
                path,
                tensor_debug_mode=mode_name,
                circular_buffer_size=buffer,
                op_regex=op_regex,
                tensor_dtypes=tensor_dtypes,
            )
        except ValueError as exc:  # e.g. the program enabled dumping itself, differently
            _undo_enable(path)
            free = disk_full(path)
            why = "" if free is None else f" (the disk is full: {free // 1024} KiB left)"
            raise DumperError(f"TensorFlow refused to dump: {exc}{why}") from None
        keep_variables_checkpointable(path)
        dump = Dump(path, mode_name, buffer, stop_at_nan, _writer=writer)
        _current = dump
        if stop_at_nan:
            from dumper.stop import NaNWatcher

            dump._watcher = NaNWatcher(dump, writer, _close_for_stop)
            dump._watcher.install()
        if buffer <= 0 and flush_interval > 0:
            dump._flusher = threading.Thread(
                target=_flush_loop,
                args=(writer, dump._stop_flusher, flush_interval),
                name="tfdbg-tui-flush",
                daemon=True,
            )
            dump._flusher.start()
        if threading.current_thread() is threading.main_thread():
            dump._old_sigterm = signal.signal(signal.SIGTERM, _on_sigterm)
        atexit.register(disable)
        _register_fork_handlers()
        return dump


def _flush_loop(writer: Any, stop: threading.Event, interval: float) -> None:
    """Periodic flushes: bounds what a hard kill (SIGKILL, OOM killer) can lose."""
    while not stop.wait(interval):
        try:
            with fork.flush_lock:  # never half-way through a flush when the program forks
                writer.FlushNonExecutionFiles()
                writer.FlushExecutionFiles()
        except Exception:  # the writer went away under us (the program disabled dumping)
            return


def _register_fork_handlers() -> None:
    global _fork_handlers
    if not _fork_handlers and hasattr(os, "register_at_fork"):
        os.register_at_fork(before=_before_fork, after_in_parent=_after_fork_in_parent,
                            after_in_child=_after_fork_in_child)
        _fork_handlers = True


def _before_fork() -> None:
    global _fork_held
    dump = _current
    if dump is not None and dump._pid == os.getpid():
        fork.before_fork(dump)
        _fork_held = True


def _after_fork_in_parent() -> None:
    global _fork_held
    if _fork_held:
        _fork_held = False
        fork.after_fork_in_parent()


def _after_fork_in_child() -> None:
    """The child of a recorded process is not recorded, and leaves the dump alone."""
    global _current, _lock, _fork_held
    _fork_held = False
    dump = _current
    if dump is None or dump._pid == os.getpid():
        return
    _current = None
    _lock = threading.RLock()  # another thread of the parent may have held it
    signal_hooks.clear()
    fork.after_fork_in_child(dump, _on_sigterm)


def _shutdown(dump: Dump, restore_signal: bool) -> None:
    global _current
    dump._stop_flusher.set()
    if dump._flusher is not None and dump._flusher is not threading.current_thread():
        dump._flusher.join()
    if dump._watcher is not None:
        dump._watcher.uninstall()
    import tensorflow as tf

    tf.debugging.experimental.disable_dump_debug_info()
    if restore_signal and dump._old_sigterm is not None:
        with contextlib.suppress(ValueError):  # not in the main thread any more
            if signal.getsignal(signal.SIGTERM) is _on_sigterm:
                signal.signal(signal.SIGTERM, dump._old_sigterm)
    _current = None


def disable() -> None:
    """Stop recording and close the logdir's files (all data on disk). Safe to call twice."""
    with _lock:
        if _current is not None:
            _shutdown(_current, restore_signal=True)


def current() -> Dump | None:
    """The dump in progress, if any."""
    return _current


def _close_for_stop() -> None:
    """Used by the NaN watcher: close the dump from inside an op callback."""
    disable()


def _on_sigterm(signum: int, frame: FrameType | None) -> None:
    """Close the dump, then end the process the way SIGTERM would have without us."""
    dump = _current
    previous = dump._old_sigterm if dump is not None else signal.SIG_DFL
    if callable(previous) or previous == signal.SIG_IGN:
        # The program handles or ignores SIGTERM itself (say, a graceful checkpoint): keep
        # recording, make sure what we have is on disk, and let its handler decide.
        if dump is not None:
            with contextlib.suppress(Exception):
                dump.flush()
        if callable(previous):
            previous(signum, frame)
        return
    if dump is not None:
        with _lock:
            _shutdown(dump, restore_signal=False)
    for hook in list(signal_hooks):
        with contextlib.suppress(Exception):
            hook(signum)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    with contextlib.suppress(Exception):
        sys.stdout.flush()
        sys.stderr.flush()
    os.kill(os.getpid(), signal.SIGTERM)


P = ParamSpec("P")


def _recording(start: Callable[P, Dump]) -> Callable[P, contextlib.AbstractContextManager[Dump]]:
    """A context manager that starts a dump as `start` does and disables it at the end."""

    @contextlib.contextmanager
    def recording(*args: P.args, **kwargs: P.kwargs) -> Iterator[Dump]:
        dump = start(*args, **kwargs)
        try:
            yield dump
        finally:
            disable()

    recording.__doc__ = ("`with dumping(logdir, ...): ...` records the block and closes the "
                         "dump at its end (arguments as `enable`).")
    return recording


dumping = _recording(enable)
