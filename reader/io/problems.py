"""The one-line warnings a damaged or odd logdir produces, collected without flooding.

Every reading step reports here (a record skipped at an offset, a file that shrank, a missing
file). Each distinct message is kept once and the list is capped, so hostile input cannot
grow it without bound; what was dropped is still counted.
"""

from __future__ import annotations

MAX_WARNINGS = 200


class ProblemLog:
    """Distinct warnings in the order they happened, plus a count of skipped records."""

    def __init__(self, limit: int = MAX_WARNINGS) -> None:
        self.warnings: list[str] = []
        self.corrupt_records = 0
        # reads that failed (a file not opened, reading stopped by an error: the network, a
        # server's answer cut short), and the first one's warning: what was read is not all
        # the files hold, so no index cache entry or shard is made of it (it would say the
        # failure again on every open, as if it were the files')
        self.failed_reads = 0
        self.first_failed_read = ""
        self.suppressed = 0
        self._limit = limit
        self._seen: set[str] = set()

    def warn(self, message: str) -> None:
        """Record a one-line warning once; past the cap it is only counted."""
        if message in self._seen:
            return
        self._seen.add(message)
        if len(self.warnings) < self._limit:
            self.warnings.append(message)
        else:
            self.suppressed += 1

    def read_failed(self, message: str) -> None:
        """Warn of a read that failed (see `failed_reads`)."""
        self.warn(message)
        self.failed_reads += 1
        self.first_failed_read = self.first_failed_read or message

    def skip_record(self, name: str, offset: int, why: str) -> None:
        """Count a record that is skipped, and say which file and byte offset."""
        self.corrupt_records += 1
        self.warn(f"{name}: record at byte {offset} {why} and was skipped")
