"""Corpus items that attack the reading: amplification, values, hangs, unbounded reads and
results that would be silently wrong. Each builder's docstring says what it writes."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from hostile.raw import (
    ALERTS,
    CLEAN,
    T0,
    UNREADABLE,
    Case,
    append,
    base,
    builder,
    event,
    execution,
    header,
    tensor,
    trace,
    vector,
)
from support.tui import health

from reader.io.tfrecord import frame_record
from reader.proto import tfdbg_events_pb2 as pb


# ===================================================================== amplification
@builder
def num_outputs_huge(d: Path) -> Case:
    """A 41-byte execution record claiming 2**31 − 1 outputs (it holds none)."""
    b = base(d)
    e = pb.Execution(op_type="Relu", num_outputs=2**31 - 1, tensor_debug_mode=4)
    (off,) = append(b.file("execution"), event(execution=e))
    return Case("num_outputs_huge", d, ALERTS, b.file("execution").name, off,
                b.counts(executions=1), b.alerts)


@builder
def fill_float_nan(d: Path) -> Case:
    """1000 FULL_TENSOR traces of 58 bytes: float_val=[nan], shape [2**24] (64 MB each)."""
    b = base(d)
    tp = tensor(1, (1 << 24,), float_val=[float("nan")])
    append(b.file("graph_execution_traces"), *[trace("Softmax", tp, mode=7)] * 1000)
    return Case("fill_float_nan", d, ALERTS, counts=b.counts(graph_traces=1000),
                alerts=b.alerts + 1000, peak_mb=32)


@builder
def fill_string(d: Path) -> Case:
    """FULL_TENSOR string traces: one value standing for 2**24 strings."""
    b = base(d)
    tp = tensor(7, (1 << 24,), string_val=[b"x" * 64])
    append(b.file("graph_execution_traces"), *[trace("Softmax", tp, mode=7)] * 200)
    return Case("fill_string", d, ALERTS, counts=b.counts(graph_traces=200), alerts=b.alerts,
                peak_mb=32)


@builder
def input_ids_huge(d: Path) -> Case:
    """An eager Log with NaN whose record lists 2,000,000 input tensor ids (2 MB of varints)."""
    b = base(d, bad=False)
    nan = vector(health(5, 4, nan=4))
    append(b.file("execution"),
           execution("Log", [nan], inputs=tuple(range(1, 2_000_001)), outputs=(5,)))
    return Case("input_ids_huge", d, ALERTS, counts=b.counts(executions=1), alerts=1)


@builder
def stack_huge(d: Path) -> Case:
    """An eager NaN whose code location lists 500,000 stack frame ids (~19 MB)."""
    b = base(d, bad=False)
    frames = tuple(b.ref.frames["call"]) * 250_000
    nan = vector(health(5, 4, nan=4))
    append(b.file("execution"), execution("Relu", [nan], outputs=(5,), frames=frames))
    return Case("stack_huge", d, ALERTS, counts=b.counts(executions=1), alerts=1)


# ===================================================================== values and text
@builder
def full_tensor_65_dims(d: Path) -> Case:
    """A FULL_TENSOR trace of 65 dimensions (numpy stops at 64)."""
    b = base(d, bad=False)
    tp = tensor(1, (1,) * 65, float_val=[float("nan")])
    (off,) = append(b.file("graph_execution_traces"), trace("Softmax", tp, mode=7))
    return Case("full_tensor_65_dims", d, frozenset({0, 1}), b.file("graph_execution_traces").name,
                off, b.counts(graph_traces=1), args=("--values",))


@builder
def complex64_odd(d: Path) -> Case:
    """A FULL_TENSOR complex64 tensor given by an odd number of floats."""
    b = base(d, bad=False)
    tp = tensor(8, (2,), scomplex_val=[1.0, 2.0, 3.0])
    (off,) = append(b.file("graph_execution_traces"), trace("Softmax", tp, mode=7))
    return Case("complex64_odd", d, CLEAN, b.file("graph_execution_traces").name, off,
                b.counts(graph_traces=1), alerts=0, args=("--values",))


def _source_bomb(d: Path, line: str) -> Case:
    from support.tui import TRAIN_LINES

    b = base(d, source_lines=[*TRAIN_LINES, line])
    return Case(d.name, d, ALERTS, counts=b.counts(), alerts=b.alerts)


@builder
def source_minus_100k(d: Path) -> Case:
    """The program's source holds a line of 100,000 '-' signs (ast.parse: MemoryError)."""
    return _source_bomb(d, "x = " + "-" * 100_000 + "1")


