"""The compiled core and the pure-Python loops build the same index, on every test logdir.

The compiled core (`reader._native`) indexes the records it can decode exactly and hands every
other one back to the pure-Python loops, so the two must agree on every column, alert,
warning and count — on real logdirs, damaged ones, grown ones, and ones whose records use
legal but unusual protobuf layouts (which is where a hand-written parser could go wrong).
The same holds for health read back from the records (the compiled bulk read against the
Python one): the snapshots read every row's. And for the health kept while indexing (what an
export takes instead of reading it back, `DebugLogdir.health_sink`): on every read below, each
way, it is the health read back, row by row, column by column.
"""

from __future__ import annotations

import random
import shutil
import struct
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from scale_support import assert_same, snapshot

import reader.index.detail as detail
import reader.index.ingest as ingest
from reader import DebugLogdir, open_logdir
from reader.index import health as H
from reader.index.batches import VECTOR_RULES
from reader.io.tfrecord import ScanState, frame_record, scan_records
from reader.modes import VECTOR_LEN
from reader.proto import tfdbg_events_pb2 as pb

LOGDIRS = [("mixed", m) for m in ("NO_TENSOR", "CURT_HEALTH", "CONCISE_HEALTH", "FULL_HEALTH",
                                  "SHAPE", "FULL_TENSOR")]
LOGDIRS += [(k, "FULL_HEALTH") for k in ("eager", "function", "nested", "keras", "mlp",
                                          "nan_graph")]


def both_ways(monkeypatch: pytest.MonkeyPatch, read: Callable[[], DebugLogdir]
              ) -> tuple[dict[str, Any], dict[str, Any]]:
    """(compiled, pure Python) snapshots of the same read. The snapshot reads every row's
    health back from the records: compiled, in bulk (whatever the row count), or in Python;
    the health kept on the way is checked against it (`assert_kept_is_read_back`)."""
    assert ingest.NATIVE is not None
    with monkeypatch.context() as m:
        m.setattr(detail, "BULK_ROWS", 1)
        kept = keep_health(m)
        logdir = read()
        compiled = snapshot(logdir)
        assert_kept_is_read_back(logdir, kept)
    with monkeypatch.context() as m:
        m.setattr(ingest, "NATIVE", None)
        m.setattr(detail, "native", None)
        kept = keep_health(m)
        logdir = read()
        pure = snapshot(logdir)
        assert_kept_is_read_back(logdir, kept)
    return compiled, pure


Kept = list[tuple[DebugLogdir, str, int, tuple[np.ndarray, ...], Callable[[], Any]]]


def keep_health(m: pytest.MonkeyPatch) -> Kept:
    """Every index made under `m` gets a health sink recording what it is told."""
    told: Kept = []
    made = DebugLogdir.__init__

    def init(self: DebugLogdir, *args: Any, **kwargs: Any) -> None:
        made(self, *args, **kwargs)
        self.health_sink = lambda *batch: told.append((self, *batch))

    m.setattr(DebugLogdir, "__init__", init)
    return told


def assert_kept_is_read_back(logdir: DebugLogdir, told: Kept) -> None:
    """The batches told to `logdir`'s sink cover each tensor table row after row, point at
    the records the rows point at, and their health is the one read back from those."""
    for name in ("traces", "outputs"):
        table = getattr(logdir, name)
        batches = sorted((first, where, make) for lg, table_name, first, where, make in told
                         if lg is logdir and table_name == name)
        ends = np.cumsum([0] + [len(b[1][0]) for b in batches])
        assert [b[0] for b in batches] == ends[:-1].tolist()  # row after row
        assert ends[-1] == len(table)
        if not len(table):
            continue
        rows = np.arange(len(table))
        kept = {c: np.concatenate([make()[c] for _, _, make in batches])
                for c in H.HEALTH_COLUMNS}
        back = table.health_columns(rows)
        for c in H.HEALTH_COLUMNS:
            np.testing.assert_array_equal(kept[c], back[c], err_msg=f"{name}.{c}")
        where = np.concatenate([b[1][1] for b in batches])
        now = table.col("offset") if name == "traces" else \
            logdir.executions.col("offset")[table.col("execution")]
        np.testing.assert_array_equal(where, now, err_msg=f"{name} offsets")


def one(d: Path, suffix: str) -> Path:
    (path,) = d.glob(f"*.{suffix}")
    return path


def records(path: Path) -> list[bytes]:
    return [bytes(p) for _, p in scan_records(path.read_bytes(), 0, ScanState())]


