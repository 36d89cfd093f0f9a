"""Build a big logdir from a real run's records, for the benchmarks.

A small real TensorFlow program (tests/programs/tf_program.py, kind `mixed`, FULL_HEALTH) is
recorded once; its `.execution` and `.graph_execution_traces` records are then replicated,
with wall times shifted so that every replica is later than the previous one, until the
logdir holds the asked-for numbers of executions and graph traces. The structure files
(graphs, stack frames, source files, metadata) are the real ones, so every replicated record
resolves exactly as in the real run.
"""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
import sys
import time
from pathlib import Path

from reader.io.tfrecord import ScanState, frame_record, scan_records
from reader.proto import tfdbg_events_pb2 as pb

ROOT = Path(__file__).resolve().parent.parent


def record_template(dest: Path, kind: str = "mixed", mode: str = "FULL_HEALTH") -> Path:
    """Run the real TF program once into `dest` (skipped if already there)."""
    if any(dest.glob("*.metadata")):
        return dest
    dest.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
    env["PYTHONPATH"] = str(ROOT)
    subprocess.run([sys.executable, str(ROOT / "tests/programs/tf_program.py"), str(dest),
                    mode, kind], check=True, env=env, capture_output=True)
    return dest


def _payloads(path: Path) -> list[bytes]:
    data = path.read_bytes()
    return [bytes(payload) for _, payload in scan_records(data, 0, ScanState())]


def _replicate(src: Path, dst: Path, target: int) -> int:
    """Write `target` records: the real run's records again and again, each replica's wall
    times shifted past the previous one's. TensorFlow writes the wall time first (field 1, a
    fixed64), so the shift patches those 8 bytes of the real record and frames it again; a
    record laid out otherwise is re-serialized with the shifted time."""
    payloads = _payloads(src)
    if not payloads:
        dst.write_bytes(b"")
        return 0
    events = [pb.DebugEvent.FromString(p) for p in payloads]
    span = (events[-1].wall_time - events[0].wall_time) + 1e-3
    pack_double = struct.Struct("<d").pack
    written = 0
    replica = 0
    with open(dst, "wb", buffering=8 << 20) as f:
        while written < target:
            shift = replica * span
            batch = []
            for payload, ev in zip(payloads, events, strict=True):
                if written >= target:
                    break
                if payload[0] == 0x09 and ev.wall_time == struct.unpack_from("<d", payload, 1)[0]:
                    new = b"\x09" + pack_double(ev.wall_time + shift) + payload[9:]
                else:
                    copy = pb.DebugEvent()
                    copy.CopyFrom(ev)
                    copy.wall_time = ev.wall_time + shift
                    new = copy.SerializeToString()
                batch.append(frame_record(new))
                written += 1
            f.write(b"".join(batch))
            replica += 1
    return written


def build_big_logdir(dest: Path, traces: int, executions: int, work: Path) -> Path:
    """A logdir with exactly `traces` graph traces and `executions` executions."""
    marker = dest / f".complete-v2-{traces}-{executions}"
    if marker.exists():
        return dest
    template = record_template(work / "template")
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    t0 = time.perf_counter()
    for f in template.iterdir():
        if f.suffix in (".execution", ".graph_execution_traces"):
            continue
        shutil.copy(f, dest / f.name)
    (src_traces,) = template.glob("*.graph_execution_traces")
    (src_exec,) = template.glob("*.execution")
    _replicate(src_traces, dest / src_traces.name, traces)
    _replicate(src_exec, dest / src_exec.name, executions)
    marker.write_text(f"built in {time.perf_counter() - t0:.1f}s\n")
    return dest


if __name__ == "__main__":
    out = build_big_logdir(Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]),
                           Path(sys.argv[1]).parent / "work")
    print(out)
