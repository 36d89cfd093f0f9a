"""`tfdbg-tui export LOGDIR OUT_DIR [--format parquet|csv]`: the index as tables.

Writes `executions`, `eager_outputs`, `graph_traces`, `alerts` and `stack_frames` (one file
each, columns in docs/export.md) and `report.json` (what `report --json` prints, so a
consumer has the run's facts and the first alerts' diagnoses next to the tables). Each file is
written under a temporary name and renamed into place once all are complete (`out.OutDir`):
a reader never sees half a table, and nothing planted in OUT_DIR is written through.
The first `--diagnose N` alerts (default 10, as `report`) carry their diagnosis columns.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Executor, ThreadPoolExecutor
from typing import Any

from reader import DebugLogdir, ReaderError
from tfdbg_tui.commands.args import (
    Parser,
    UsageError,
    add_remote_timeout,
    apply_remote_timeout,
    count,
)
from tfdbg_tui.commands.export import room
from tfdbg_tui.commands.export.early import EarlyTraces
from tfdbg_tui.commands.export.kept import KeptHealth
from tfdbg_tui.commands.export.out import OutDir, check_out_dir, shown
from tfdbg_tui.commands.export.tables import TABLES, AlertCounts, Tables
from tfdbg_tui.commands.report import _finite, _load, _nothing_readable, build_report
from tfdbg_tui.core.sanitize import error_line, literal

PROG = "tfdbg-tui export: error"
READERS = 2  # threads reading health back: the compiled read is I/O and parsing, GIL-free
DELTA = ("row", "rank", "execution", "offset")  # ascending integers, delta-encoded in Parquet
FORMULA = r"^[=+\-@\t\r]"  # CSV cells a spreadsheet would take for a formula (OWASP)
Prepare = Callable[[Any, Any, str], Any]


def build_parser() -> argparse.ArgumentParser:
    p = Parser(prog="tfdbg-tui export",
                description="Write a tfdbg2 logdir's index as Parquet or CSV tables.")
    p.add_argument("logdir")
    p.add_argument("out_dir")
    p.add_argument("--format", choices=("parquet", "csv"), default="parquet")
    p.add_argument("--run", help="run id (or unique prefix) when the logdir holds several")
    p.add_argument("--diagnose", type=count, default=10, metavar="N",
                   help="diagnose the first N alerts (default 10)")
    p.add_argument("--raw-csv", action="store_true",
                   help="CSV text cells exactly as recorded (by default a cell starting with "
                        "= + - @ tab or CR gets a leading ' so a spreadsheet shows it as text)")
    add_remote_timeout(p)
    return p


def write_tables(logdir: DebugLogdir, out_dir: str | OutDir, fmt: str = "parquet",
                 diagnose: int = 10, reads: Executor | None = None,
                 kept: KeptHealth | None = None, early: EarlyTraces | None = None,
                 raw_csv: bool = False) -> dict[str, str]:
    """Write every table of `logdir` into `out_dir`; returns table name → file path.

    The report is built first (alone: its many small reads would queue for the GIL behind
    the table threads). Then the tables are written at once, each on its own thread (Arrow
    builds and writes files without the GIL), their health kept during the load (`kept`)
    or else read back ahead on `reads` (a pool of its own if not given), while this thread
    saves the index cache. The alerts carry the report's diagnoses and their tensors'
    counts: written beside the others when every count was kept, else last, with the counts
    the other tables' reads gathered (`AlertCounts`). An error in one table stops the
    export with it once the others are done. Nothing is renamed into place before every file
    is complete; on an error, OUT_DIR keeps what it held (`OutDir`). CSV text cells that a
    spreadsheet would run as formulas are neutralized unless `raw_csv` (`_prepare`)."""
    if reads is None:
        with ThreadPoolExecutor(READERS, "export-read") as own:
            return write_tables(logdir, out_dir, fmt, diagnose, own, raw_csv=raw_csv)
    out = early.out if early is not None else (
        out_dir if isinstance(out_dir, OutDir) else OutDir(out_dir))
    try:
        written = _write_all(logdir, out, fmt, diagnose, reads, kept, early,
                             functools.partial(_prepare, raw=raw_csv))
        paths = out.commit()
    finally:
        out.discard()
    return {name: paths[file] for name, file in written.items()}


def _write_all(logdir: DebugLogdir, out: OutDir, fmt: str, diagnose: int, reads: Executor,
               kept: KeptHealth | None, early: EarlyTraces | None, prepare: Prepare
               ) -> dict[str, str]:
    """Write every file into `out` (not committed); table name → its file's name."""
    files = {name: f"{name}.{fmt}" for name in TABLES}
    with ThreadPoolExecutor(len(TABLES), "export-write") as writes:
        # the report first: its many small reads (a few rows each) would otherwise queue
        # for the GIL behind the table threads, each time they give it back
        report = build_report(logdir, max(0, diagnose))
        names = ["graph_traces", "eager_outputs", "executions", "stack_frames"]
        # the alerts' counts: kept during the load, or else gathered by the other tables
        beside = kept is not None and kept.complete()
        tables = Tables(logdir, reads, None if beside else AlertCounts(logdir), kept=kept)
        jobs = [writes.submit(_write, tables, name, report["first_alerts"], out, files[name],
                              fmt, prepare, early if name == "graph_traces" else None)
                for name in names + ["alerts"] * beside]
        try:
            logdir.save_cache()  # (if the load left it: off the load's path, see `main`)
        finally:
            errors = [job.exception() for job in jobs]  # waits for every table
        for error in errors:
            if error is not None:
                raise error
        if not beside:
            _write(tables, "alerts", report["first_alerts"], out, files["alerts"], fmt, prepare)
    target = out.file("report.json")
    with os.fdopen(os.dup(target.fd), "w", encoding="utf-8") as f:
        json.dump(_finite(report), f, indent=1, allow_nan=False, default=str)
    return {**files, "report": "report.json"}


