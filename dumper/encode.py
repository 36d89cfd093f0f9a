"""Hand encoding of the writer's two hot records: executions and graph traces.

Protobuf object construction would dominate the cost of synthesizing a million traces, so
these bytes are put together directly, with field order and encodings exactly as protobuf's
own serializer emits them (a test parses them back with the generated classes, and
TensorFlow's reader loads them). Field numbers are those of `reader/proto/tfdbg_events.proto`.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from dumper.tensors import (
    VECTOR_MODES,
    _len_field,
    _varint,
    encode_shape,
    encode_tensor_proto,
    vector_proto_header,
)
from reader.io.tfrecord import masked_crc32c
from reader.modes import NO_TENSOR

PACK_D = struct.Struct("<d").pack
_PACK_I = struct.Struct("<I").pack
# NO_TENSOR graph traces carry an empty float32 vector, shape [0], as TensorFlow writes.
NO_TENSOR_PROTO = b"\x08\x01" + _len_field(0x12, encode_shape((0,)))


def str_field(tag: int, value: str) -> bytes:
    return _len_field(tag, value.encode("utf-8")) if value else b""


def packed(tag: int, values: Iterable[int]) -> bytes:
    body = b"".join(_varint(int(v)) for v in values)
    return _len_field(tag, body) if body else b""


def debug_tensor_proto(number: int, tensor: Any) -> bytes:
    """The TensorProto of one debug tensor: a mode's float64 vector, or a FULL_TENSOR value."""
    if tensor is None:
        return b""
    if number in VECTOR_MODES:
        vec = np.asarray(tensor, dtype="<f8").reshape(-1)
        return vector_proto_header(vec.size) + vec.tobytes()
    return encode_tensor_proto(tensor)


def execution_payload(wall: float, op_type: str, num_outputs: int, graph_id: str,
                      input_tensor_ids: Sequence[int], output_tensor_ids: Sequence[int],
                      number: int, debug_tensors: Sequence[Any], code_location: bytes,
                      output_tensor_device_ids: Sequence[int]) -> bytes:
    """A serialized DebugEvent holding one Execution."""
    parts = [str_field(0x0A, op_type)]
    if num_outputs:
        parts.append(b"\x10" + _varint(num_outputs))
    parts += [
        str_field(0x1A, graph_id),
        packed(0x22, input_tensor_ids),
        packed(0x2A, output_tensor_ids),
        b"\x30" + _varint(number),
    ]
    if number != NO_TENSOR:
        parts += [_len_field(0x3A, debug_tensor_proto(number, t)) for t in debug_tensors]
    parts.append(_len_field(0x42, code_location))
    parts.append(packed(0x4A, output_tensor_device_ids))
    body = b"".join(parts)
    return b"\x09" + PACK_D(wall) + b"\x4a" + _varint(len(body)) + body


def trace_template(graph_id: str, op_name: str, output_slot: int, number: int,
                   device_name: str) -> tuple[bytes, bytes]:
    """The GraphExecutionTrace bytes before and after its TensorProto (the tag of which ends
    the prefix): the same for every trace of one tensor."""
    prefix = str_field(0x0A, graph_id) + str_field(0x12, op_name)
    if output_slot:
        prefix += b"\x18" + _varint(output_slot)
    prefix += b"\x20" + _varint(number) + b"\x2a"
    return prefix, str_field(0x32, device_name)


def trace_payload(wall: float, prefix: bytes, proto: bytes, suffix: bytes) -> bytes:
    """A serialized DebugEvent holding one GraphExecutionTrace."""
    body = prefix + _varint(len(proto)) + proto + suffix
    return b"\x09" + PACK_D(wall) + b"\x52" + _varint(len(body)) + body


def bulk_trace_records(prefix: bytes, suffix: bytes, vectors: np.ndarray, walls: np.ndarray,
                       header: Callable[[int], bytes]) -> Iterator[bytes]:
    """Framed graph-trace records of one tensor, one per row of `vectors` (an (N, width)
    float64 array), in chunks of up to 10,000 records.

    Every record has the same length, so the framing header and the message prefix are
    computed once; per record only the payload's CRC is left (`header(n)` frames a payload
    of n bytes).
    """
    count, width = vectors.shape
    proto_len = len(vector_proto_header(width)) + 8 * width
    body_len = len(prefix) + len(_varint(proto_len)) + proto_len + len(suffix)
    head = prefix + _varint(proto_len) + vector_proto_header(width)
    mid = b"\x52" + _varint(body_len) + head
    frame = header(9 + len(mid) + 8 * width + len(suffix))
    crc, pack_i = masked_crc32c, _PACK_I
    vec_bytes, wall_bytes = vectors.tobytes(), walls.tobytes()
    rb = 8 * width
    out: list[bytes] = []
    append = out.append
    for i in range(count):
        row = vec_bytes[rb * i : rb * i + rb]
        payload = b"\x09" + wall_bytes[8 * i : 8 * i + 8] + mid + row + suffix
        append(frame)
        append(payload)
        append(pack_i(crc(payload)))
        if len(out) >= 30000:
            yield b"".join(out)
            out.clear()
    yield b"".join(out)
