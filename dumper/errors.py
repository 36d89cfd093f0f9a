"""The dumper's exceptions: one type for user mistakes, one for the stop at the first NaN."""

from __future__ import annotations


class DumperError(Exception):
    """Dumping can't start or go on. The message is one line, fit to show a user as is."""


class StoppedAtNaN(BaseException):
    """Raised into the program at the first NaN/∞ when dumping runs with `stop_at_nan`.

    A BaseException, like KeyboardInterrupt, so that a program's `except Exception:` does not
    swallow it and keep training. The dump is already closed when it is raised, so the logdir
    ends right after the record that holds the anomaly.
    """

    def __init__(self, message: str, logdir: str, op_type: str, op_name: str) -> None:
        super().__init__(message)
        self.message = message
        self.logdir = logdir
        self.op_type = op_type
        self.op_name = op_name

    def __str__(self) -> str:
        return self.message
