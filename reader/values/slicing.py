"""Slicing expressions typed into the value inspector, parsed by a tiny grammar.

The text comes from a text box (or a paste), so it is parsed (ints, slices, `...`), never
`eval`ed: a logdir viewer must not run code typed into it.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

Index = tuple[Any, ...]  # items are int, slice or Ellipsis


class SliceError(ValueError):
    """A slicing expression that is malformed or does not fit the tensor; str() says why."""


_TOKEN = re.compile(r"\s*(?:(\.\.\.)|([+-]?\d+)|(:)|(,)|(\S))")


def parse_index(expr: str) -> Index:
    """Parse a numpy-style index such as `[0, :10]`, `[..., 3]`, `3`, `:, 1`, `::-1`.

    Grammar: optional outer brackets around comma-separated items; an item is an integer
    (negative allowed), `...`, or `start:stop[:step]` with each part optional. Raises
    SliceError naming the offending character.
    """
    text = expr.strip()
    if text.startswith("["):
        if not text.endswith("]"):
            raise SliceError(f"'{_short(expr)}': missing closing ']'")
        text = text[1:-1]
    elif text.endswith("]"):
        raise SliceError(f"'{_short(expr)}': ']' without an opening '['")
    if not text.strip():
        return ()
    items: list[Any] = []
    parts: list[int | None] = [None]  # the ints of the current item, split by ':'
    colons = 0
    seen_value = False
    ellipsis = False
    pos = 0

    def finish() -> None:
        nonlocal parts, colons, seen_value, ellipsis
        if ellipsis:
            if colons or seen_value:
                raise SliceError(f"'{_short(expr)}': '...' must stand alone between commas")
            items.append(Ellipsis)
        elif colons:
            step = parts[2] if colons == 2 else None
            if step == 0:
                raise SliceError(f"'{_short(expr)}': slice step cannot be zero")
            items.append(slice(parts[0], parts[1], step))
        elif seen_value:
            items.append(parts[0])
        else:
            raise SliceError(f"'{_short(expr)}': empty item (two commas in a row?)")
        parts, colons, seen_value, ellipsis = [None], 0, False, False

    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:  # only trailing whitespace is left
            break
        pos = m.end()
        dots, number, colon, comma, other = m.groups()
        if other is not None:
            raise SliceError(f"'{_short(expr)}': unexpected '{other}' "
                             "(use integers, ':', '...' and ',')")
        if dots:
            if ellipsis or seen_value or colons:
                raise SliceError(f"'{_short(expr)}': '...' must stand alone between commas")
            ellipsis = True
        elif number is not None:
            if parts[-1] is not None or ellipsis:
                raise SliceError(f"'{_short(expr)}': missing ',' or ':' before '{number}'")
            parts[-1] = int(number)
            seen_value = True
        elif colon:
            if colons == 2 or ellipsis:
                raise SliceError(f"'{_short(expr)}': too many ':' in one item")
            colons += 1
            parts.append(None)
        elif comma:
            finish()
    if colons or seen_value or ellipsis or not items:
        finish()
    if sum(1 for it in items if it is Ellipsis) > 1:
        raise SliceError(f"'{_short(expr)}': only one '...' is allowed")
    return tuple(items)


def _short(expr: str, limit: int = 40) -> str:
    expr = expr.strip()
    return expr if len(expr) <= limit else expr[: limit - 1] + "…"


def apply_index(values: np.ndarray, index: Index | str) -> np.ndarray:
    """values[index] as a view (basic indexing never copies); SliceError if it does not fit."""
    idx = parse_index(index) if isinstance(index, str) else index
    n_axes = sum(1 for it in idx if it is not Ellipsis)
    if n_axes > values.ndim:
        raise SliceError(f"{n_axes} indices for a tensor of rank {values.ndim}")
    try:
        return np.asarray(values[idx])
    except IndexError as exc:
        raise SliceError(str(exc)) from None
    except (ValueError, OverflowError, TypeError) as exc:
        raise SliceError(f"cannot index: {exc}") from None


def format_index(index: Index) -> str:
    """The inverse of parse_index, e.g. (0, slice(None), Ellipsis) → '[0, :, ...]'."""
    def item(it: Any) -> str:
        if it is Ellipsis:
            return "..."
        if isinstance(it, slice):
            a = "" if it.start is None else str(it.start)
            b = "" if it.stop is None else str(it.stop)
            return f"{a}:{b}" + ("" if it.step is None else f":{it.step}")
        return str(it)

    return "[" + ", ".join(item(it) for it in index) + "]"
