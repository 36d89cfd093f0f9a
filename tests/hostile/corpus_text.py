"""Corpus items that attack the output and the structure: escape sequences and invisible
characters in names, giant strings, cyclic and deep graphs, undecodable records."""

from __future__ import annotations

from pathlib import Path

from hostile.raw import (
    ALERTS,
    CLEAN,
    ESC_2J,
    INVISIBLE_SAMPLE,
    OSC_52,
    T0,
    UNREADABLE,
    Case,
    _varint,
    append,
    base,
    builder,
    event,
    execution,
    op_creation,
    trace,
    vector,
)
from support.tui import health

from reader.io.tfrecord import frame_record
from reader.proto import tfdbg_events_pb2 as pb


# ===================================================================== text
@builder
def run_ids_escape(d: Path) -> Case:
    """Two runs whose ids hold OSC 52 and ESC[2J; `--run` names neither."""
    from dumper.writer import LogdirWriter

    for i, rid in enumerate((OSC_52 + "run-a", ESC_2J + "run-b\nsecond line")):
        with LogdirWriter(d, run_id=rid, hostname="host", file_timestamp=int(T0) + i) as w:
            w.add_execution("Relu", "FULL_HEALTH", [health(1, 1, pos=1)], wall_time=T0 + i)
    return Case("run_ids_escape", d, UNREADABLE, args=("--run", "nope\x1b[31m"))


@builder
def newline_file_name(d: Path) -> Case:
    """A file set whose host part holds a newline, an ESC and U+202E, with a damaged record."""
    b = base(d)
    host = "evil\nwarning: all good\x1b[2J\u202e"
    path = d / f"tfdbg_events.{int(T0) + 9}.{host}.execution"
    path.write_bytes(frame_record(b"\x08\x96\x01"))
    data = bytearray(path.read_bytes())
    data[14] ^= 0xFF  # the payload: its CRC fails
    path.write_bytes(bytes(data))
    return Case("newline_file_name", d, ALERTS, "warning: all good", 0, b.counts(), b.alerts)


@builder
def invisible_names(d: Path) -> Case:
    """Op names, a graph name, source lines and a host full of invisible characters."""
    from support.tui import TRAIN_LINES

    prefix = "".join(INVISIBLE_SAMPLE) + ESC_2J + OSC_52
    lines = list(TRAIN_LINES)
    lines[5] += "  # " + prefix
    b = base(d, source_lines=lines, op_prefix=prefix)
    return Case("invisible_names", d, ALERTS, counts=b.counts(), alerts=b.alerts)


@builder
def source_line_8mb(d: Path) -> Case:
    """The alert's user line (train.py:6) is 8 MB long."""
    from support.tui import TRAIN_LINES

    lines = list(TRAIN_LINES)
    lines[5] += "  # " + "x" * (8 << 20)
    b = base(d, source_lines=lines)
    return Case("source_line_8mb", d, ALERTS, counts=b.counts(), alerts=b.alerts)


@builder
def op_name_100mb(d: Path) -> Case:
    """A bad trace of an op whose name is 100 MB long."""
    b = base(d, bad=False)
    name = "n" * (100 << 20)
    append(b.file("graphs"), op_creation("g-train-step", "Relu", name))
    append(b.file("graph_execution_traces"), trace(name, vector(health(3, 1, nan=1))))
    return Case("op_name_100mb", d, ALERTS, counts=b.counts(graph_traces=1), alerts=1,
                args=("--limit", "1"))


@builder
def logdir_name_escape(d: Path) -> Case:
    """The logdir's own name holds ESC[2J, OSC 52 and a newline; one file is damaged."""
    inner = d / ("ld" + ESC_2J + OSC_52 + "\nwarning: fine")
    b = base(inner)
    path = b.file("execution")
    data = bytearray(path.read_bytes())
    data[20] ^= 0xFF  # inside the payload of the first record
    path.write_bytes(bytes(data))
    return Case("logdir_name_escape", inner, ALERTS, path.name, 0,
                {"executions": b.executions - 1, "graph_traces": b.traces})


# ===================================================================== structure
@builder
def graph_cycles(d: Path) -> Case:
    """Ops whose inputs form a cycle, graphs nested in each other, odd slots, all bad."""
    b = base(d, bad=False)
    g = b.file("graphs")
    append(g, event(debugged_graph=pb.DebuggedGraph(graph_id="c1", graph_name="c1",
                                                     outer_context_id="c2")),
           event(debugged_graph=pb.DebuggedGraph(graph_id="c2", graph_name="c2",
                                                  outer_context_id="c1")),
           event(debugged_graph=pb.DebuggedGraph(graph_id="c3", graph_name="while_body_3",
                                                  outer_context_id="c3")),
           op_creation("c1", "Log", "A", ("B:0", "C:99999999999999999999", "^D", ":", "x:-1")),
           op_creation("c1", "Placeholder", "B", ("A:0",)),
           op_creation("c2", "While", "C", ("A:0", "C:0")),
           op_creation("c3", "Placeholder", "A", ("A:0",)),
           op_creation("c3", "Identity", "I", ("I:0",)))
    bad = vector(health(1, 2, nan=2))
    append(b.file("graph_execution_traces"),
           trace("A", bad, graph="c1"), trace("B", bad, graph="c1"),
           trace("C", bad, graph="c2", slot=2**31 - 1), trace("A", bad, graph="c3", slot=-7),
           trace("I", bad, graph="c3"))
    return Case("graph_cycles", d, ALERTS, counts=b.counts(graph_traces=5), alerts=5)


