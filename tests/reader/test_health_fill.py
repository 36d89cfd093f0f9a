"""`fill_from_vectors` (the vectorised decoding of summaries into health columns, used by
the ingest and by every read-back) against the rule stated row by row: each element is a
count or id from -1 up to its column's limit, else unknown; `bad` is 1 when a NaN/∞ element
claims more than any real count or the sane ones are positive (CURT_HEALTH: its flag is
non-zero), else -1 when one of them is not sane, else 0 (SHAPE, which has no such element:
-1). Hostile values (NaN, ±∞, 1e300,
-5, 2**60, fractions) and rows given consecutive, scattered or backwards."""

from __future__ import annotations

import numpy as np
import pytest

from reader.index.health import LAYOUT, LIMITS, VECTOR_RULE_COLUMNS, empty_health, fill_from_vectors
from reader.modes import CURT_HEALTH, VECTOR_LEN

HOSTILE = np.array([np.nan, np.inf, -np.inf, -5.0, 1e300, 2.0**60, 2.0**53, 2.0**53 + 2, -1.0,
                    0.5, -0.5, -1.5, 32767.0, 32768.0, 2.0**31 - 1, 2.0**31])


def by_row(mode: int, vec: np.ndarray) -> tuple[dict[str, int], int, bool]:
    """(columns, bad, insane) of one summary, element by element."""
    limits = LIMITS[mode]
    ok = [bool(-1.0 <= x <= lim) for x, lim in zip(vec.tolist(), limits, strict=True)]
    cols = {c: (int(x) if good else -1)
            for c, x, good in zip(LAYOUT[mode], vec.tolist(), ok, strict=True) if c}
    rule = VECTOR_RULE_COLUMNS[mode]
    if not rule:  # SHAPE: says nothing of NaN/∞; `bad` stays unknown
        return cols, -1, not all(ok)
    claims = any(vec[i] > limits[i] for i in rule)
    known = [float(vec[i]) if ok[i] else 0.0 for i in rule]
    said = known[0] != 0 if mode == CURT_HEALTH else sum(known) > 0
    unknown = not all(ok[i] for i in rule)
    bad = 1 if claims or said else (-1 if unknown else 0)
    return cols, bad, not all(ok)


@pytest.mark.parametrize("mode", sorted(LAYOUT))
def test_fill_is_the_rule_row_by_row(mode: int) -> None:
    rng = np.random.default_rng(mode)
    width, n = VECTOR_LEN[mode], 400
    vecs = rng.integers(-1, 3, (n, width)).astype(np.float64)  # many all-zero, many -1
    vecs[: n // 4] = rng.integers(-1, 64, (n // 4, width))
    hit = rng.integers(0, n, n // 2), rng.integers(0, width, n // 2)
    vecs[hit] = rng.choice(HOSTILE, n // 2)
    wide = np.zeros((n, 15))  # as the compiled read hands them: a view of wider rows
    wide[:, :width] = vecs
    inside = np.arange(n) + 3  # consecutive ends, shuffled between them
    inside[1:-1] = rng.permutation(inside[1:-1])
    for rows in (np.arange(n) + 3, rng.permutation(n + 9)[:n], np.arange(n)[::-1] + 1,
                 np.arange(0, 2 * n, 2), np.arange(1) + 7, inside):
        h = empty_health(2 * n + 10)
        insane = fill_from_vectors(h, rows, mode, wide[: len(rows), :width])
        for k, row in enumerate(rows.tolist()):
            cols, bad, wrong = by_row(mode, vecs[k])
            assert {c: int(h[c][row]) for c in cols} == cols, (k, vecs[k])
            assert int(h["bad"][row]) == bad, (k, vecs[k])
            assert bool(insane[k]) == wrong
