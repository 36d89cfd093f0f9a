"""The op table: how each floating TensorFlow op can make NaN/∞ from finite inputs.

`optable.json` (generated from TensorFlow's op registry by `tools/make_optable.py`; this
module never imports TensorFlow) puts every op with a floating input or output either in a
family — overflow, division, domain, pole, singular, not_positive_definite, empty,
alignment, gradient, optimizer, parse, quantization — or in the list of ops that cannot make
NaN/∞ from finite inputs. It also lists, per op, the inputs that cannot be floating
(integers, booleans, handles): they cannot carry NaN, though they can be the reason (a
label sequence too long, an index out of range).

An op missing from the table (a newer or custom TensorFlow op) has no family: the
diagnosis then says that it does not know the op.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

_PATH = Path(__file__).with_name("optable.json")


@cache
def _table() -> dict[str, Any]:
    try:
        data = json.loads(_PATH.read_text(encoding="utf-8"))
    except (OSError, ValueError):  # a broken install: every op is then "not known"
        return {"families": {}, "ops": {}, "cannot": [], "nonfloat_inputs": {}}
    return data if isinstance(data, dict) else {}


@cache
def _cannot() -> frozenset[str]:
    return frozenset(_table().get("cannot", ()))


def family(op: str) -> str | None:
    """The op's family, or None when it cannot make NaN/∞ or is not in the table."""
    fam = _table().get("ops", {}).get(op)
    return fam if isinstance(fam, str) else None


def cannot(op: str) -> bool:
    """True when the op cannot make NaN/∞ from finite inputs (it moves, bounds, samples…)."""
    return op in _cannot()


def known(op: str) -> bool:
    return family(op) is not None or cannot(op)


def family_text(fam: str) -> dict[str, str]:
    """{"when", "tells", "fix"} of a family (empty strings when unknown)."""
    got = _table().get("families", {}).get(fam, {})
    return {k: str(got.get(k, "")) for k in ("when", "tells", "fix")}


def nonfloat_inputs(op: str) -> dict[int, str]:
    """Input position → argument name of the op's inputs that cannot be floating."""
    raw = _table().get("nonfloat_inputs", {}).get(op, {})
    out = {}
    for k, v in raw.items() if isinstance(raw, dict) else ():
        try:
            out[int(k)] = str(v)
        except ValueError:
            continue
    return out


def covered() -> int:
    return len(_table().get("ops", {})) + len(_cannot())
