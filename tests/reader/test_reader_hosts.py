"""Several hosts writing one run: every host's executions and traces are read."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

from support.tf_oracle import tf_oracle

from reader import open_logdir


def test_two_hosts_of_one_run(make_tf_logdir: Callable[..., str], tmp_path: Path) -> None:
    src = make_tf_logdir("mixed", "FULL_HEALTH")
    one = tf_oracle(src)
    d = tmp_path / "multi"
    shutil.copytree(src, d)
    # a second worker's file set: same run id (same metadata), another host name
    for f in list(d.iterdir()):
        stem, _, suffix = f.name.rpartition(".")
        ts, host = stem.split(".")[1], stem.split(".", 2)[2]
        shutil.copy(f, d / f"tfdbg_events.{int(ts) + 1}.{host}-worker1.{suffix}")
    both = tf_oracle(str(d))
    # TensorFlow reads traces from every host but executions from the first host only
    assert both["counts"]["graph_traces"] == 2 * one["counts"]["graph_traces"]
    assert both["counts"]["executions"] == one["counts"]["executions"]

    logdir = open_logdir(str(d))
    assert len(logdir.run.filesets) == 2
    assert len(logdir.traces) == both["counts"]["graph_traces"]
    assert len(logdir.executions) == 2 * one["counts"]["executions"]  # we read every host's
    assert logdir.runs and len(logdir.runs) == 1
    eager_alerts = int((logdir.alerts().kind == 1).sum())
    single = open_logdir(src)
    assert eager_alerts == 2 * int((single.alerts().kind == 1).sum())
    assert any(h.endswith("-worker1") for h in logdir.hosts)
