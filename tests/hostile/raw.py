"""The building blocks of the hostile corpus: the `Case` record, raw records, the intact base.

The intact part of every item is the deterministic reference logdir of `support.tui`,
written by the TF-free writer; the attacks are raw bytes: serialized protos framed with
`frame_record`, or headers made by hand. See `hostile.corpus` for the items themselves.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from support.tui import RefLogdir, add_step, start_reference

from reader.io.tfrecord import frame_record, masked_crc32c
from reader.proto import tfdbg_events_pb2 as pb

T0 = 1_700_000_000.0
ESC_2J = "\x1b[2J"
OSC_52 = "\x1b]52;c;cHduZWQ=\x07"  # "write 'pwned' to the clipboard"
# Characters that draw nothing (or a blank) and must never reach a terminal raw.
INVISIBLE_SAMPLE = ("\u061c", "\U000e0001", "\U000e0041", "\U000e007f", "\u180e", "\u034f",
                    "\u3164", "\u115f", "\u1160", "\uffa0", "\u2800", "\u17b4", "\u17b5",
                    "\ufe0f", "\U000e0100", "\u2066", "\u202e", "\u200b", "\ufff9",
                    "\U0001d173")


@dataclass
class Case:
    """One hostile logdir and what `report` must make of it.

    - `statuses`: the exit statuses `report` may end with (0 clean, 1 alerts, 2 unreadable).
    - `damaged`: the name of the file (or directory) a warning or error line must name;
      `offset`: the byte offset that same line must name.
    - `counts`: exact values of the `--json` "counts" entries that must hold (the intact
      records); `alerts`: the exact alert total, when known.
    - `args`: extra arguments for `report` (e.g. `--values`, `--run ID`).
    - `peak_mb`: in-process bound on the memory Python allocates while opening the logdir
      (tracemalloc), for the amplification cases; None: not measured.
    """

    name: str
    logdir: Path
    statuses: frozenset[int]
    damaged: str | None = None
    offset: int | None = None
    counts: dict[str, int] = field(default_factory=dict)
    alerts: int | None = None
    args: tuple[str, ...] = ()
    peak_mb: float | None = None
    address_space_mb: int = 2048


Builder = Callable[[Path], Case]
BUILDERS: dict[str, Builder] = {}


def builder(fn: Builder) -> Builder:
    BUILDERS[fn.__name__] = fn
    return fn


# --------------------------------------------------------------------- raw bytes
def event(**kw: object) -> bytes:
    """A serialized DebugEvent (wall time T0 unless given)."""
    kw.setdefault("wall_time", T0)
    return pb.DebugEvent(**kw).SerializeToString()  # type: ignore[arg-type]


def append(path: Path, *payloads: bytes) -> list[int]:
    """Frame and append payloads to `path`; returns each record's byte offset."""
    offsets = []
    with open(path, "ab") as f:
        for p in payloads:
            offsets.append(f.tell())
            f.write(frame_record(p))
    return offsets


def header(length: int) -> bytes:
    """A TFRecord header claiming `length` bytes, with a valid length CRC."""
    raw = struct.pack("<Q", length)
    return raw + struct.pack("<I", masked_crc32c(raw))


def tensor(dtype: int, shape: tuple[int, ...], **values: object) -> pb.TensorProto:
    tp = pb.TensorProto(dtype=dtype, **values)  # type: ignore[arg-type]
    for d in shape:
        tp.tensor_shape.dim.add(size=d)
    return tp


def vector(values: list[float]) -> pb.TensorProto:
    """A float64 debug vector as TensorFlow stores it (tensor_content)."""
    return tensor(2, (len(values),), tensor_content=struct.pack(f"<{len(values)}d", *values))


def trace(op_name: str, proto: pb.TensorProto | None, mode: int = 4, graph: str = "g-train-step",
          slot: int = 0, wall: float = T0) -> bytes:
    g = pb.GraphExecutionTrace(tfdbg_context_id=graph, op_name=op_name, output_slot=slot,
                               tensor_debug_mode=mode, device_name="/cpu:0")
    if proto is not None:
        g.tensor_proto.CopyFrom(proto)
    return event(wall_time=wall, graph_execution_trace=g)


def execution(op_type: str, protos: list[pb.TensorProto], mode: int = 4, *,
              inputs: tuple[int, ...] = (), outputs: tuple[int, ...] = (),
              num_outputs: int | None = None, frames: tuple[str, ...] = (),
              wall: float = T0) -> bytes:
    e = pb.Execution(op_type=op_type, tensor_debug_mode=mode,
                     num_outputs=len(protos) if num_outputs is None else num_outputs,
                     input_tensor_ids=list(inputs), output_tensor_ids=list(outputs))
    e.tensor_protos.extend(protos)
    e.code_location.host_name = "host"
    e.code_location.stack_frame_ids.extend(frames)
    return event(wall_time=wall, execution=e)


def op_creation(graph: str, op_type: str, op_name: str, inputs: tuple[str, ...] = (),
                frames: tuple[str, ...] = (), tids: tuple[int, ...] = ()) -> bytes:
    oc = pb.GraphOpCreation(op_type=op_type, op_name=op_name, graph_id=graph,
                            input_names=list(inputs), num_outputs=1,
                            output_tensor_ids=list(tids))
    oc.code_location.host_name = "host"
    oc.code_location.stack_frame_ids.extend(frames)
    return event(graph_op_creation=oc)


# --------------------------------------------------------------------- the intact part
@dataclass
class Base:
    """The reference-like logdir every attack is added to: its files and what it holds."""

    dir: Path
    ref: RefLogdir
    executions: int
    traces: int
    alerts: int

    def file(self, suffix: str) -> Path:
        (path,) = self.dir.glob(f"*.{suffix}")
        return path

    def counts(self, **extra: int) -> dict[str, int]:
        out = {"executions": self.executions, "graph_traces": self.traces}
        for k, v in extra.items():
            out[k] = out.get(k, 0) + v
        return out


def base(d: Path, *, bad: bool = True, source_lines: list[str] | None = None,
         op_prefix: str = "") -> Base:
    """Two steps of the reference program (the second one with −∞/NaN when `bad`)."""
    ref = start_reference(d, source_lines=source_lines, op_prefix=op_prefix)
    add_step(ref, 0, bad=False, op_prefix=op_prefix)
    add_step(ref, 1, bad=bad, op_prefix=op_prefix)
    ref.writer.close()
    # a bad step has three bad traces (Log, mul, Sum; see support.tui) and a bad call
    alerts = 3 + 1 if bad else 0
    return Base(d, ref, ref.writer.num_executions, ref.writer.num_graph_traces, alerts)


ALERTS = frozenset({1})
CLEAN = frozenset({0})
UNREADABLE = frozenset({2})


def _varint(value: int) -> bytes:
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)
