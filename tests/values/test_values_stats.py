"""reader.values on tensors real TensorFlow dumped in FULL_TENSOR mode, and on its own.

Expectations come from numpy applied to the arrays the program generated (same seed), not
from our own output.
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.values import expected_stats, inputs, open_values, trace_index

from reader.errors import CorruptRecordError
from reader.io.tensors import TensorValue, decode_string_content
from reader.values import (
    SliceError,
    apply_index,
    compute_stats,
    first_nonfinite,
    format_index,
    npy_name,
    parse_index,
    save_npy,
)
from tfdbg_tui.core.values import load


def assert_stats_match(stats: object, a: np.ndarray, rtol: float = 1e-6) -> None:
    exp = expected_stats(a)
    for key in ("n_nan", "n_neg_inf", "n_pos_inf", "n_neg", "n_zero", "n_pos", "n_finite"):
        assert getattr(stats, key) == exp[key], key
    for key in ("min", "max", "mean", "std"):
        assert getattr(stats, key) == pytest.approx(exp[key], rel=rtol, abs=1e-9), key


@pytest.mark.parametrize("name", ["floats", "ints", "int64s", "rank4", "halfs"])
def test_stats_of_dumped_tensors_match_numpy(values_logdir: str, name: str) -> None:
    L = open_values(values_logdir)
    tv = L.read_trace(trace_index(L, f"{name}:0")).value
    assert tv is not None
    src = inputs()[name]
    assert tv.shape == src.shape
    np.testing.assert_array_equal(tv.values, src)
    stats = compute_stats(tv)
    assert stats.shape == src.shape and stats.size == src.size
    assert_stats_match(stats, src)
    bad = np.argwhere(~np.isfinite(src)) if src.dtype.kind == "f" else np.zeros((0, 0))
    assert stats.first_nonfinite == (tuple(int(i) for i in bad[0]) if len(bad) else None)
    assert stats.histogram is not None
    assert int(stats.histogram.counts.sum()) == stats.n_finite


def test_bool_and_bfloat16(values_logdir: str) -> None:
    L = open_values(values_logdir)
    bools = inputs()["bools"]
    s = compute_stats(L.read_trace(trace_index(L, "bools:0")).value)  # type: ignore[arg-type]
    assert (s.kind, s.n_pos, s.n_zero) == ("bool", int(bools.sum()), int((~bools).sum()))
    bf = L.read_trace(trace_index(L, "bf16:0")).value
    assert bf is not None and bf.dtype_name == "bfloat16"
    s = compute_stats(bf)
    src = inputs()["floats"]
    assert (s.n_nan, s.n_neg_inf, s.n_pos_inf) == (1, 1, 1)
    assert s.first_nonfinite == (1, 2)
    # bfloat16 keeps 8 bits of mantissa: within 1% of the float32 source
    assert s.max == pytest.approx(np.nanmax(src[np.isfinite(src)]), rel=1e-2)


def test_big_tensor_stats_are_exact(values_logdir: str) -> None:
    """10M elements (how fast is `make bench`'s business, not a unit test's)."""
    L = open_values(values_logdir)
    i = trace_index(L, "big:0")
    loaded = load(L, 0, i, 0)
    big = inputs()["big"]
    assert loaded.stats is not None and loaded.stats.size == 10_000_000
    assert_stats_match(loaded.stats, big, rtol=1e-9)
    assert loaded.stats.first_nonfinite == (int(np.flatnonzero(np.isnan(big))[0]),)


def test_strings_are_decoded_from_packed_content(values_logdir: str) -> None:
    from support.values import STRINGS

    L = open_values(values_logdir)
    loaded = load(L, 0, trace_index(L, "strings:0"), 0)
    assert loaded.value is not None
    assert list(loaded.value.values) == STRINGS
    assert compute_stats(loaded.value).kind == "string"


def test_decode_string_content_rejects_garbage() -> None:
    assert list(decode_string_content(b"\x01\x00a", 2)) == [b"a", b""]
    assert list(decode_string_content(b"\x02\x01abc", 2)) == [b"ab", b"c"]
    with pytest.raises(CorruptRecordError):
        decode_string_content(b"\x05ab", 1)
    with pytest.raises(CorruptRecordError):
        decode_string_content(b"\xff\xff\xff\xff\xff\xff", 1)


def test_stats_json_has_no_nan_and_constant_tensors() -> None:
    s = compute_stats(np.array([np.nan, np.nan], dtype=np.float32))
    j = s.to_json()
    json.dumps(j, allow_nan=False)
    assert j["min"] is None and j["nan"] == 2 and j["first_nonfinite"] == [0]
    c = compute_stats(np.full((3, 3), 2.5))
    assert c.histogram is not None and list(c.histogram.counts) == [9]
    assert c.std == 0 and c.min == c.max == 2.5
    huge = compute_stats(np.array([-3e38, 3e38], dtype=np.float32))  # span overflows float32
    assert huge.histogram is not None and int(huge.histogram.counts.sum()) == 2
    json.dumps(huge.to_json(), allow_nan=False)


@pytest.mark.parametrize(("values", "mean", "std"), [
    # The sums of these finite values (or of their squared deviations) leave float64.
    ([1e300, -1e300], 0.0, 1e300),
    ([-1.7e308, 1.7e308], 0.0, 1.7e308),
    ([1.7e308, 1.7e308, 1.7e308], 1.7e308, 0.0),
    ([1e-200, 3e-200], 2e-200, 1e-200),  # squares that would vanish below float64
])
def test_stats_of_extreme_finite_values(values: list[float], mean: float, std: float) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no numpy RuntimeWarning may reach the user's stderr
        s = compute_stats(np.array(values))
    assert s.n_finite == len(values) and s.n_nonfinite == 0
    assert s.mean == pytest.approx(mean, rel=1e-12, abs=1e-12 * std)
    assert s.std == pytest.approx(std, rel=1e-12)
    assert s.histogram is not None and int(s.histogram.counts.sum()) == len(values)
    json.dumps(s.to_json(), allow_nan=False)


def test_complex_magnitude_beyond_float64() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        s = compute_stats(np.array([1.7e308 + 1.7e308j, 1.0]))
    # |z| = 1.7e308·√2 is not a float64: it counts as the largest one
    assert s.n_finite == 2 and s.max == np.finfo(np.float64).max and s.min == 1.0
    assert s.histogram is not None and int(s.histogram.counts.sum()) == 2


def test_first_nonfinite_and_empty() -> None:
    a = np.zeros((3, 4), np.float32)
    assert first_nonfinite(a) is None
    a[2, 1] = -np.inf
    a[2, 3] = np.nan
    assert first_nonfinite(a) == (2, 1)
    assert first_nonfinite(np.arange(5)) is None
    e = compute_stats(np.zeros((0, 3), np.float32))
    assert e.size == 0 and e.min is None


# ------------------------------------------------------------------ slicing
@pytest.mark.parametrize(("expr", "index"), [
    ("[0, :10]", (0, slice(None, 10))),
    ("[..., 3]", (Ellipsis, 3)),
    ("3", (3,)),
    (":, 1", (slice(None), 1)),
    ("[-1, ::2]", (-1, slice(None, None, 2))),
    ("[ 1 : -1 , ... ]", (slice(1, -1), Ellipsis)),
    ("[]", ()),
    ("", ()),
])
def test_parse_index(expr: str, index: tuple[object, ...]) -> None:
    assert parse_index(expr) == index


@pytest.mark.parametrize(("expr", "needle"), [
    ("[0, :a]", "unexpected 'a'"),
    ("[0", "missing closing"),
    ("0]", "without an opening"),
    ("[0,,1]", "empty item"),
    ("1 2", "missing ','"),
    ("[..., ...]", "only one '...'"),
    ("[1:2:3:4]", "too many ':'"),
    ("[::0]", "step cannot be zero"),
    ("__import__('os')", "unexpected '_'"),
    ("[0.5]", "unexpected '.'"),
])
def test_parse_index_errors_say_why(expr: str, needle: str) -> None:
    with pytest.raises(SliceError) as err:
        parse_index(expr)
    assert needle in str(err.value)


def test_apply_index_errors() -> None:
    a = np.arange(24).reshape(2, 3, 4)
    np.testing.assert_array_equal(apply_index(a, "[1, ..., 2]"), a[1, ..., 2])
    with pytest.raises(SliceError, match="out of bounds"):
        apply_index(a, "[5]")
    with pytest.raises(SliceError, match="4 indices for a tensor of rank 3"):
        apply_index(a, "[0, 0, 0, 0]")
    with pytest.raises(SliceError):
        apply_index(a, "[99999999999999999999999]")


_item = st.one_of(st.integers(-5, 5), st.builds(slice, st.none() | st.integers(-5, 5),
                                              st.none() | st.integers(-5, 5),
                                              st.none() | st.sampled_from([-2, -1, 1, 2])))


@settings(max_examples=200, deadline=None)
@given(st.lists(_item, max_size=3), st.booleans())
def test_index_roundtrip_matches_numpy(items: list[object], ellipsis: bool) -> None:
    index = (Ellipsis, *items) if ellipsis else tuple(items)
    assert parse_index(format_index(index)) == index
    a = np.arange(5 * 6 * 7).reshape(5, 6, 7)
    try:
        expected = a[index]  # type: ignore[index]
    except IndexError:
        with pytest.raises(SliceError):
            apply_index(a, format_index(index))
        return
    np.testing.assert_array_equal(apply_index(a, format_index(index)), expected)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=30))
def test_parse_index_only_ever_raises_slice_error(expr: str) -> None:
    try:
        parse_index(expr)
    except SliceError:
        pass


# ------------------------------------------------------------------ saving
def test_save_npy_roundtrip_and_no_overwrite(tmp_path: object) -> None:
    a = np.array([[1.0, np.nan], [np.inf, -2.0]], dtype=np.float32)
    tv = TensorValue(1, "float32", (2, 2), a)
    p1 = save_npy(tv, "dense/MatMul:0", str(tmp_path))
    p2 = save_npy(tv, "dense/MatMul:0", str(tmp_path))
    assert p1.endswith("dense_MatMul_0.npy") and p2 != p1
    np.testing.assert_array_equal(np.load(p1), a)
    s = np.empty(2, dtype=object)
    s[:] = [b"\x1bx", b"ok"]
    p3 = save_npy(s, "s", str(tmp_path))
    assert list(np.load(p3, allow_pickle=False)) == [b"\x1bx", b"ok"]
    assert npy_name("../../etc/passwd") == "etc_passwd.npy"
