"""The Python API for notebooks: `tfdbg_tui.open(logdir)` → a `Run` with the index as tables.

    import tfdbg_tui
    run = tfdbg_tui.open("s3://bucket/job-42")   # or a local path
    run.graph_traces            # pyarrow.Table, one row per traced tensor (health columns)
    run.df("alerts")            # the same as a pandas DataFrame (pandas installed)
    run.first_alerts(3)         # the report's first alerts, each with its diagnosis

The tables are those `tfdbg-tui export` writes (columns in docs/export.md), built on first
use and kept. `first_alerts` gives the dicts of `report --json`'s "first_alerts", so a
notebook and CI read the same words.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from reader import DebugLogdir, LogdirError
from tfdbg_tui.commands.export.tables import TABLES, Tables
from tfdbg_tui.commands.report.build import build_report


class Run:
    """One indexed run of a logdir, as tables."""

    def __init__(self, logdir: DebugLogdir) -> None:
        self.logdir = logdir
        self._tables: Tables | None = None
        self._cache: dict[str, Any] = {}
        self._first: dict[int, list[dict[str, Any]]] = {}

    def __repr__(self) -> str:
        return (f"<tfdbg_tui.Run {self.logdir.path} run={self.logdir.run_id} "
                f"hosts={len(self.logdir.hosts)} graph_traces={len(self.logdir.traces)} "
                f"executions={len(self.logdir.executions)} alerts={self.logdir.num_alerts}>")

    @property
    def report(self) -> dict[str, Any]:
        """What `tfdbg-tui report --json` says (first 10 alerts)."""
        return build_report(self.logdir, 10)

    def first_alerts(self, n: int = 10) -> list[dict[str, Any]]:
        """The first `n` alerts (earliest wall time first), each with op, health, user frame
        and `diagnosis` (origin, explanation, line to fix), as `report --json` gives them."""
        if n not in self._first:
            self._first[n] = build_report(self.logdir, max(0, n))["first_alerts"]
        return self._first[n]

    def table(self, name: str) -> Any:
        """One of `TABLES` as a pyarrow.Table (the alerts' diagnosis columns for the first
        10, as `export`)."""
        if name not in TABLES:
            raise KeyError(f"no table {name!r}; tables: {', '.join(TABLES)}")
        if name not in self._cache:
            if self._tables is None:
                self._tables = Tables(self.logdir)
            diagnosed = self.first_alerts(10) if name == "alerts" else None
            self._cache[name] = self._tables.table(name, diagnosed)
        return self._cache[name]

    def df(self, name: str) -> Any:
        """One table as a pandas DataFrame (needs pandas)."""
        try:
            import pandas  # noqa: F401
        except ImportError:
            raise ImportError("DataFrames need pandas: pip install pandas") from None
        return self.table(name).to_pandas()

    @property
    def executions(self) -> Any:
        return self.table("executions")

    @property
    def eager_outputs(self) -> Any:
        return self.table("eager_outputs")

    @property
    def graph_traces(self) -> Any:
        return self.table("graph_traces")

    @property
    def alerts(self) -> Any:
        return self.table("alerts")

    @property
    def stack_frames(self) -> Any:
        return self.table("stack_frames")


def open_run(path: str, run: str | None = None,
             progress: Callable[[int, int], None] | None = None, cache: bool = True) -> Run:
    """Read a logdir (a path or a URL) and return its run as tables. LogdirError when
    nothing is readable there; `run` picks a run when the logdir holds several. TypeError
    for a logdir that is no path (None, a number: an AttributeError from deep inside
    before) or a run that is no string; a bytes or os.PathLike path is taken as one."""
    if isinstance(path, (bytes, os.PathLike)):
        path = os.fsdecode(path)
    if not isinstance(path, str):
        raise TypeError(f"logdir must be a path or a URL (str or os.PathLike), not "
                        f"{type(path).__name__}")
    if run is not None and not isinstance(run, str):
        raise TypeError(f"run must be a run id (str) or None, not {type(run).__name__}")
    logdir = DebugLogdir(path, run, cache=cache)
    logdir.update(progress)
    counts = (len(logdir.executions), len(logdir.traces), len(logdir.graphs.graphs),
              logdir.num_source_files, logdir.num_stack_frames)
    if not any(counts) and logdir.warnings:  # as `report` (exit 2): not an empty run
        raise LogdirError(f"nothing readable in {path}: {logdir.warnings[0]}")
    return Run(logdir)