def _write(tables: Tables, name: str, diagnosed: list[dict[str, Any]], out: OutDir,
           file: str, fmt: str, prepare: Prepare, early: EarlyTraces | None = None) -> None:
    """Write table `name` to `out`'s `file` (a temporary until the export commits it); the
    graph traces go on from what `early` wrote during the load when it is still right
    (its writer, on `out`'s temporary for `file`)."""
    pa = tables.pa
    writer: Any = None
    target: Any = None
    start = 0
    if early is not None:
        handed = early.finish(tables)
        if handed is not None:
            writer, start = handed
    try:
        for batch in _ahead(tables.batches(name, diagnosed, start)):
            batch = prepare(pa, batch, fmt)
            if writer is None:
                target = out.file(file)
                writer = _writer(pa, target.path, batch.schema, fmt)
            writer.write_batch(batch)
    except BaseException:
        if writer is not None:
            writer.close()
        if target is not None:
            target.discard()
        raise
    if writer is not None:
        writer.close()


def _prepare(pa: Any, batch: Any, fmt: str, raw: bool = False) -> Any:
    """A record batch as written in `fmt`: CSV has no dictionary type (plain strings), and
    its text cells that start like a formula (`=`, `+`, `-`, `@`, tab, CR: OWASP's list)
    get a leading `'`, which spreadsheets show as text and do not run (an op name
    `=HYPERLINK(…)` from an untrusted logdir would otherwise be a live link); `raw` keeps
    them as recorded. Numbers are never touched (a negative number is a number)."""
    if fmt != "csv":
        return batch
    columns = []
    for c in batch.columns:
        if pa.types.is_dictionary(c.type):
            if not raw:  # on the dictionary's words: each distinct string once
                c = type(c).from_arrays(c.indices, _neutralized(c.dictionary))
            c = c.dictionary_decode()
        elif pa.types.is_string(c.type) and not raw:
            c = _neutralized(c)
        columns.append(c)
    return pa.record_batch(columns, names=batch.schema.names)


def _neutralized(strings: Any) -> Any:
    """`strings` (an Arrow string array) with `'` before each formula-leading value."""
    import pyarrow.compute as pc

    risky = pc.match_substring_regex(strings, FORMULA)
    return pc.if_else(risky, pc.binary_join_element_wise("'", strings, ""), strings)


def _ahead(batches: Iterator[Any]) -> Iterator[Any]:
    """`batches`, the next one built on another thread while the caller writes this one
    (building is numpy and Python, writing Arrow's C++ without the GIL: they overlap)."""
    with ThreadPoolExecutor(1, "export-build") as builder:
        nxt = builder.submit(next, batches, None)
        try:
            while (batch := nxt.result()) is not None:
                nxt = builder.submit(next, batches, None)
                yield batch
        finally:
            nxt.cancel()


def _writer(pa: Any, path: str, schema: Any, fmt: str) -> Any:
    """A CSV or Parquet writer. Parquet: dictionary encoding for the dictionary columns
    (strings that repeat) only, as the numeric ones (times, offsets, counts) are mostly
    distinct and a dictionary would be built only to be dropped; the ascending row numbers
    and offsets delta-encoded (a few bits a row instead of 8 bytes); min/max statistics for
    the numeric and boolean columns (what an engine skips row groups by: `row`, `wall_time`,
    `nan`, `bad`, …), not for the strings, where they cost a fifth of the writing."""
    if fmt == "csv":
        import pyarrow.csv as pcsv

        return pcsv.CSVWriter(path, schema)
    import pyarrow.parquet as pq

    strings = [f.name for f in schema if pa.types.is_dictionary(f.type)]
    numeric = [f.name for f in schema if not pa.types.is_dictionary(f.type)
               and not pa.types.is_string(f.type)]
    delta = {f.name: "DELTA_BINARY_PACKED" for f in schema
             if f.name in DELTA and pa.types.is_integer(f.type)}
    return pq.ParquetWriter(path, schema, use_dictionary=strings,
                            write_statistics=numeric or False, column_encoding=delta or None)


