"""`--map FILE` of `diff` and of `tfdbg-tui A --compare B`: the file read and its rules parsed
once, with one error line for every way it can fail. Why one place: both commands promise the
same semantics and the same errors, and a hostile map (deep nesting, huge repeat counts that
make `re` raise RecursionError/OverflowError) must be one line in both, never a traceback.
"""

from __future__ import annotations

from tfdbg_tui.commands.args import read_input
from tfdbg_tui.core.compare.user_map import Rule, map_rules, unused

MAX_MAP_BYTES = 1 << 20


class MapError(Exception):
    """Why a map cannot be used, as the one line after `PROG: error: `."""


def read_map(path: str) -> list[Rule]:
    """The rules of the map at `path`; MapError (`--map PATH: why`) when it cannot be read or
    a line is no rule."""
    try:
        return map_rules(read_input(path, MAX_MAP_BYTES))
    except OSError as exc:
        raise MapError(f"--map {path}: {exc.strerror or exc}") from None
    except (ValueError, RecursionError, OverflowError,
            MemoryError) as exc:  # a hostile --map: deep nesting, huge repeat counts
        raise MapError(f"--map {path}: {exc}") from None


__all__ = ["MapError", "Rule", "map_rules", "read_map", "unused"]
