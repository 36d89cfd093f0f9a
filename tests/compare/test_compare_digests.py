"""Summary digests: two runs compared row by row without reading their records back.

An index opened for comparison (`DebugLogdir(..., digests=True)`) keeps a 64-bit digest of
each tensor row's compared summary elements (`reader.index.health.summary_digests`, the same
in the compiled core). `checks.same_summaries` calls a pair equal on equal digests alone, so
the digest must never call equal what the plain judge (every pair decoded into columns)
calls different. Checked here: the definition restated independently, forged pairs that
differ in one count, only in `bad`, in the sign of a zero, in NaN bit patterns, or only in
what is not compared (the tensor id, FULL_HEALTH's device) — graph traces and eager outputs,
in every health mode — and real runs; the compiled and the Python loops give the same
digests; the index cache and the shard merge keep them.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from support.judge import opened, plain_compare

import reader.index.detail as detail
import reader.index.ingest as ingest
from dumper.writer import LogdirWriter
from reader import EAGER, GRAPH, DebugLogdir, open_logdir
from reader.index import health as H
from reader.index.shards import index_fileset, merge
from reader.modes import CONCISE_HEALTH, CURT_HEALTH, FULL_HEALTH, VECTOR_LEN
from tfdbg_tui.core.compare import Comparison, checks, compare
from tfdbg_tui.core.compare.pairs import DIFFERENT, EQUAL

MODES = {"CURT_HEALTH": CURT_HEALTH, "CONCISE_HEALTH": CONCISE_HEALTH,
         "FULL_HEALTH": FULL_HEALTH}
MASK = (1 << 64) - 1


# ---------------------------------------------------------------------- the definition
def _fmix(z: int) -> int:
    z ^= z >> 33
    z = (z * 0xFF51AFD7ED558CCD) & MASK
    z ^= z >> 33
    z = (z * 0xC4CEB9FE1A85EC53) & MASK
    return z ^ (z >> 33)


def _expected(mode: int, vec: list[float]) -> int:
    """The digest as reader/index/health.py documents it, restated on Python ints."""
    lo, hi = {CURT_HEALTH: (1, 2), CONCISE_HEALTH: (1, 5), FULL_HEALTH: (2, 11)}[mode]
    if any(x != x for x in vec[lo:hi]):
        return 0
    h = _fmix(0x9E3779B97F4A7C15 ^ mode)
    for x in vec[lo:hi]:
        h = _fmix(h ^ struct.unpack("<Q", struct.pack("<d", x))[0])
    return h or 1


def _base(mode: int, tid: float = 7.0) -> list[float]:
    """A sane summary of a 12-element float32 tensor: 3 negative, 4 zero, 5 positive."""
    if mode == CURT_HEALTH:
        return [tid, 0.0]
    if mode == CONCISE_HEALTH:
        return [tid, 12.0, 0.0, 0.0, 0.0]
    return [tid, 0.0, 1.0, 2.0, 12.0, 0.0, 0.0, 0.0, 3.0, 4.0, 5.0]


@pytest.mark.parametrize("mode", list(MODES.values()))
def test_digest_is_its_definition_in_python_and_in_c(mode: int) -> None:
    rng = np.random.default_rng(mode)
    vecs = [_base(mode)]
    for _ in range(200):
        v = _base(mode)
        i = int(rng.integers(0, len(v)))
        v[i] = float(rng.integers(-1, 30000)) if rng.random() < 0.9 else -0.0  # sane
        vecs.append(v)
    got = H.summary_digests(mode, np.array(vecs))
    want = [_expected(mode, v) for v in vecs]
    assert got.tolist() == want
    assert all(w != 0 for w in want)  # sane summaries always get one
    native = ingest.NATIVE
    if native is not None:
        assert [native.summary_digest(mode, np.array(v).tobytes()) for v in vecs] == want


@pytest.mark.parametrize("mode", list(MODES.values()))
def test_digest_sees_every_compared_bit_and_nothing_else(mode: int) -> None:
    base = _base(mode)
    lo, hi = H.COMPARED[mode]
    d0 = H.summary_digests(mode, np.array([base]))[0]
    for i in range(len(base)):
        for new in (base[i] + 1.0, -0.0 if base[i] == 0.0 else 0.0):
            v = list(base)
            v[i] = new
            d = H.summary_digests(mode, np.array([v]))[0]
            assert (d == d0) == (not lo <= i < hi), (i, new)
    nan = list(base)
    nan[lo] = float("nan")
    assert H.summary_digests(mode, np.array([nan, nan])).tolist() == [0, 0]  # NaN != NaN
    insane = list(base)
    insane[hi - 1] = -5.0
    assert H.summary_digests(mode, np.array([insane]))[0] == 0
    if ingest.NATIVE is not None:  # the compiled loops take neither: Python warns
        assert ingest.NATIVE.summary_digest(mode, np.array(nan).tobytes()) is None
        assert ingest.NATIVE.summary_digest(mode, np.array(insane).tobytes()) is None


# ---------------------------------------------------------------------- forged pairs
Summary = list[float] | None  # None: an empty tensor (no summary)


def _cases(mode: int) -> dict[str, tuple[Summary, Summary, int | None]]:
    """name → (A's summary, B's summary, the verdict the plain judge must give: EQUAL,
    DIFFERENT, or None where a summary is missing or unusable and only fast == plain is
    asked). "slot_past": the eager op also has an output past its one summary."""
    a = _base(mode)

    def b(**at: float) -> list[float]:
        v = list(a)
        for i, x in at.items():
            v[int(i[1:])] = x
        return v

    nan = float("nan")
    nan_at = {CURT_HEALTH: "e1", CONCISE_HEALTH: "e4", FULL_HEALTH: "e7"}[mode]
    out: dict[str, tuple[Summary, Summary, int | None]] = {
        "same": (a, list(a), EQUAL),
        "tensor_id": (a, b(e0=99.0), EQUAL),
        # a NaN count, the same bits on both sides: insane, so no digest (and a warning)
        "nan_both": (b(**{nan_at: nan}), b(**{nan_at: nan}), None),
        "empty_both": (None, None, None),
        "empty_a": (None, a, None),
        "slot_past": (a, list(a), None),
    }
    if mode == CURT_HEALTH:
        out |= {"bad": (a, b(e1=1.0), DIFFERENT), "negzero": (a, b(e1=-0.0), EQUAL)}
    elif mode == CONCISE_HEALTH:
        out |= {"count": (a, b(e1=13.0), DIFFERENT), "bad": (a, b(e4=1.0), DIFFERENT),
                "negzero": (a, b(e2=-0.0), EQUAL)}
    else:
        out |= {"count": (a, b(e10=6.0), DIFFERENT), "bad": (a, b(e7=1.0), DIFFERENT),
                "device": (a, b(e1=3.0), EQUAL), "negzero": (a, b(e5=-0.0), EQUAL)}
    return out


STEPS = 3  # records per tensor: the first of each kind goes through Python, the rest C


def _forge(path: Path, side: int) -> str:
    """One run: per health mode and case a graph op traced STEPS times and an eager op run
    STEPS times, with side A's (0) or B's (1) summary of that case."""
    with LogdirWriter(path, run_id="forged", file_timestamp=1) as w:
        w.add_graph("g1", "f")
        t = 1.0
        for name, mode in MODES.items():
            for case, sides in _cases(mode).items():
                op = f"{name}_{case}"
                w.add_op("g1", "Relu", op, [])
                for _ in range(STEPS):
                    w.add_graph_trace("g1", op, 0, name, sides[side], wall_time=t)
                    w.add_execution(op, name, [sides[side]],
                                    output_tensor_ids=[1, 2] if case == "slot_past" else [1],
                                    wall_time=t + 0.5)
                    t += 1.0
    return str(path)


@pytest.fixture(scope="module")
def forged(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    root = tmp_path_factory.mktemp("digests")
    return _forge(root / "a", 0), _forge(root / "b", 1)


def _assert_same_verdicts(fast: Comparison, plain: Comparison) -> None:
    f, p = fast.pairs, plain.pairs
    for column in ("kind", "a_row", "b_row", "how", "status", "reason", "worst", "order",
                   "max_abs", "max_rel"):
        np.testing.assert_array_equal(getattr(f, column), getattr(p, column), err_msg=column)


def _op_of(logdir: DebugLogdir, kind: int, row: int) -> str:
    if kind == GRAPH:
        return logdir.op_name_of_trace(row)
    return logdir.execution(int(logdir.outputs.execution[row])).op_type


def test_forged_pairs_judged_as_written(forged: tuple[str, str],
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """The verdicts written in `_cases`, by the plain judge and by the digests."""
    plain = plain_compare(*forged, monkeypatch)
    la = opened(forged[0], True)
    fast = compare(la, opened(forged[1], True))
    _assert_same_verdicts(fast, plain)
    p = fast.pairs
    seen: dict[tuple[int, str], set[int]] = {}
    for i in range(len(p.kind)):
        kind = int(p.kind[i])
        seen.setdefault((kind, _op_of(la, kind, int(p.a_row[i]))), set()).add(int(p.status[i]))
    for name, mode in MODES.items():
        for case, (_, _, verdict) in _cases(mode).items():
            for kind in (GRAPH, EAGER):
                got = seen.get((kind, f"{name}_{case}"))
                assert got is not None, (kind, name, case)
                if verdict is not None:
                    assert got == {verdict}, (kind, name, case)


@pytest.mark.parametrize("block", [2, 1 << 17])
@pytest.mark.parametrize("readback", [True, False])
def test_digest_judge_is_the_plain_judge_on_forged_pairs(
        forged: tuple[str, str], monkeypatch: pytest.MonkeyPatch, block: int,
        readback: bool) -> None:
    """Fast (digests, with or without the compiled read-back for rows without one) against
    plain, and each way round."""
    a, b = forged
    for x, y in ((a, b), (b, a)):
        plain = plain_compare(x, y, monkeypatch)
        with monkeypatch.context() as m:
            m.setattr(checks, "_BLOCK", block)
            m.setattr(detail, "BULK_ROWS", 1)
            if not readback:
                m.setattr(detail, "native", None)
            _assert_same_verdicts(compare(opened(x, True), opened(y, True)), plain)


def _decided_by_digests(la: DebugLogdir, lb: DebugLogdir, kind: int,
                        monkeypatch: pytest.MonkeyPatch) -> dict[str, bool]:
    """Per op, whether `same_summaries` calls its rows i ↔ i equal with no read-back."""
    n = len(la.traces) if kind == GRAPH else len(la.outputs)
    rows = np.arange(n)
    with monkeypatch.context() as m:
        m.setattr(detail, "native", None)  # no compiled read-back: digests alone
        same = checks.same_summaries(la, lb, kind, rows, rows)
    out: dict[str, bool] = {}
    for r in range(n):
        op = _op_of(la, kind, r)
        out[op] = out.get(op, True) and bool(same[r])
    return out


@pytest.mark.parametrize("kind", [GRAPH, EAGER])
def test_equal_rows_are_decided_by_their_digests(forged: tuple[str, str], kind: int,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    la, lb = opened(forged[0], True), opened(forged[1], True)
    decided = _decided_by_digests(la, lb, kind, monkeypatch)
    for name, mode in MODES.items():
        for case in ("same", "tensor_id", "device"):
            if case in _cases(mode):
                assert decided[f"{name}_{case}"], (name, case)
        for case in ("count", "bad", "negzero", "nan_both", "empty_both", "empty_a"):
            if case in _cases(mode):
                assert not decided[f"{name}_{case}"], (name, case)
    # without digests nothing is decided without a read-back
    plain = _decided_by_digests(opened(forged[0], False), opened(forged[1], False), kind,
                                monkeypatch)
    assert not any(plain.values())


def _digests(logdir: DebugLogdir) -> tuple[np.ndarray, np.ndarray]:
    assert logdir.traces.digest is not None and logdir.outputs.digest is not None
    return np.array(logdir.traces.digest), np.array(logdir.outputs.digest)


def _compiled_and_pure(path: str, monkeypatch: pytest.MonkeyPatch
                       ) -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
    compiled = _digests(open_logdir(path, digests=True))
    with monkeypatch.context() as m:
        m.setattr(ingest, "NATIVE", None)
        pure = _digests(open_logdir(path, digests=True))
    return compiled, pure


def _assert_digests_of_records(logdir: DebugLogdir) -> None:
    """Every row's digest is the digest of its record's summary (read back), or 0 where
    the record has no usable one."""
    for table, digest in zip((logdir.traces, logdir.outputs), _digests(logdir), strict=True):
        rows = np.arange(len(table))
        s = table.detail.summaries(table, rows)
        for mode in np.unique(s.mode[s.mode >= 0]).tolist():
            at = np.flatnonzero(s.mode == mode)
            want = H.summary_digests(mode, s.vectors[at, :VECTOR_LEN[mode]])
            np.testing.assert_array_equal(digest[at], want)
        empty = np.flatnonzero(digest == H.DIGEST_EMPTY)  # no summary: nothing to read back
        if len(empty):
            assert (table.bad[empty] == -1).all()
            h = table.detail(table, empty, bulk=False)
            for c in H.HEALTH_COLUMNS:
                if c not in ("bad", "tensor_id"):
                    assert (h[c] == -1).all(), c


def test_compiled_and_python_loops_give_the_same_digests(
        forged: tuple[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    if ingest.NATIVE is None:
        pytest.skip("compiled core not built or disabled")
    for path in forged:
        (ct, co), (pt, po) = _compiled_and_pure(path, monkeypatch)
        np.testing.assert_array_equal(ct, pt)
        np.testing.assert_array_equal(co, po)
        assert (ct != 0).sum() > len(ct) // 2  # most rows have one
        assert (ct == H.DIGEST_EMPTY).any() and (co == H.DIGEST_EMPTY).any()
        _assert_digests_of_records(open_logdir(path, digests=True))


def test_an_index_not_opened_for_comparison_keeps_no_digests(forged: tuple[str, str]) -> None:
    logdir = open_logdir(forged[0])
    assert logdir.traces.digest is None and logdir.outputs.digest is None
    assert "digest" not in logdir.traces.logical_columns


# ---------------------------------------------------------------------- real runs
@pytest.mark.parametrize("mode", ["CURT_HEALTH", "CONCISE_HEALTH", "FULL_HEALTH"])
def test_real_runs_compiled_python_and_records_agree(make_tf_logdir: Callable[..., str],
                                                     monkeypatch: pytest.MonkeyPatch,
                                                     mode: str) -> None:
    if ingest.NATIVE is None:
        pytest.skip("compiled core not built or disabled")
    for kind in ("mixed", "eager"):
        src = make_tf_logdir(kind, mode)
        (ct, co), (pt, po) = _compiled_and_pure(src, monkeypatch)
        np.testing.assert_array_equal(ct, pt)
        np.testing.assert_array_equal(co, po)
        assert (ct != 0).any() or (co != 0).any()
        _assert_digests_of_records(open_logdir(src, digests=True))


@pytest.mark.parametrize(("a", "b"), [("base_health", "base_health"),
                                      ("base_health", "nan_health"),
                                      ("nan_health", "base_health"),
                                      ("base", "base_health")])
def test_digest_judge_is_the_plain_judge_on_real_pairs(pair_runs: dict[str, str],
                                                       monkeypatch: pytest.MonkeyPatch,
                                                       a: str, b: str) -> None:
    plain = plain_compare(pair_runs[a], pair_runs[b], monkeypatch)
    with monkeypatch.context() as m:
        m.setattr(detail, "native", None)  # decided by digests, or by the columns
        _assert_same_verdicts(compare(opened(pair_runs[a], True), opened(pair_runs[b], True)),
                              plain)
    if a == b:
        assert not plain.pairs.status.any()
        decided = _decided_by_digests(opened(pair_runs[a], True), opened(pair_runs[b], True),
                                      GRAPH, monkeypatch)
        assert any(decided.values())  # the shortcut was taken
    if {a, b} == {"base_health", "nan_health"}:
        assert plain.pairs.status.any()  # they diverge: the digests must not hide it


# ---------------------------------------------------------------------- cache and shards
def test_cache_with_and_without_digests(forged: tuple[str, str], tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """A cache saved without digests serves a comparison (digests unknown: read back, same
    verdicts); one saved with them serves a plain open and a comparison alike."""
    monkeypatch.setenv("TFDBG_TUI_CACHE_MIN_BYTES", "0")
    a, b = forged
    plain = plain_compare(a, b, monkeypatch)
    fresh = _digests(open_logdir(a, digests=True))

    def cached(path: str, digests: bool) -> DebugLogdir:
        logdir = DebugLogdir(path, cache=True, digests=digests)
        logdir.update()
        return logdir

    monkeypatch.setenv("TFDBG_TUI_CACHE_DIR", str(tmp_path / "plain"))
    cached(a, False), cached(b, False)  # saved without digests
    la, lb = cached(a, True), cached(b, True)
    assert la._cache is not None and la._cache._restored_bytes > 0  # from the cache
    assert not _digests(la)[0].any()  # unknown, not made up
    _assert_same_verdicts(compare(la, lb), plain)

    monkeypatch.setenv("TFDBG_TUI_CACHE_DIR", str(tmp_path / "digests"))
    cached(a, True), cached(b, True)  # saved with digests
    la, lb = cached(a, True), cached(b, True)
    assert la._cache is not None and la._cache._restored_bytes > 0
    for got, want in zip(_digests(la), fresh, strict=True):
        np.testing.assert_array_equal(got, want)
    _assert_same_verdicts(compare(la, lb), plain)
    report = cached(a, False)
    assert report.traces.digest is None and len(report.traces) == len(la.traces)


def _two_hosts(path: Path) -> str:
    for host, t0 in (("h1", 0.0), ("h2", 0.25)):
        with LogdirWriter(path, run_id="hosts", hostname=host, file_timestamp=1) as w:
            w.add_graph("g1", "f")
            w.add_op("g1", "Relu", "r", [])
            for step in range(40):
                vec = _base(FULL_HEALTH, tid=1.0)
                vec[10] = float(step)  # positive count: a different digest per step
                w.add_graph_trace("g1", "r", 0, "FULL_HEALTH", vec, wall_time=t0 + step)
                w.add_execution("Relu", "FULL_HEALTH", [vec], output_tensor_ids=[1],
                                wall_time=t0 + step + 0.5)
    return str(path)


def test_shard_merge_keeps_digests_with_their_rows(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Two hosts read in worker processes and merged in wall-time order: each row keeps the
    digest of its own record; as read here, file set after file set, the same."""
    src = _two_hosts(tmp_path / "run")
    monkeypatch.setenv("TFDBG_TUI_PARALLEL_MIN_BYTES", "0")
    monkeypatch.setenv("TFDBG_TUI_WORKERS", "2")
    merged = open_logdir(src, digests=True)
    assert len(merged.filesets) == 2 and len(merged.traces) == 80
    _assert_digests_of_records(merged)
    monkeypatch.setenv("TFDBG_TUI_PARALLEL_MIN_BYTES", str(1 << 62))
    here = open_logdir(src, digests=True)
    for got, want in zip(_digests(merged), _digests(here), strict=True):
        np.testing.assert_array_equal(got, want)
    assert len(np.unique(_digests(here)[0])) == 40  # both hosts' step s: one digest


def test_merge_gives_shards_without_digests_unknown_ones(tmp_path: Path) -> None:
    """Shards made without digests (an engine that never asked) merge into an index that
    keeps them as "unknown"; shards with digests merge into one that keeps none without
    them."""
    src = _two_hosts(tmp_path / "run")
    for target_digests, shard_digests in ((True, False), (False, True)):
        target = DebugLogdir(src, digests=target_digests)
        shards = [index_fileset(DebugLogdir, target.path, target.run_id, fs, None,
                                shard_digests) for fs in target.filesets]
        merge(target, shards)
        assert len(target.traces) == 80 and len(target.outputs) == 80
        if target_digests:
            assert not _digests(target)[0].any() and not _digests(target)[1].any()
        else:
            assert target.traces.digest is None and target.outputs.digest is None