@builder
def deep_graph_nesting(d: Path) -> Case:
    """5,000 graphs each nested in the previous one; a NaN in the innermost."""
    b = base(d, bad=False)
    recs = [event(debugged_graph=pb.DebuggedGraph(
        graph_id=f"n{i}", graph_name=f"f{i}", outer_context_id=f"n{i - 1}" if i else ""))
        for i in range(5000)]
    recs.append(op_creation("n4999", "Placeholder", "p"))
    recs.append(op_creation("n4999", "Log", "l", ("p:0",)))
    append(b.file("graphs"), *recs)
    append(b.file("graph_execution_traces"), trace("l", vector(health(2, 1, nan=1)),
                                                   graph="n4999"))
    return Case("deep_graph_nesting", d, ALERTS, counts=b.counts(graph_traces=1), alerts=1)


@builder
def invalid_utf8(d: Path) -> Case:
    """Records whose strings are not UTF-8 (proto3 strings must be)."""
    b = base(d)
    e = pb.Execution(op_type="X", tensor_debug_mode=4)
    raw = bytearray(event(execution=e))
    raw[raw.index(b"X")] = 0xFF
    path = b.file("execution")
    (off,) = append(path, bytes(raw))
    return Case("invalid_utf8", d, ALERTS, path.name, off, b.counts(), b.alerts)


@builder
def nested_unknown_fields(d: Path) -> Case:
    """A record nesting 100,000 levels of unknown length-delimited fields."""
    b = base(d)
    payload = b""
    for _ in range(3000):
        payload = b"\x7a" + _varint(len(payload)) + payload  # field 15, length-delimited
    groups = b"\x7b" * 100_000 + b"\x7c" * 100_000  # field 15 start/end group
    path = b.file("execution")
    off, _off2 = append(path, payload, groups)
    return Case("nested_unknown_fields", d, ALERTS, path.name, off, b.counts(), b.alerts)


@builder
def bad_frames(d: Path) -> Case:
    """Stack frames pointing at file −5, file 2**31−1, line −1 and line 2**31−1."""
    b = base(d, bad=False)
    ids = []
    recs = []
    for k, (fi, line) in enumerate(((-5, 1), (2**31 - 1, 3), (0, -1), (0, 2**31 - 1))):
        fid = f"bad-frame-{k}"
        ids.append(fid)
        recs.append(event(stack_frame_with_id=pb.StackFrameWithId(
            id=fid, file_line_col=pb.FileLineCol(file_index=fi, line=line, func="f\x1b[2J"))))
    append(b.file("stack_frames"), *recs)
    append(b.file("execution"),
           *[execution("Relu", [vector(health(9, 1, nan=1))], frames=(fid,)) for fid in ids])
    return Case("bad_frames", d, ALERTS, counts=b.counts(executions=4), alerts=4)


@builder
def shape_mode_absurd(d: Path) -> Case:
    """SHAPE vectors claiming rank 1e300 and dims of 2**62."""
    b = base(d, bad=False)
    path = b.file("graph_execution_traces")
    big = float(1 << 62)
    append(path, trace("Softmax", vector([4, 1, 1e300, 1e300, big, big, big, big, big, big]),
                       mode=5),
           trace("Softmax", vector([4, 1, -3, float("nan"), -1, 0, 0, 0, 0, 0]), mode=5))
    return Case("shape_mode_absurd", d, CLEAN, counts=b.counts(graph_traces=2), alerts=0)


@builder
def wrong_record_kinds(d: Path) -> Case:
    """Traces in the execution file, an execution in the traces file, metadata in graphs."""
    b = base(d)
    path = b.file("execution")
    (off,) = append(path, trace("Log", vector(health(7, 12, nan=1)), graph="g-cross-entropy"))
    append(b.file("graph_execution_traces"), execution("Relu", [vector(health(1, 1, nan=1))]))
    append(b.file("graphs"), event(debug_metadata=pb.DebugMetadata(tfdbg_run_id="x")))
    return Case("wrong_record_kinds", d, ALERTS, path.name, off, b.counts(), b.alerts)
