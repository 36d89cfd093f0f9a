"""Debug modes, TensorProto encoding/decoding and health vectors, without TensorFlow.

The TF-free writer needs to produce exactly the float64 summary vectors that TensorFlow's
`DebugNumericSummaryV2` kernel emits (layouts in docs/format.md) and TensorProtos that
`tensor_util.MakeNdarray` accepts; the stop-at-NaN watcher needs to read them back. Both live
here so the two sides cannot drift apart.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dumper.errors import DumperError
from reader.modes import (
    CONCISE_HEALTH,
    CURT_HEALTH,
    FULL_HEALTH,
    FULL_TENSOR,
    HEALTH_MODES,
    NAN_REVEALING,
    NO_TENSOR,
    RECORDABLE,
    SHAPE,
    VECTOR_LEN,
)
from reader.modes import MODE_NAMES as MODE_NAMES_ALL

# The dumper's view of the one mode table (reader.modes): the modes it can write.
MODES: dict[str, int] = {MODE_NAMES_ALL[m]: m for m in RECORDABLE}
MODE_NAMES: dict[int, str] = {v: k for k, v in MODES.items()}
VECTOR_MODES = frozenset(m for m in RECORDABLE if m in VECTOR_LEN)
# Modes whose records can reveal a NaN or an infinity.
VALUE_MODES = NAN_REVEALING & frozenset(RECORDABLE)

DT_FLOAT, DT_DOUBLE, DT_STRING, DT_BFLOAT16, DT_HALF = 1, 2, 7, 14, 19
_NUMPY_TO_DTYPE: dict[str, int] = {
    "float32": 1,
    "float64": 2,
    "int32": 3,
    "uint8": 4,
    "int16": 5,
    "int8": 6,
    "complex64": 8,
    "int64": 9,
    "bool": 10,
    "bfloat16": 14,
    "uint16": 17,
    "complex128": 18,
    "float16": 19,
    "uint32": 22,
    "uint64": 23,
}
_DTYPE_TO_NUMPY: dict[int, str] = {v: k for k, v in _NUMPY_TO_DTYPE.items()}
_FLOAT_DTYPES = frozenset((DT_FLOAT, DT_DOUBLE, DT_BFLOAT16, DT_HALF))


def mode_number(mode: str | int) -> int:
    """The TensorDebugMode number of `mode` ("FULL_HEALTH", "full_health" or 4)."""
    if isinstance(mode, int) and not isinstance(mode, bool):
        if mode in MODE_NAMES:
            return mode
    elif isinstance(mode, str) and mode.upper() in MODES:
        return MODES[mode.upper()]
    raise DumperError(f"unknown debug mode {mode!r}; choose one of {', '.join(MODES)}")


def dtype_enum(dtype: np.dtype[Any]) -> int:
    """TensorFlow's DataType number for a numpy dtype (strings and objects map to DT_STRING)."""
    if dtype.kind in "SUO":
        return DT_STRING
    try:
        return _NUMPY_TO_DTYPE[dtype.name]
    except KeyError:
        raise DumperError(f"dtype {dtype.name} has no TensorFlow equivalent") from None


def _varint(value: int) -> bytes:
    if 0 <= value < 0x80:
        return bytes((value,))
    value &= 0xFFFFFFFFFFFFFFFF  # negative int64s take ten bytes, as in protobuf
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _len_field(tag: int, payload: bytes) -> bytes:
    return bytes((tag,)) + _varint(len(payload)) + payload


def encode_shape(shape: tuple[int, ...]) -> bytes:
    """TensorShapeProto bytes. A zero-sized dim is an empty Dim message, as TensorFlow writes."""
    return b"".join(_len_field(0x12, b"\x08" + _varint(d) if d else b"") for d in shape)


def encode_tensor_proto(array: Any) -> bytes:
    """Serialize a numpy array (any dtype TensorFlow has) as TensorProto bytes.

    Numbers and bools go into `tensor_content` (little-endian, C order), strings into
    `string_val`, like `tensor_util.make_tensor_proto` does.
    """
    arr = np.asarray(array)
    dtype = dtype_enum(arr.dtype)
    parts = [b"\x08" + _varint(dtype), _len_field(0x12, encode_shape(arr.shape))]
    if dtype == DT_STRING:
        for item in arr.reshape(-1).tolist():
            raw = item if isinstance(item, bytes) else str(item).encode("utf-8")
            parts.append(_len_field(0x42, raw))
    elif arr.size:
        if arr.dtype.byteorder == ">":
            arr = arr.astype(arr.dtype.newbyteorder("<"))
        parts.append(_len_field(0x22, np.ascontiguousarray(arr).tobytes()))
    return b"".join(parts)


def vector_proto_header(length: int) -> bytes:
    """The TensorProto bytes of a 1-D float64 vector of `length`, up to its tensor_content."""
    shape = encode_shape((length,))
    return b"\x08\x02" + _len_field(0x12, shape) + b"\x22" + _varint(8 * length)