def main(argv: Sequence[str]) -> int:
    """Run the export command; returns the exit status (0 written, 2 error)."""
    try:
        opts = build_parser().parse_args(list(argv))
    except UsageError as exc:
        print(error_line(PROG, exc), file=sys.stderr)
        return 2
    apply_remote_timeout(opts.remote_timeout)
    with _ended_by_signals(), ThreadPoolExecutor(READERS, "export-read") as reads:
        early: list[KeptHealth] = []
        traces: list[EarlyTraces] = []

        def watch(logdir: DebugLogdir) -> None:
            kept = KeptHealth(logdir, reads)
            early.append(kept)
            logdir.health_sink = kept
            traces.append(EarlyTraces(logdir, kept, OutDir(opts.out_dir), opts.format,
                                      functools.partial(_prepare, raw=opts.raw_csv),
                                      _writer))
            kept.on_traces = traces[0].offer

        try:
            return _export(opts, reads, watch, early, traces)
        finally:
            for kept in early:  # on an error: nothing left running for nothing
                kept.cancel()
            for written in traces:  # (after `finish`: nothing left to remove)
                written.discard()


@contextlib.contextmanager
def _ended_by_signals() -> Iterator[None]:
    """SIGTERM and SIGHUP (`kill`, `timeout`, a closed terminal) end the export as an error
    does — its temporaries removed, OUT_DIR as it was — with the status a shell gives a
    process they kill (128 + the signal). Before, the interpreter died at once and left
    `.NAME.tmp-…` files in OUT_DIR."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def end(signum: int, _frame: object) -> None:
        raise SystemExit(128 + signum)

    old = {sig: signal.signal(sig, end) for sig in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)


def _export(opts: argparse.Namespace, reads: Executor,
            watch: Callable[[DebugLogdir], None], early: list[KeptHealth],
            traces: list[EarlyTraces]) -> int:
    try:
        check_out_dir(opts.out_dir)
    except OSError as exc:
        print(error_line(PROG, f"{opts.out_dir}: {exc.strerror}"), file=sys.stderr)
        return 2
    short = room.problem()  # before pyarrow loads (it would fail as if not installed)
    if short is not None:
        print(error_line(PROG, short), file=sys.stderr)
        return 2
    try:
        Tables.check()
        # the index cache is saved while the tables are written (`write_tables`)
        logdir = _load(opts.logdir, opts.run, sys.stderr.isatty(), watch, save=False)
    except (ReaderError, ImportError) as exc:
        print(error_line(PROG, exc), file=sys.stderr)
        return 2
    except OSError as exc:
        print(error_line(PROG, f"{opts.logdir}: {exc.strerror or exc}"), file=sys.stderr)
        return 2
    if _nothing_readable(logdir):
        print(error_line(PROG, f"nothing readable in {opts.logdir}: {logdir.warnings[0]}"),
              file=sys.stderr)
        return 2
    data = sum(logdir.file_cursor(fsi, s).offset for fsi in range(len(logdir.filesets))
               for s in ("graph_execution_traces", "execution"))
    short = room.problem(data)
    if short is not None:
        print(error_line(PROG, short), file=sys.stderr)
        return 2
    import pyarrow as pa

    try:
        written = write_tables(logdir, opts.out_dir, opts.format, opts.diagnose, reads,
                               early[0] if early else None, traces[0] if traces else None,
                               raw_csv=opts.raw_csv)
    except OSError as exc:
        print(error_line(PROG, f"{shown(opts.out_dir, exc.filename)}: {exc.strerror or exc}"),
              file=sys.stderr)
        return 2
    except (MemoryError, RuntimeError) as exc:  # (Arrow's too; a thread that could not start)
        if isinstance(exc, RuntimeError) and "thread" not in str(exc):
            raise
        print(error_line(PROG, f"out of memory writing the tables: export needs "
                         f"{room.figure(data)}"), file=sys.stderr)
        return 2
    except pa.ArrowException as exc:
        print(error_line(PROG, f"{opts.out_dir}: {exc}"), file=sys.stderr)
        return 2
    for name, path in written.items():  # (a path with escapes is shown escaped)
        print(f"{name:14} {literal(path)}")
    return 0
