"""The comparison engine's parts on their own: keys, sequence alignment, value semantics.

No TensorFlow here. Value comparisons are checked against numpy's own
`np.testing.assert_allclose` (the semantics `diff` promises), alignments against sequences
whose true correspondence is known by construction.
"""

from __future__ import annotations

import numpy as np
import pytest

from reader.io.tensors import TensorValue
from tfdbg_tui.core.compare.keys import match, occurrence
from tfdbg_tui.core.compare.pairs import R_DTYPE, R_NONE, R_SHAPE, R_VALUES
from tfdbg_tui.core.compare.seqalign import Budget, align
from tfdbg_tui.core.compare.values import Tolerance, compare_values

DTYPE_IDS = {np.dtype("float32"): 1, np.dtype("float64"): 2, np.dtype("int32"): 3,
             np.dtype("float16"): 19}


def tv(values: np.ndarray | list) -> TensorValue:
    arr = np.asarray(values)
    return TensorValue(DTYPE_IDS[arr.dtype], str(arr.dtype), arr.shape, arr)


def test_occurrence_counts_earlier_rows_of_the_same_group() -> None:
    groups = np.array([5, 3, 5, 5, 3, 7])
    assert occurrence(groups).tolist() == [0, 0, 1, 2, 1, 0]


def test_match_pairs_equal_group_and_occurrence_only() -> None:
    ga, gb = np.array([1, 1, 2, -1, 3]), np.array([2, 1, 1, 1, -1])
    ia, ib = match(ga, occurrence(ga), gb, occurrence(gb))
    got = sorted(zip(ia.tolist(), ib.tolist(), strict=True))
    assert got == [(0, 1), (1, 2), (2, 0)]  # group 1 twice in order, group 2; -1 never


def _truth(n: int, inserted_every: int) -> tuple[np.ndarray, np.ndarray, dict[int, int]]:
    """A token stream, and the same stream with a new token inserted every k; a → b."""
    rng = np.random.default_rng(3)
    a = rng.integers(0, 12, n)  # few distinct tokens, like op types
    b, where = [], {}
    for i, t in enumerate(a.tolist()):
        if i and i % inserted_every == 0:
            b.append(99)
        where[i] = len(b)
        b.append(t)
    return a, np.array(b), where


@pytest.mark.parametrize("window", [64, 2000])
def test_alignment_skips_inserted_tokens_across_windows(window: int) -> None:
    a, b, where = _truth(3000, 37)
    got = align(a, b, Budget(10**8, 10**8), "test", window=window)
    pairs = dict(zip(got.a.tolist(), got.b.tolist(), strict=True))
    right = sum(pairs.get(i) == j for i, j in where.items())
    assert right >= 0.98 * len(a)
    assert not np.isin(got.b, np.flatnonzero(b == 99)).any()  # inserted tokens stay unmatched


def test_a_replaced_token_keeps_its_place() -> None:
    got = align(np.array([1, 2, 3, 4, 5]), np.array([1, 2, 8, 4, 5]), Budget(), "test")
    assert got.a.tolist() == got.b.tolist() == [0, 1, 2, 3, 4]
    assert got.same.tolist() == [True, True, False, True, True]


def test_exhausted_budget_says_so_and_still_pairs() -> None:
    a, b, _ = _truth(5000, 50)
    budget = Budget(100, 100)
    got = align(a, b, budget, "the timeline", window=64)
    assert budget.notes and "the timeline" in budget.notes[0] and "budget" in budget.notes[0]
    assert len(got.a) > 0.9 * len(a)


CASES = [
    ([1.0, 2.0, 3.0], [1.0, 2.0, 3.0]),
    ([1.0, 2.0, 3.0], [1.0, 2.0 + 1e-6, 3.0]),
    ([1.0, np.nan, 3.0], [1.0, np.nan, 3.0]),
    ([1.0, np.nan, 3.0], [1.0, 2.0, 3.0]),
    ([np.inf, -np.inf], [np.inf, -np.inf]),
    ([np.inf, 1.0], [-np.inf, 1.0]),
    ([0.0, 1e-9], [0.0, 0.0]),
    ([100.0, 1.0], [100.001, 1.0]),
    ([100.001, 1.0], [100.0, 1.0]),
]