def decode_tensor_proto(proto: Any) -> np.ndarray | None:
    """Decode a TensorProto message (ours or TensorFlow's) into numpy; None when we can't.

    Covers what TensorFlow writes for numeric tensors: `tensor_content`, or the typed
    `*_val` fields where one value may stand for the whole tensor.
    """
    name = _DTYPE_TO_NUMPY.get(proto.dtype)
    if name is None or name == "bfloat16":
        return None
    shape = tuple(int(d.size) for d in proto.tensor_shape.dim)
    size = int(np.prod(shape)) if shape else 1
    dtype = np.dtype(name).newbyteorder("<")
    if proto.tensor_content:
        arr = np.frombuffer(proto.tensor_content, dtype=dtype)
    else:
        if name == "float16":
            values: Any = np.asarray(proto.half_val, np.uint16).view(np.float16)
        elif name == "float32":
            values = proto.float_val
        elif name == "float64":
            values = proto.double_val
        elif name in ("int64",):
            values = proto.int64_val
        elif name == "bool":
            values = proto.bool_val
        elif name in ("uint32",):
            values = proto.uint32_val
        elif name in ("uint64",):
            values = proto.uint64_val
        elif name.startswith("complex"):
            values = proto.scomplex_val if name == "complex64" else proto.dcomplex_val
            values = np.asarray(values, np.float64).reshape(-1, 2) @ np.array([1, 1j])
        else:
            values = proto.int_val
        arr = np.asarray(values, dtype=dtype)
        if arr.size == 1 and size != 1:
            arr = np.full(size, arr[0], dtype=dtype)
        elif arr.size == 0 and size:
            arr = np.zeros(size, dtype=dtype)
    if arr.size != size:
        return None
    return arr.reshape(shape)


def health_vector(
    mode: str | int, array: Any, tensor_id: int = -1, device_id: int = -1
) -> np.ndarray | None:
    """The debug tensor TensorFlow would record for `array` in `mode` (None: nothing recorded).

    Health modes summarize floating-point arrays only; SHAPE covers numbers and bools;
    FULL_TENSOR returns the array itself; NO_TENSOR records nothing.
    """
    number = mode_number(mode)
    arr = np.asarray(array)
    if number == NO_TENSOR:
        return None
    if number == FULL_TENSOR:
        return arr
    is_float = arr.dtype.kind == "f" or arr.dtype.name == "bfloat16"
    if number in HEALTH_MODES and not is_float:
        return None
    if number == SHAPE:
        if arr.dtype.kind not in "fiub" and arr.dtype.name != "bfloat16":
            return None
        dims = list(arr.shape[-6:]) if arr.ndim else []
        dims += [0] * (6 - len(dims))
        return np.array(
            [tensor_id, dtype_enum(arr.dtype), arr.ndim, arr.size, *dims], np.float64
        )
    flat = arr.astype(np.float64, copy=False).reshape(-1)
    nan = int(np.count_nonzero(np.isnan(flat)))
    pos_inf = int(np.count_nonzero(flat == np.inf))
    neg_inf = int(np.count_nonzero(flat == -np.inf))
    if number == CURT_HEALTH:
        return np.array([tensor_id, 1.0 if nan + pos_inf + neg_inf else 0.0])
    if number == CONCISE_HEALTH:
        return np.array([tensor_id, flat.size, neg_inf, pos_inf, nan], np.float64)
    finite = np.isfinite(flat)
    neg = int(np.count_nonzero(finite & (flat < 0)))
    zero = int(np.count_nonzero(flat == 0))
    pos = int(np.count_nonzero(finite & (flat > 0)))
    return np.array(
        [tensor_id, device_id, dtype_enum(arr.dtype), arr.ndim, flat.size,
         neg_inf, pos_inf, nan, neg, zero, pos],
        np.float64,
    )


def inf_nan_counts(mode: int, value: np.ndarray | None) -> tuple[int, int, int, int] | None:
    """(size, -inf, +inf, nan) from a recorded debug tensor; None when it shows no anomaly.

    For CURT_HEALTH only "some" is known: the counts are (size 0, 0, 0, 1) by convention.
    """
    if value is None or value.size == 0:
        return None
    if mode == FULL_TENSOR:
        if value.dtype.kind not in "fc":
            return None
        flat = value.reshape(-1)
        counts = (
            int(np.count_nonzero(flat == -np.inf)),
            int(np.count_nonzero(flat == np.inf)),
            int(np.count_nonzero(np.isnan(flat))),
        )
        size = int(flat.size)
    elif mode == CURT_HEALTH and value.size >= 2:
        return (0, 0, 0, 1) if value[1] else None
    elif mode == CONCISE_HEALTH and value.size >= 5:
        size, counts = int(value[1]), (int(value[2]), int(value[3]), int(value[4]))
    elif mode == FULL_HEALTH and value.size >= 11:
        size, counts = int(value[4]), (int(value[5]), int(value[6]), int(value[7]))
    else:
        return None
    return (size, *counts) if any(counts) else None

