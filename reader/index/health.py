"""Summary vectors → health columns (the mode table itself is `reader.modes`).

Every tensor row (graph trace or eager output) carries the same health columns, filled as far
as its mode allows; -1 means "not recorded in this mode". `bad` is 1 when the tensor holds
any NaN/∞, 0 when it is known clean, -1 when the mode cannot tell (NO_TENSOR, SHAPE).
"""

from __future__ import annotations

import numpy as np

from reader.modes import (
    CONCISE_HEALTH,
    CURT_HEALTH,
    FULL_HEALTH,
    REDUCE_INF_NAN_THREE_SLOTS,
    SHAPE,
    VECTOR_LEN,
)

HEALTH_COLUMNS: dict[str, str] = {
    "tensor_id": "i8",
    "dtype": "i4",
    "rank": "i2",
    "size": "i8",
    "neg_inf": "i8",
    "pos_inf": "i8",
    "nan": "i8",
    "neg": "i8",
    "zero": "i8",
    "pos": "i8",
    "bad": "i1",
}


def empty_health(n: int) -> dict[str, np.ndarray]:
    """Health columns for n rows, all "unknown"."""
    return {k: np.full(n, -1, dtype=dt) for k, dt in HEALTH_COLUMNS.items()}


# Where each element of a mode's summary goes (None: not kept); element 1 of CURT_HEALTH is
# its any-NaN/∞ flag, of FULL_HEALTH the device, SHAPE's last six are the dims.
LAYOUT: dict[int, tuple[str | None, ...]] = {
    CURT_HEALTH: ("tensor_id", None),
    CONCISE_HEALTH: ("tensor_id", "size", "neg_inf", "pos_inf", "nan"),
    FULL_HEALTH: ("tensor_id", None, "dtype", "rank", "size", "neg_inf", "pos_inf", "nan", "neg",
                  "zero", "pos"),
    SHAPE: ("tensor_id", "dtype", "rank", "size", None, None, None, None, None, None),
}
# Every element of those summaries is an id or a count: an integer from -1 ("none") up to
# 2**53 (float64 holds every integer up to there) or the range of its column, whichever is
# smaller. Anything else (NaN, ±∞, 1e300, -5) is not a count the file can be trusted on.
MAX_COUNT = float(1 << 53)
# The elements `bad` follows from, per mode (restated for the compiled core in
# reader.index.batches.VECTOR_RULES).
VECTOR_RULE_COLUMNS: dict[int, tuple[int, ...]] = {
    CURT_HEALTH: (1,), CONCISE_HEALTH: (2, 3, 4), FULL_HEALTH: (5, 6, 7), SHAPE: (),
    REDUCE_INF_NAN_THREE_SLOTS: (0, 1, 2)}


def _limit(column: str | None) -> float:
    if column is None:
        return MAX_COUNT
    return min(MAX_COUNT, float(np.iinfo(np.dtype(HEALTH_COLUMNS[column])).max))


LIMITS: dict[int, tuple[float, ...]] = {
    mode: tuple(_limit(c) for c in layout) for mode, layout in LAYOUT.items()}


# Per health mode, the summary elements a health column or `bad` is made of (the tensor id
# and FULL_HEALTH's device aside), a range: what a comparison of two runs compares, and what
# a row's digest covers.
COMPARED: dict[int, tuple[int, int]] = {}
for _mode in (CURT_HEALTH, CONCISE_HEALTH, FULL_HEALTH):
    _used = sorted({i for i, c in enumerate(LAYOUT[_mode]) if c not in (None, "tensor_id")}
                   | set(VECTOR_RULE_COLUMNS[_mode]))
    COMPARED[_mode] = (_used[0], _used[-1] + 1)

# The summary digest: 64 bits per tensor row standing for the exact bits of its COMPARED
# elements (and its mode), so two runs of one program are found equal row by row without
# reading their records back. The compiled core computes the same (`summary_digest` in
# reader/_native/wire.h), and a test restates it. Definition, over uint64 words:
#   h = fmix64(DIGEST_SEED ^ mode); for each compared element's bits w: h = fmix64(h ^ w)
# then 0 becomes 1 and DIGEST_EMPTY one less, as those two mean no digest: 0 "unknown" (the
# mode has no compared range, the summary is not sane - C leaves it to Python, which warns -
# or an element is NaN: NaN != NaN, two equal NaN bit patterns must not make "equal"), and
# DIGEST_EMPTY "a compared mode, but the record holds no usable summary for this row" (no
# tensor, an empty one, a slot past the tensors, or one that could not be decoded): every
# health column but `bad` and the id reads back unknown, so a comparison need not read it.
# fmix64 (MurmurHash3's finalizer) is a bijection, so two summaries that differ in one
# element never share a digest; any other difference shares one with a chance of about
# 2**-64. It is no keyed hash: whoever writes a logdir could forge a collision, but could as
# well write the equal counts themselves.
DIGEST_SEED = 0x9E3779B97F4A7C15
DIGEST_EMPTY = np.uint64((1 << 64) - 1)
_M1, _M2 = np.uint64(0xFF51AFD7ED558CCD), np.uint64(0xC4CEB9FE1A85EC53)
_S33 = np.uint64(33)


def _fmix64(z: np.ndarray) -> np.ndarray:
    z = z ^ (z >> _S33)
    z = z * _M1
    z = z ^ (z >> _S33)
    z = z * _M2
    return z ^ (z >> _S33)