@pytest.mark.parametrize("rtol, atol", [(1e-7, 0.0), (1e-5, 0.0), (0.0, 1e-8), (1e-5, 1e-3)])
@pytest.mark.parametrize("x, y", CASES)
def test_values_follow_numpy_assert_allclose(x: list, y: list, rtol: float, atol: float) -> None:
    a, b = np.array(x, np.float64), np.array(y, np.float64)
    try:
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)
        numpy_says_close = True
    except AssertionError:
        numpy_says_close = False
    got = compare_values(tv(a), tv(b), Tolerance(rtol, atol))
    assert (got.reason == R_NONE) == numpy_says_close


def test_errors_and_worst_element() -> None:
    a = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    b = a.copy()
    b[1, 0] = 3.5
    b[0, 1] = 2.01
    got = compare_values(tv(a), tv(b), Tolerance())
    assert got.reason == R_VALUES and got.mismatched == 2 and got.total == 4
    assert got.max_abs == pytest.approx(0.5)
    assert got.max_rel == pytest.approx(0.5 / 3.5)
    assert got.worst == 2 and got.at_worst == (3.0, 3.5)


def test_nan_against_a_number_is_never_close_whatever_the_tolerance() -> None:
    got = compare_values(tv([np.nan]), tv([1.0]), Tolerance(rtol=1e9, atol=1e9))
    assert got.reason == R_VALUES


def test_dtypes_and_shapes() -> None:
    f32 = np.arange(6, dtype=np.float32)
    assert compare_values(tv(f32), tv(f32.astype(np.float16)), Tolerance()).reason == R_NONE
    assert compare_values(tv(f32), tv(f32.astype(np.int32)), Tolerance()).reason == R_DTYPE
    assert compare_values(tv(f32.reshape(2, 3)), tv(f32.reshape(3, 2)),
                          Tolerance()).reason == R_SHAPE
    ints = np.array([1, 2, 3], np.int32)
    off = np.array([1, 2, 4], np.int32)
    assert compare_values(tv(ints), tv(off), Tolerance(rtol=1.0)).reason == R_VALUES


def test_a_regrouping_of_the_same_elements_compares_by_value_a_transpose_does_not() -> None:
    """A kernel kept with a head axis ([8, 2, 4]) against [8, 8] holds the same elements in
    the same order: its values decide. A transpose ([4, 8] against [8, 4]) is a shape
    difference whatever the values, and so is another size."""
    w = np.arange(64, dtype=np.float32).reshape(8, 8)
    assert compare_values(tv(w), tv(w.reshape(8, 2, 4)), Tolerance()).reason == R_NONE
    assert compare_values(tv(w[:, :5]), tv(w[:, :5].reshape(8, 1, 5)),
                          Tolerance()).reason == R_NONE
    changed = w.reshape(8, 2, 4).copy()
    changed[3, 1, 2] += 1
    assert compare_values(tv(w), tv(changed), Tolerance()).reason == R_VALUES
    t = np.arange(32, dtype=np.float32).reshape(4, 8)
    assert compare_values(tv(t), tv(t.reshape(8, 4)), Tolerance()).reason == R_SHAPE
    assert compare_values(tv(w), tv(w[:7]), Tolerance()).reason == R_SHAPE


def test_an_element_cancelled_to_near_zero_is_judged_on_the_tensor_scale() -> None:
    """Rounding in a sum scales with its terms: an element near zero, in a tensor of values
    near 1, carries their float32 rounding. |b| is floored at the tensor's rms (here
    sqrt(2/3) ≈ 0.816), so 5e-6 off at rtol=1e-5, atol=1e-6 is close (numpy alone says
    not: 5e-6 > 1e-6 + 1e-5·1e-6) and 2e-5 off is not (> 1e-6 + 1e-5·0.816)."""
    b = np.array([1.0, -1.0, 1e-6])
    near, far = b + np.array([0, 0, 5e-6]), b + np.array([0, 0, 2e-5])
    tol = Tolerance(1e-5, 1e-6)
    with pytest.raises(AssertionError):
        np.testing.assert_allclose(near, b, rtol=1e-5, atol=1e-6)
    assert compare_values(tv(near), tv(b), tol).reason == R_NONE
    got = compare_values(tv(far), tv(b), tol)
    assert got.reason == R_VALUES and got.mismatched == 1 and got.worst == 2
    # on its own an element keeps numpy's rule: the floor is the tensor's, not a constant
    assert compare_values(tv(np.array([1e-6 + 5e-6])), tv(np.array([1e-6])),
                          tol).reason == R_VALUES
    # the first steps judged on atol alone (tight steps) have no floor: rtol is 0
    assert compare_values(tv(near), tv(b), Tolerance(0.0, 1e-6)).reason == R_VALUES
