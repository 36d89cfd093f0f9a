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

    def skip_record(self, name: str, offset: int, why: str) -> None:
        """Count a record that is skipped, and say which file and byte offset."""
        self.corrupt_records += 1
        self.warn(f"{name}: record at byte {offset} {why} and was skipped")
