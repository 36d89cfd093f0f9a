"""What makes `diff` of millions of tensors fast decides exactly what the plain checks decide.

`judge` works a block of pairs at a time, reads health back in bulk through the compiled core,
and calls a pair equal without decoding it when both records hold the same summary
(`same_summaries`). Each is checked here against the plain way — one block, Python
read-back, every pair decoded into columns — on pairs of real runs, equal and divergent,
in the same mode and across modes.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from support.judge import opened, plain_compare

import reader.index.detail as detail
from reader import GRAPH
from tfdbg_tui.core.compare import Comparison, checks, compare


def _assert_same_verdicts(fast: Comparison, plain: Comparison) -> None:
    f, p = fast.pairs, plain.pairs
    for column in ("kind", "a_row", "b_row", "how", "status", "reason", "worst", "order"):
        np.testing.assert_array_equal(getattr(f, column), getattr(p, column), err_msg=column)
    for column in ("max_abs", "max_rel"):
        np.testing.assert_array_equal(getattr(f, column), getattr(p, column), err_msg=column)


def _shortcut_hits(a: str, b: str) -> int:
    """How many graph-trace pairs `same_summaries` decides (all pairs of rows i ↔ i)."""
    la, lb = opened(a), opened(b)
    n = min(len(la.traces), len(lb.traces))
    rows = np.arange(n)
    return int(checks.same_summaries(la, lb, GRAPH, rows, rows).sum())


@pytest.fixture(autouse=True)
def _needs_native() -> None:
    if detail.native is None:
        pytest.skip("compiled core not built or disabled")


@pytest.mark.parametrize(("a", "b"), [("base_health", "base_health"),
                                      ("base_health", "nan_health"),
                                      ("nan_health", "base_health"),
                                      ("base", "base_health"),
                                      ("relu6", "base")])
@pytest.mark.parametrize("block", [7, 1 << 17])
def test_fast_judge_is_the_plain_judge_on_pairs(pair_runs: dict[str, str],
                                               monkeypatch: pytest.MonkeyPatch, a: str, b: str,
                                               block: int) -> None:
    plain = plain_compare(pair_runs[a], pair_runs[b], monkeypatch)
    monkeypatch.setattr(checks, "_BLOCK", block)
    monkeypatch.setattr(detail, "BULK_ROWS", 1)
    fast = compare(opened(pair_runs[a]), opened(pair_runs[b]))
    _assert_same_verdicts(fast, plain)
    if a == b:
        assert not plain.pairs.status.any()
    if {a, b} == {"base_health", "nan_health"}:
        assert plain.pairs.status.any()  # they diverge: the shortcut must not hide it
    if a.endswith("health") and b.endswith("health"):
        assert _shortcut_hits(pair_runs[a], pair_runs[b]) > 0  # the shortcut was taken


@pytest.mark.parametrize(("mode_a", "mode_b"), [("CURT_HEALTH", "CURT_HEALTH"),
                                                ("CONCISE_HEALTH", "CONCISE_HEALTH"),
                                                ("FULL_HEALTH", "CONCISE_HEALTH"),
                                                ("SHAPE", "FULL_HEALTH"),
                                                ("CURT_HEALTH", "FULL_HEALTH")])
def test_fast_judge_is_the_plain_judge_across_modes(make_tf_logdir: Callable[..., str],
                                                   monkeypatch: pytest.MonkeyPatch,
                                                   mode_a: str, mode_b: str) -> None:
    """One program recorded in two modes (its NaN included): compared on what both have."""
    a, b = make_tf_logdir("mixed", mode_a), make_tf_logdir("mixed", mode_b)
    plain = plain_compare(a, b, monkeypatch)
    monkeypatch.setattr(checks, "_BLOCK", 5)
    monkeypatch.setattr(detail, "BULK_ROWS", 1)
    _assert_same_verdicts(compare(opened(a), opened(b)), plain)