def summary_digests(mode: int, vecs: np.ndarray) -> np.ndarray:
    """The digest (uint64, 0 = none) of each of (n, VECTOR_LEN[mode]) float64 summaries."""
    vecs = np.ascontiguousarray(vecs, dtype=np.float64)
    n = len(vecs)
    span = COMPARED.get(mode)
    if span is None or not n:
        return np.zeros(n, np.uint64)
    lo, hi = span
    words = vecs[:, lo:hi].view(np.uint64)
    h = _fmix64(np.full(n, np.uint64(DIGEST_SEED ^ mode), np.uint64))
    for i in range(hi - lo):
        h = _fmix64(h ^ words[:, i])
    h[h == 0] = 1
    h[h == DIGEST_EMPTY] = DIGEST_EMPTY - np.uint64(1)
    ok = sane(mode, vecs)
    if mode not in LIMITS:  # (with limits, a NaN fails `sane` already: NaN >= -1 is False)
        ok &= ~np.isnan(vecs[:, lo:hi]).any(axis=1)
    return np.where(ok, h, np.uint64(0))


def sane(mode: int, vecs: np.ndarray) -> np.ndarray:
    """Per row of (n, VECTOR_LEN[mode]) summaries: does every element hold a possible value?
    (REDUCE_INF_NAN_THREE_SLOTS holds raw values, where NaN/∞ are what it reports.)"""
    limits = LIMITS.get(mode)
    if limits is None:
        return np.ones(len(vecs), dtype=bool)
    return np.all((vecs >= -1.0) & (vecs <= np.asarray(limits)), axis=1)


def fill_from_vectors(h: dict[str, np.ndarray], rows: np.ndarray, mode: int,
                      vecs: np.ndarray) -> np.ndarray:
    """Fill health columns at `rows` from (n, VECTOR_LEN[mode]) float64 summaries (reader.modes).

    Returns which of the summaries are not sane (see `sane`): their impossible elements read
    as unknown (-1), and their `bad` is 1 when a NaN/∞ count is positive (even absurdly
    large), else unknown (-1), never a "clean" made of garbage.

    Over the transposed summaries as one (elements, rows) block, a few numpy calls in all
    whatever the mode's width, and into a slice when `rows` are consecutive: a read-back of
    millions of rows (export, comparison) spends its time here, and so does a run of many
    small file sets (one call per file set: 40,000 hosts of one record each took 0.35 ms a
    call when each element was its own few passes, 11 elements of FULL_HEALTH). Blocks of
    `FILL_BLOCK` rows at most: the temporaries stay a few MB however many rows there are.
    """
    if len(rows) == 0 or mode not in VECTOR_RULE_COLUMNS:
        return np.zeros(len(rows), dtype=bool)
    if mode == REDUCE_INF_NAN_THREE_SLOTS:  # raw values, no tensor id, nothing to cast
        h["bad"][rows] = np.any(vecs[:, :3] != 0, axis=1)
        return np.zeros(len(rows), dtype=bool)
    n = len(rows)
    if n > FILL_BLOCK:
        return np.concatenate([fill_from_vectors(h, rows[i: i + FILL_BLOCK], mode,
                                                 vecs[i: i + FILL_BLOCK])
                               for i in range(0, n, FILL_BLOCK)])
    where = _as_slice(rows)
    width = len(LAYOUT[mode])
    vt = np.ascontiguousarray(np.asarray(vecs, dtype=np.float64)[:, :width].T)
    limits = _LIMIT_COLUMN[mode]
    ok = np.greater_equal(vt, -1.0)
    ok &= np.less_equal(vt, limits)
    kept = np.where(ok, vt, -1.0)
    for i, column in _KEPT[mode]:
        h[column][where] = kept[i]
    rule = _RULE_INDEX[mode]
    if rule is not None:
        r, ok_r = vt[rule], ok[rule]
        claims = np.greater(r, limits[rule]).any(axis=0)  # +∞, or past any real count
        unknown = ~ok_r.all(axis=0)
        known = np.where(ok_r, r, 0.0)  # the rule's sane elements (insane ones: 0), summed
        total = known[0]  # in element order, as ever
        for k in known[1:]:
            total = total + k
        said = total != 0 if mode == CURT_HEALTH else total > 0
        h["bad"][where] = np.where(claims | said, 1, np.where(unknown, -1, 0))
    return ~np.all(ok, axis=0, keepdims=True)[0]


FILL_BLOCK = 1 << 16
# Per mode of `LAYOUT`: each element's largest sane value as a column (broadcast over the
# rows), the elements a health column keeps, and the rule's elements (an index array, or
# None when `bad` follows from none: SHAPE).
_LIMIT_COLUMN = {mode: np.asarray(lim, np.float64)[:, None] for mode, lim in LIMITS.items()}
_KEPT = {mode: [(i, c) for i, c in enumerate(layout) if c is not None]
         for mode, layout in LAYOUT.items()}
_RULE_INDEX = {mode: (np.asarray(VECTOR_RULE_COLUMNS[mode], np.intp)
                      if VECTOR_RULE_COLUMNS[mode] else None) for mode in LAYOUT}


def _as_slice(rows: np.ndarray) -> slice | np.ndarray:
    """`rows` as a slice when they are consecutive and ascending (the usual bulk read)."""
    first, n = int(rows[0]), len(rows)
    if int(rows[-1]) - first == n - 1 and (n < 2 or bool((np.diff(rows) == 1).all())):
        return slice(first, first + n)
    return rows


def shape_from_vector(vec: np.ndarray) -> tuple[int, ...]:
    """The shape a SHAPE-mode vector describes (its last six dims at most, as TF truncates);
    empty when the summary is not sane (see `sane`)."""
    v = np.asarray(vec, dtype=np.float64).reshape(-1)
    if len(v) < VECTOR_LEN[SHAPE] or not sane(SHAPE, v[None, : VECTOR_LEN[SHAPE]])[0]:
        return ()
    rank = int(v[2])
    dims = [int(d) for d in v[4:10]]
    return tuple(dims[: max(0, min(rank, 6))])