def test_compiled_core_is_built() -> None:
    """`make install` builds it wherever a C compiler is present (as on CI)."""
    if shutil.which("cc") is None and shutil.which("gcc") is None:
        pytest.skip("no C compiler: the pure-Python reader is the only one")
    assert ingest.NATIVE is not None, "reader/_native/_ingest.c was not built (make install)"


@pytest.fixture(autouse=True)
def _needs_native() -> None:
    if ingest.NATIVE is None:
        pytest.skip("compiled core not built or disabled")


@pytest.mark.parametrize(("kind", "mode"), LOGDIRS)
def test_same_index_on_real_logdirs(make_tf_logdir: Callable[..., str],
                                    monkeypatch: pytest.MonkeyPatch, kind: str, mode: str) -> None:
    src = make_tf_logdir(kind, mode)
    compiled, pure = both_ways(monkeypatch, lambda: open_logdir(src))
    assert len(compiled["traces.offset"]) + len(compiled["executions.offset"]) > 0
    assert_same(compiled, pure)


def test_compiled_core_really_indexes(make_tf_logdir: Callable[..., str],
                                      tmp_path: Path) -> None:
    """C takes every record of a run but the first of each kind (whose strings are new)."""
    d = tmp_path / "ld"
    shutil.copytree(make_tf_logdir("mixed", "FULL_HEALTH"), d)
    for suffix in ("graph_execution_traces", "execution"):
        path = one(d, suffix)
        path.write_bytes(path.read_bytes() * 20)  # the run's records, twenty times over
    logdir = open_logdir(str(d))
    handed_back = logdir.ingest_cache.native_declined
    assert 0 < handed_back < (len(logdir.traces) + len(logdir.executions)) / 20