@builder
def source_plus_200k(d: Path) -> Case:
    """The program's source holds a line of 200,000 '+' terms (ast.parse: RecursionError)."""
    return _source_bomb(d, "x = " + "+".join(["1"] * 200_000))


@builder
def source_parens_deep(d: Path) -> Case:
    """The program's source holds 10,000 nested parentheses."""
    return _source_bomb(d, "x = " + "(" * 10_000 + "1" + ")" * 10_000)


@builder
def eager_math_no_inputs(d: Path) -> Case:
    """Eager Log/Sqrt/Exp/Acos/Div/… with NaN and no recorded inputs."""
    b = base(d, bad=False)
    ops = ["Log", "Sqrt", "Exp", "Acos", "Log1p", "Rsqrt", "RealDiv", "Sub", "Mul", "Pow",
           "Softmax", "MatMul", "Sum", "Mean", "Tanh"]
    append(b.file("execution"),
           *[execution(op, [vector(health(100 + i, 4, nan=4))], outputs=(100 + i,))
             for i, op in enumerate(ops)])
    return Case("eager_math_no_inputs", d, ALERTS, counts=b.counts(executions=len(ops)),
                alerts=len(ops), args=("--limit", "100"))


@builder
def wall_time_nonfinite(d: Path) -> Case:
    """Traces and executions whose wall time is NaN or ±∞ (JSON has no such numbers)."""
    b = base(d, bad=False)
    walls = [float("nan"), float("inf"), float("-inf")]
    append(b.file("graph_execution_traces"),
           *[trace("Log", vector(health(7, 12, ninf=1, neg=11)), graph="g-cross-entropy",
                   wall=w) for w in walls])
    append(b.file("execution"),
           *[execution("Relu", [vector(health(-1, 1, nan=1))], wall=w) for w in walls])
    return Case("wall_time_nonfinite", d, ALERTS, counts=b.counts(graph_traces=3, executions=3),
                alerts=6)


@builder
def unicode_digit_stamp(d: Path) -> Case:
    """A file set named `tfdbg_events.².host.*` ('²'.isdigit() is true, int('²') fails)."""
    b = base(d)
    for suffix in ("metadata", "execution"):
        (d / f"tfdbg_events.\u00b2.host.{suffix}").write_bytes(b.file(suffix).read_bytes())
    return Case("unicode_digit_stamp", d, ALERTS)


@builder
def orphans_40000(d: Path) -> Case:
    """40,000 file sets without metadata (each one `.execution` file of one record)."""
    b = base(d, bad=False)
    blob = frame_record(execution("Relu", [vector(health(1, 1, pos=1))], outputs=(1,)))
    for i in range(40_000):
        with open(d / f"tfdbg_events.{int(T0) + 1 + i}.h{i}.execution", "wb") as f:
            f.write(blob)
    return Case("orphans_40000", d, CLEAN, counts=b.counts(executions=40_000), alerts=0)


# ===================================================================== hangs
def _replace(path: Path, make: Callable[[Path], object]) -> None:
    path.unlink()
    make(path)


@builder
def fifo_execution(d: Path) -> Case:
    """The `.execution` file is a FIFO with no writer (open() would block forever)."""
    b = base(d)
    target = b.file("execution")
    _replace(target, lambda p: os.mkfifo(p))
    return Case("fifo_execution", d, ALERTS, target.name,
                counts={"executions": 0, "graph_traces": b.traces}, alerts=b.alerts - 1)


@builder
def fifo_metadata(d: Path) -> Case:
    """The `.metadata` file is a FIFO."""
    b = base(d)
    target = b.file("metadata")
    _replace(target, lambda p: os.mkfifo(p))
    return Case("fifo_metadata", d, ALERTS, target.name, counts=b.counts(), alerts=b.alerts)


@builder
def device_symlinks(d: Path) -> Case:
    """`.graph_execution_traces` → /dev/zero, `.source_files` → /dev/urandom, `.graphs` a
    directory, `.stack_frames` a dangling symlink."""
    b = base(d)
    traces = b.file("graph_execution_traces")
    _replace(traces, lambda p: p.symlink_to("/dev/zero"))
    _replace(b.file("source_files"), lambda p: p.symlink_to("/dev/urandom"))
    _replace(b.file("graphs"), lambda p: p.mkdir())
    _replace(b.file("stack_frames"), lambda p: p.symlink_to(d / "nowhere"))
    return Case("device_symlinks", d, ALERTS, traces.name,
                counts={"executions": b.executions, "graph_traces": 0}, alerts=1)


