"""The header line: logdir, run, TensorFlow version, modes, counts, alerts, reading state.

It is rebuilt on every snapshot, from the snapshot's counts only (rows below them never
change), and shortened for the narrow layout. After an error ended reading it says so
instead of "live" (the error itself is in a notification).
"""

from __future__ import annotations

from rich.text import Text

from reader import DebugLogdir
from tfdbg_tui.core.liveness import activity, last_growth
from tfdbg_tui.core.model import Snapshot
from tfdbg_tui.core.names import num_hosts
from tfdbg_tui.core.textutil import lit


def header_line(logdir: DebugLogdir, snap: Snapshot, display_path: str, narrow: bool,
                follow: bool, stopped: str | None = None) -> Text:
    """The header for `snap`; `follow` says whether the app keeps reading a live logdir;
    `stopped` is the error that ended reading (then neither "indexing" nor "live" holds)."""
    t = Text(no_wrap=True, overflow="ellipsis")
    t.append("tfdbg-tui ", "bold")
    t.append(lit(display_path), "bold #5fd7ff")
    t.append(f"  run {lit(logdir.run_id) or '?'}", "")
    if not narrow:
        t.append(f"  TF {lit(logdir.tensorflow_version) or '?'}", "dim")
    modes = ", ".join(logdir.tensor_debug_modes) or "mode ?"
    t.append(f"  {lit(modes)}", "bold")
    hosts = num_hosts(logdir)
    if hosts > 1:  # their file sets are merged into one timeline
        t.append(f"  {hosts} hosts", "bold")
    if narrow:
        t.append(f"  {snap.executions:,} exec · {snap.traces:,} traces · ", "")
    else:
        t.append(f"  {snap.executions:,} executions · {snap.traces:,} graph tensors · ", "")
    t.append(f"{len(snap.alerts):,} alerts", "bold #ff5f5f" if len(snap.alerts) else "green")
    warnings = len(logdir.all_warnings()) if not snap.indexing else 0
    if warnings:
        t.append(f"  ⚠ {warnings}", "bold yellow")
    if stopped is not None:
        t.append("  ✖ reading stopped", "bold #ff5f5f")
    elif snap.indexing:
        pct = (100 * snap.done_bytes // snap.total_bytes) if snap.total_bytes else 0
        t.append(f"  indexing {pct}%", "bold yellow")
    elif follow:
        words, live = activity(last_growth(logdir))
        t.append(f"  {words}", "bold green" if live else "dim")
    else:
        t.append("  ● read", "bold green")
    return t