def test_same_index_when_growing(make_tf_logdir: Callable[..., str], tmp_path: Path,
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Files appended in pieces cut at arbitrary bytes (mid-record too), read by `update()`."""
    src = Path(make_tf_logdir("mixed", "FULL_HEALTH"))
    rng = random.Random(13)
    full = {s: one(src, s).read_bytes() for s in ("graph_execution_traces", "execution")}
    cuts = {s: [*sorted(rng.sample(range(1, len(b)), 6)), len(b)] for s, b in full.items()}

    def grow() -> DebugLogdir:
        d = tmp_path / f"grow{rng.random()}"
        shutil.copytree(src, d)
        for s in full:
            one(d, s).write_bytes(b"")
        logdir = open_logdir(str(d))
        for step in range(7):
            for s, blob in full.items():
                one(d, s).write_bytes(blob[: cuts[s][step]])
            logdir.update()
        return logdir

    compiled, pure = both_ways(monkeypatch, grow)
    assert len(compiled["traces.offset"]) == len(records(one(src, "graph_execution_traces")))
    assert_same(compiled, pure)


def _damage(blob: bytes, offsets: list[int], how: str, rng: random.Random) -> bytes:
    b = bytearray(blob)
    if how == "payload_crc":  # one wall-time bit in every 5th record: it still parses
        for off in offsets[::5]:
            b[off + 12 + 3] ^= 0x40
    elif how == "length_crc":
        b[offsets[len(offsets) // 2] + 9] ^= 1
    elif how == "truncated":
        b = b[: offsets[-1] + 20]
    elif how == "random":
        for _ in range(40):
            b[rng.randrange(len(b))] = rng.randrange(256)
    return bytes(b)


@pytest.mark.parametrize("suffix", ["graph_execution_traces", "execution"])
@pytest.mark.parametrize("how", ["payload_crc", "length_crc", "truncated", "random"])
def test_same_index_on_damaged_files(make_tf_logdir: Callable[..., str], tmp_path: Path,
                                     monkeypatch: pytest.MonkeyPatch, suffix: str,
                                     how: str) -> None:
    src = make_tf_logdir("mixed", "FULL_HEALTH")
    d = tmp_path / "ld"
    shutil.copytree(src, d)
    target = one(d, suffix)
    blob = target.read_bytes()
    offsets = [off for off, _ in scan_records(blob, 0, ScanState())]
    target.write_bytes(_damage(blob, offsets, how, random.Random(how)))
    compiled, pure = both_ways(monkeypatch, lambda: open_logdir(str(d)))
    assert_same(compiled, pure)


@pytest.mark.parametrize("suffix", ["graph_execution_traces", "execution"])
@pytest.mark.parametrize("seed", range(6))
def test_same_index_on_mutated_payloads(make_tf_logdir: Callable[..., str], tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch, suffix: str,
                                        seed: int) -> None:
    """Payload bytes changed and framed again with valid CRCs: only the parsers decide."""
    src = make_tf_logdir("mixed", "FULL_HEALTH")
    d = tmp_path / "ld"
    shutil.copytree(src, d)
    target = one(d, suffix)
    rng = random.Random(seed)
    out = []
    for payload in records(target):
        p = bytearray(payload)
        if p and rng.random() < 0.3:
            for _ in range(rng.randint(1, 3)):
                p[rng.randrange(len(p))] = rng.choice((0, 1, 0x7F, 0x80, 0xFF, rng.randrange(256)))
        out.append(frame_record(bytes(p)))
    target.write_bytes(b"".join(out))
    compiled, pure = both_ways(monkeypatch, lambda: open_logdir(str(d)))
    assert_same(compiled, pure)


# ---------------------------------------------------------------- legal but unusual layouts

def _varint(v: int) -> bytes:
    v &= (1 << 64) - 1
    out = bytearray()
    while True:
        byte = v & 0x7F
        v >>= 7
        if v:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _long_varint(v: int) -> bytes:
    """`v` (< 128) as a legal five-byte varint."""
    return bytes([0x80 | v, 0x80, 0x80, 0x80, 0x00])


def _len(field: int, data: bytes) -> bytes:
    return _varint(field << 3 | 2) + _varint(len(data)) + data


def _int(field: int, v: int) -> bytes:
    return _varint(field << 3) + _varint(v)


def _double(field: int, v: float) -> bytes:
    return _varint(field << 3 | 1) + struct.pack("<d", v)


def _trace_variants(ev: pb.DebugEvent) -> list[bytes]:
    """Encodings of one trace the protobuf format allows but TensorFlow does not write."""
    t = ev.graph_execution_trace
    ctx, op = t.tfdbg_context_id.encode(), t.op_name.encode()
    dev, tp = t.device_name.encode(), t.tensor_proto.SerializeToString()
    parts = [_len(1, ctx), _len(2, op), _int(3, t.output_slot), _int(4, t.tensor_debug_mode),
             _len(5, tp), _len(6, dev)]
    head = _double(1, ev.wall_time)

    def event(body: list[bytes], *extra: bytes) -> bytes:
        return head + b"".join(extra) + _len(10, b"".join(body))

    content = t.tensor_proto.tensor_content
    vector = np.frombuffer(content[: len(content) // 8 * 8], dtype="<f8")
    as_doubles = pb.TensorProto(dtype=2, tensor_shape=t.tensor_proto.tensor_shape,
                                double_val=list(vector)).SerializeToString()
    return [
        event(parts[::-1]),  # fields in reverse order
        event([_len(2, b"decoy"), *parts]),  # a repeated string field: the last one wins
        event([*parts[:2], _int(3, -1 & 0xFFFFFFFF), *parts[3:]]),  # slot as a 5-byte varint
        event([*parts[:2], _varint(3 << 3) + _varint(-1), *parts[3:]]),  # negative: 10 bytes
        event([*parts[:4], _len(5, as_doubles), parts[5]]),  # summary in double_val
        event(parts, _int(2, 7)),  # a step number
        event(parts) + _int(15, 3),  # an unknown field after the trace
        _len(10, b"".join(parts)),  # no wall time
        event([*parts[:5], _len(6, b"\xff\xfe")]),  # a device name that is not UTF-8
        event([*parts, _len(6, dev)]),  # the device twice
        event([*parts[:4], _len(5, b""), parts[5]]),  # an empty tensor
        event([parts[0], _varint(2 << 3 | 2) + _long_varint(len(op)) + op, *parts[2:]]),
        event(parts)[:-1] + b"\x00",  # last byte changed
        event([*parts, _len(7, b"")]),  # an unknown field inside the trace
    ]


def _execution_variants(ev: pb.DebugEvent) -> list[bytes]:
    e = ev.execution
    ids = b"".join(_varint(i) for i in e.output_tensor_ids)
    protos = [_len(7, p.SerializeToString()) for p in e.tensor_protos]
    base = [_len(1, e.op_type.encode()), _int(2, e.num_outputs)]
    if e.graph_id:
        base.append(_len(3, e.graph_id.encode()))
    rest = [_int(6, e.tensor_debug_mode), *protos,
            _len(8, e.code_location.SerializeToString())]
    head = _double(1, ev.wall_time)

    def event(body: list[bytes]) -> bytes:
        return head + _len(9, b"".join(body))

    return [
        event([*base, _len(5, ids), *rest]),  # as TensorFlow writes it (re-encoded)
        event([*base, *(_int(5, i) for i in e.output_tensor_ids), *rest]),  # unpacked ids
        event([*base, _len(5, ids), _len(5, ids), *rest]),  # the ids twice
        event([*rest, *base, _len(5, ids)]),  # fields out of order
        event([*base, _len(5, ids), _int(6, e.tensor_debug_mode), _int(2, 5000), *rest[1:]]),
        event([_len(1, b"NewOp"), *base[1:], _len(5, ids), *rest]),  # a new op type
        event([*base[:2], _len(3, b"__inference_new_7"), _len(5, ids), *rest]),  # new graph
        event([_len(1, b"\xc3\x28"), *base[1:], _len(5, ids), *rest]),  # op type not UTF-8
        event([*base, _len(5, ids), *rest, _len(4, _varint(3)), _int(9, 1)]),
        event([*base, _len(5, ids + b"\xff"), *rest]),  # a broken packed varint
        event([*base, _len(5, ids), _int(6, e.tensor_debug_mode), _len(7, b"\x08\x02"),
               *rest[1:]]),  # a short tensor
    ]


@pytest.mark.parametrize("mode", ["FULL_HEALTH", "CURT_HEALTH", "NO_TENSOR", "FULL_TENSOR"])
def test_same_index_on_unusual_layouts(make_tf_logdir: Callable[..., str], tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch, mode: str) -> None:
    """Each real record is followed by its unusual encodings, then by itself again."""
    src = make_tf_logdir("mixed", mode)
    d = tmp_path / "ld"
    shutil.copytree(src, d)
    for suffix, variants in (("graph_execution_traces", _trace_variants),
                             ("execution", _execution_variants)):
        target = one(d, suffix)
        out = []
        for payload in records(target)[:60]:
            ev = pb.DebugEvent.FromString(payload)
            out.append(frame_record(payload))
            out.extend(frame_record(v) for v in variants(ev))
            out.append(frame_record(payload))
        target.write_bytes(b"".join(out))
    compiled, pure = both_ways(monkeypatch, lambda: open_logdir(str(d)))
    assert len(compiled["traces.offset"]) > 60
    assert_same(compiled, pure)


@pytest.mark.parametrize("mode", sorted(VECTOR_RULES))
def test_compiled_health_of_a_summary_is_numpys(mode: int) -> None:
    """`bad` and the tensor id the compiled core derives from a summary vector are what
    `health.fill_from_vectors` makes of it, for ordinary and hostile values."""
    assert ingest.NATIVE is not None
    rng = np.random.default_rng(mode)
    width = VECTOR_LEN[mode]
    specials = np.array([0.0, -0.0, 1.0, -1.0, 2.5, np.nan, np.inf, -np.inf, 1e300, -1e300,
                         2.0**63, 5e-324, 3.0, 1e18])
    vecs = np.concatenate([rng.choice(specials, size=(4000, width)),
                           rng.integers(-3, 1000, size=(1000, width)).astype(np.float64)])
    h = H.empty_health(len(vecs))
    with np.errstate(all="raise"):  # impossible counts are checked, never cast
        H.fill_from_vectors(h, np.arange(len(vecs)), mode, vecs)
    for i, vec in enumerate(vecs):
        got = ingest.NATIVE.vector_health(mode, vec.tobytes())
        if got is None:  # C declines: Python decides (and warns), for insane summaries only
            assert not H.sane(mode, vec[None, :])[0], vec
            continue
        assert H.sane(mode, vec[None, :])[0] or mode not in H.LIMITS, vec
        assert got == (int(h["bad"][i]), int(h["tensor_id"][i])), vec


def test_compiled_crc32c_is_the_crc32c_packages() -> None:
    """The reader's CRC-32C is the compiled core's when built (`reader.io.tfrecord`): it must
    be the `crc32c` package's, continuation included, at every length and alignment."""
    crc32c = pytest.importorskip("crc32c")
    assert ingest.NATIVE is not None
    rng = random.Random(7)
    blob = rng.randbytes(70_000)
    for _ in range(400):
        start = rng.randrange(64)
        a = blob[start:start + rng.choice([0, 1, 7, 8, 9, 63, rng.randrange(70_000)])]
        b = blob[: rng.randrange(300)]
        prior = rng.randrange(1 << 32)
        assert ingest.NATIVE.crc32c(a) == crc32c.crc32c(a)
        assert ingest.NATIVE.crc32c(b, prior) == crc32c.crc32c(b, prior)
        assert ingest.NATIVE.crc32c(b, ingest.NATIVE.crc32c(a)) == crc32c.crc32c(a + b)