# ===================================================================== unbounded reads
@builder
def huge_length_header(d: Path) -> Case:
    """A header with a valid CRC claiming 2**40 bytes in the middle of the traces file."""
    b = base(d)
    path = b.file("graph_execution_traces")
    off = path.stat().st_size
    with open(path, "ab") as f:
        f.write(header(1 << 40))
    append(path, trace("Softmax", vector(health(4, 12, pos=12))))
    return Case("huge_length_header", d, ALERTS, path.name, off, b.counts(), b.alerts)


@builder
def tail_cut_mid_record(d: Path) -> Case:
    """The traces file ends inside a record's payload (a job killed mid-write, a copy cut
    short): the record is not read, and the one-shot report says so (it used to say
    nothing)."""
    b = base(d)
    path = b.file("graph_execution_traces")
    (off,) = append(path, trace("Softmax", vector(health(4, 12, pos=12))))
    with open(path, "r+b") as f:
        f.truncate(off + 12 + 20)
    return Case("tail_cut_mid_record", d, ALERTS, path.name, off, b.counts(), b.alerts)


@builder
def sparse_tail_complete(d: Path) -> Case:
    """A header claiming 1.2 GB, then a sparse (all-zero) payload of that size: a complete
    record whose CRC fails."""
    b = base(d)
    path = b.file("graph_execution_traces")
    off = path.stat().st_size
    n = 1200 << 20
    with open(path, "ab") as f:
        f.write(header(n))
        f.truncate(off + 12 + n + 4)
    return Case("sparse_tail_complete", d, ALERTS, path.name, off, b.counts(), b.alerts)


@builder
def sparse_tail_partial(d: Path) -> Case:
    """A header claiming 1.5 GB followed by 1 GB of sparse zeros (not yet written)."""
    b = base(d)
    path = b.file("graph_execution_traces")
    off = path.stat().st_size
    with open(path, "ab") as f:
        f.write(header(1500 << 20))
        f.truncate(off + 12 + (1 << 30))
    return Case("sparse_tail_partial", d, ALERTS, counts=b.counts(), alerts=b.alerts)


# ===================================================================== silent results
SUFFIXES = ("metadata", "source_files", "stack_frames", "graphs", "execution",
            "graph_execution_traces")


def _six(d: Path, make: Callable[[Path], object]) -> Path:
    d.mkdir(parents=True, exist_ok=True)
    for s in SUFFIXES:
        make(d / f"tfdbg_events.{int(T0)}.host.{s}")
    return d / f"tfdbg_events.{int(T0)}.host.metadata"


@builder
def six_empty(d: Path) -> Case:
    """Six files, all empty."""
    first = _six(d, lambda p: p.write_bytes(b""))
    return Case("six_empty", d, UNREADABLE, first.name)


@builder
def six_fifos(d: Path) -> Case:
    """Six FIFOs named like a file set."""
    first = _six(d, lambda p: os.mkfifo(p))
    return Case("six_fifos", d, UNREADABLE, first.name)


@builder
def six_impossible_lengths(d: Path) -> Case:
    """Six files, each one header (valid CRC) claiming 2**40 bytes."""
    first = _six(d, lambda p: p.write_bytes(header(1 << 40) + b"\0" * 64))
    return Case("six_impossible_lengths", d, UNREADABLE, first.name, 0)


@builder
def wrong_length_vectors(d: Path) -> Case:
    """FULL_HEALTH vectors of 12 and 9 values carrying NaN counts (the mode has 11)."""
    b = base(d, bad=False)
    long = [*health(7, 12, nan=3, neg=9), 0.0]
    short = health(8, 12, nan=3, neg=9)[:9]
    path = b.file("graph_execution_traces")
    off, _ = append(path, trace("Log", vector(long), graph="g-cross-entropy"),
                    trace("mul", vector(short), graph="g-cross-entropy"))
    return Case("wrong_length_vectors", d, frozenset({0, 1}), path.name, off,
                b.counts(graph_traces=2))


@builder
def absurd_health_counts(d: Path) -> Case:
    """Health vectors with counts of 1e300, NaN, −1e300 and ∞ (and such a dtype and rank)."""
    b = base(d, bad=False)
    big = [1e300, 1e300, 1e300, 1e300, 1e300, 1e300, 1e300, 1e300, 1e300, 1e300, 1e300]
    nan = [float("nan")] * 11
    mixed = [7, 1, 1, 2, 12, -1e300, float("inf"), 1e300, -5, float("nan"), 1e19]
    append(b.file("graph_execution_traces"),
           *[trace("Log", vector(v), graph="g-cross-entropy") for v in (big, nan, mixed)])
    append(b.file("execution"), execution("Relu", [vector(big)]),
           execution("Relu", [vector([float("nan"), 1e300, 0, 0, float("nan")])], mode=3))
    return Case("absurd_health_counts", d, ALERTS, counts=b.counts(graph_traces=3, executions=2))
