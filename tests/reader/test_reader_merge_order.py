"""The merge of pieces (one per host, each sorted as a shard sorts its own) gives exactly
numpy's stable wall-time sort of the concatenated rows, columns gathered in one or several
threads: ties between hosts keep host order, NaN times go last, -0.0 and 0.0 are the same
time, and pieces that are not sorted still come out right."""

from __future__ import annotations

import numpy as np
import pytest

from reader.index.order import merge_runs

SPEC: dict[str, np.dtype] = {"wall_time": np.dtype("f8"), "offset": np.dtype("i8"),
                              "kind": np.dtype("i4"), "bad": np.dtype("i1")}


def hosts(n_hosts: int, rows: int, *, nan: bool, shuffled: bool) -> list[dict[str, np.ndarray]]:
    rng = np.random.default_rng(3)
    out: list[dict[str, np.ndarray]] = []
    for k in range(n_hosts):
        t = np.round(rng.uniform(0, 1000, rows), 1)  # coarse: many equal times across hosts
        t[:10] = 0.0 if k % 2 else -0.0
        if nan:
            t[-5:] = np.nan
        if not shuffled:
            t = np.sort(t, kind="stable")
        out.append({"wall_time": t, "offset": np.arange(rows, dtype=np.int64) + k * rows,
                    "kind": np.full(rows, k, np.int32), "bad": (t > 500).astype(np.int8)})
    return out


@pytest.mark.parametrize("nan", [False, True])
@pytest.mark.parametrize("shuffled", [False, True])
@pytest.mark.parametrize("threads", [1, 2, 3])
def test_merge_equals_one_stable_sort(nan: bool, shuffled: bool, threads: int) -> None:
    pieces = hosts(5, 20_007, nan=nan, shuffled=shuffled)
    cat = {c: np.concatenate([p[c] for p in pieces]) for c in SPEC}
    want = np.argsort(cat["wall_time"], kind="stable")  # the rule, written independently
    got, order = merge_runs(pieces, SPEC, threads)
    assert order is not None and np.array_equal(order, want)
    for c in SPEC:
        assert got[c].dtype == SPEC[c]
        assert np.array_equal(got[c], cat[c][want], equal_nan=c == "wall_time"), c


def test_rows_already_in_order_are_not_moved() -> None:
    t = np.arange(10.0)
    pieces = [{"wall_time": t[:4], "offset": np.arange(4), "kind": np.zeros(4, np.int32),
               "bad": np.zeros(4, np.int8)},
              {"wall_time": t[4:], "offset": np.arange(6), "kind": np.ones(6, np.int32),
               "bad": np.zeros(6, np.int8)}]
    got, order = merge_runs(pieces, SPEC, 2)
    assert order is None
    assert got["kind"].tolist() == [0] * 4 + [1] * 6
