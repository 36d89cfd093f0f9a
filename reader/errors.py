"""The reader's own error and warning types.

Everything that can go wrong while reading untrusted bytes surfaces as `ReaderError` (or a
subclass), so callers catch one type and never see a protobuf or struct traceback.
"""

from __future__ import annotations


class ReaderError(Exception):
    """A logdir, file or record could not be read. The message is one line, fit for users."""


class CorruptRecordError(ReaderError):
    """A record failed its CRC or could not be parsed."""


class LogdirError(ReaderError):
    """The logdir itself is unusable: missing, not a directory, empty or foreign."""
