"""The extra per-alert sections of the report, in the order they are printed.

A section adds keys to each detailed alert dict (`enrich`) and says how the human report
prints them (`human_lines`). Adding one = a module with those two functions + a line here.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from reader import DebugLogdir
from tfdbg_tui.commands.report import diagnosis, values

AlertEnricher = Callable[[DebugLogdir, dict[str, Any], argparse.Namespace], None]


@dataclass(frozen=True)
class Section:
    """One extra per-alert section: fills the JSON entry, then renders it as text lines."""

    name: str
    enrich: AlertEnricher
    human_lines: Callable[[dict[str, Any]], list[str]]


SECTIONS: tuple[Section, ...] = (
    Section("diagnosis", diagnosis.enrich, diagnosis.human_lines),
    Section("values", values.add_values, values.values_lines),
)
