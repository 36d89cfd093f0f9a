"""Incremental reading: `update()` reads only appended bytes, and the fast paths are exact."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from support.tf_oracle import tf_oracle

import reader.index.ingest
from reader import open_logdir


def test_update_reads_only_appended_bytes(make_tf_logdir: Callable[..., str],
                                          tmp_path: Path) -> None:
    src = make_tf_logdir("mixed", "FULL_HEALTH")
    oracle = tf_oracle(src)
    d = tmp_path / "live"
    shutil.copytree(src, d)
    (traces,) = d.glob("*.graph_execution_traces")
    full = traces.read_bytes()
    offsets = oracle["trace_offsets"]
    cut1, cut2 = offsets[len(offsets) // 3], offsets[2 * len(offsets) // 3] + 5  # 2nd is mid-record
    traces.write_bytes(full[:cut1])

    logdir = open_logdir(str(d))
    assert len(logdir.traces) == len(offsets) // 3
    nothing = logdir.update()
    assert nothing.bytes_read == 0 and not nothing.changed

    with open(traces, "ab") as f:
        f.write(full[cut1:cut2])
    stats = logdir.update()
    assert stats.bytes_read == (cut2 - 5) - cut1  # the partial record is left for later
    assert len(logdir.traces) == 2 * len(offsets) // 3

    with open(traces, "ab") as f:
        f.write(full[cut2:])
    stats = logdir.update()
    assert len(logdir.traces) == oracle["counts"]["graph_traces"]
    assert logdir.num_alerts == oracle["alerts_total"]
    assert stats.bytes_read == len(full) - (cut2 - 5)


@pytest.mark.parametrize("mode", ["NO_TENSOR", "CURT_HEALTH", "CONCISE_HEALTH", "FULL_HEALTH",
                                  "SHAPE"])
def test_template_fast_path_equals_full_parse(make_tf_logdir: Callable[..., str],
                                              monkeypatch: pytest.MonkeyPatch, mode: str) -> None:
    """Records matched by byte templates index exactly as when every record is parsed."""
    monkeypatch.setattr(reader.index.ingest, "NATIVE", None)  # templates: the pure-Python path
    src = make_tf_logdir("mixed", mode)
    fast = open_logdir(src)
    assert fast.ingest_cache.num_templates > 0  # the fast path was really taken
    monkeypatch.setattr(reader.index.ingest, "MAX_TEMPLATES", 0)
    slow = open_logdir(src)
    assert slow.ingest_cache.num_templates == 0
    assert len(fast.traces) == len(slow.traces) > 0
    for col in fast.traces.columns:
        a, b = fast.traces.col(col), slow.traces.col(col)
        if col in ("graph_id", "op_name", "op_type", "device"):
            a = np.array([fast.strings[int(i)] for i in a])
            b = np.array([slow.strings[int(i)] for i in b])
        np.testing.assert_array_equal(a, b, err_msg=col)
