"""TensorProto → numpy, for every dtype TensorFlow dumps, without TensorFlow.

Why our own: the reader must not import TensorFlow, and TensorFlow's `MakeNdarray` needs it.
The rules follow TensorProto's contract: `tensor_content` holds the packed little-endian
bytes when present; otherwise a typed repeated field holds the values, and fewer values than
the shape's size means "repeat the last one" (a single value fills the whole tensor).

bfloat16 has no numpy dtype without extra packages, so it is widened exactly to float32
(its bits are the top half of a float32); `TensorValue.dtype_name` keeps the true dtype.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from reader.errors import CorruptRecordError
from reader.proto import tfdbg_events_pb2 as pb

# DataType enum (tensorflow/core/framework/types.proto) → (name, numpy dtype or None)
DTYPES: dict[int, tuple[str, np.dtype | None]] = {
    1: ("float32", np.dtype("<f4")),
    2: ("float64", np.dtype("<f8")),
    3: ("int32", np.dtype("<i4")),
    4: ("uint8", np.dtype("u1")),
    5: ("int16", np.dtype("<i2")),
    6: ("int8", np.dtype("i1")),
    7: ("string", None),
    8: ("complex64", np.dtype("<c8")),
    9: ("int64", np.dtype("<i8")),
    10: ("bool", np.dtype("?")),
    11: ("qint8", np.dtype("i1")),
    12: ("quint8", np.dtype("u1")),
    13: ("qint32", np.dtype("<i4")),
    14: ("bfloat16", np.dtype("<u2")),  # raw bits; widened to float32 on decode
    15: ("qint16", np.dtype("<i2")),
    16: ("quint16", np.dtype("<u2")),
    17: ("uint16", np.dtype("<u2")),
    18: ("complex128", np.dtype("<c16")),
    19: ("float16", np.dtype("<f2")),
    20: ("resource", None),
    21: ("variant", None),
    22: ("uint32", np.dtype("<u4")),
    23: ("uint64", np.dtype("<u8")),
}

FLOAT_DTYPES = frozenset({1, 2, 14, 19})  # the dtypes health modes summarize


def dtype_name(dtype: int) -> str:
    """Readable name of a DataType number (`dtype_<n>` for unknown ones)."""
    entry = DTYPES.get(int(dtype))
    return entry[0] if entry else f"dtype_{int(dtype)}"


@dataclass(frozen=True)
class TensorValue:
    """A decoded tensor: values (numpy), the true dtype name and the shape."""

    dtype: int
    dtype_name: str
    shape: tuple[int, ...]
    values: np.ndarray

    @property
    def size(self) -> int:
        return math.prod(self.shape)


# A typed field with fewer values than elements means "repeat the last"; TensorFlow only
# writes that short form for small or uniform tensors, so refuse to blow up a huge one.
MAX_FILL = 1 << 24


def _fill(values: np.ndarray, size: int) -> np.ndarray:
    if len(values) == size:
        return values
    if size == 0:
        return values[:0]
    if size > MAX_FILL:
        raise CorruptRecordError(f"tensor of {size} elements given by only {len(values)} values")
    if len(values) == 0:
        return np.zeros(size, dtype=values.dtype)
    if len(values) > size:
        raise CorruptRecordError(f"tensor holds {len(values)} values for {size} elements")
    out = np.empty(size, dtype=values.dtype)
    out[: len(values)] = values
    out[len(values) :] = values[-1]
    return out


def _bf16_to_f32(bits: np.ndarray) -> np.ndarray:
    return (bits.astype(np.uint32) << 16).view(np.float32)


def shape_of(proto: pb.TensorProto) -> tuple[int, ...]:
    """The TensorShapeProto's dims as a tuple (unknown rank → empty tuple)."""
    shape = proto.tensor_shape
    return tuple(int(d.size) for d in shape.dim)


def decode_tensor(proto: pb.TensorProto) -> TensorValue | None:
    """Decode a TensorProto message; None for an empty placeholder (dtype 0).

    Raises CorruptRecordError when the bytes cannot describe a tensor of the stated shape.
    """
    p = proto
    dtype = int(p.dtype)
    if dtype == 0:
        return None
    shape = shape_of(p)
    if any(d < 0 for d in shape):
        raise CorruptRecordError(f"tensor shape {shape} has a negative dimension")
    size = math.prod(shape)
    if math.prod(d for d in shape if d) > 1 << 34:
        raise CorruptRecordError(f"tensor shape {list(shape)} is implausibly large")
    name, np_dtype = DTYPES.get(dtype, (f"dtype_{dtype}", None))
    content: bytes = p.tensor_content
    values: np.ndarray
    if dtype == 7 and content:  # FULL_TENSOR dumps pack strings into tensor_content
        values = decode_string_content(content, size)
    elif dtype == 7:  # string
        raw = list(p.string_val)
        arr = np.empty(max(len(raw), 1), dtype=object)
        arr[:] = raw or [b""]
        values = _fill(arr, size)
    elif np_dtype is None:  # resource / variant / unknown: keep opaque placeholders
        values = _fill(np.array([None], dtype=object), size)
    elif content:
        if len(content) != size * np_dtype.itemsize:
            raise CorruptRecordError(
                f"tensor_content has {len(content)} bytes; {name}{list(shape)} needs "
                f"{size * np_dtype.itemsize}"
            )
        values = np.frombuffer(content, dtype=np_dtype)
    else:
        values = _typed_values(p, dtype, np_dtype)
        values = _fill(values, size)
    if dtype == 14:
        values = _bf16_to_f32(values.astype(np.uint16))
    return TensorValue(dtype, name, shape, values.reshape(shape) if shape else values.reshape(()))


def decode_string_content(content: bytes, size: int) -> np.ndarray:
    """Strings packed in `tensor_content`, as TensorFlow's FULL_TENSOR dumps write them.

    Layout (tensorflow/core/platform/tstring coding, `EncodeStringList`): `size` varint32
    lengths, then the bytes of every string back to back. Raises CorruptRecordError when the bytes
    do not describe exactly `size` strings.
    """
    lengths: list[int] = []
    pos = 0
    n = len(content)
    for _ in range(size):
        value = shift = 0
        while True:
            if pos >= n or shift > 28:
                raise CorruptRecordError("string tensor content: truncated length prefix")
            byte = content[pos]
            pos += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                break
        lengths.append(value)
    if pos + sum(lengths) != n:
        raise CorruptRecordError(f"string tensor content: {n - pos} bytes for strings of total "
                         f"length {sum(lengths)}")
    out = np.empty(size, dtype=object)
    for i, length in enumerate(lengths):
        out[i] = content[pos:pos + length]
        pos += length
    return out


def _typed_values(p: pb.TensorProto, dtype: int, np_dtype: np.dtype) -> np.ndarray:
    g = p
    if dtype == 1:
        return np.asarray(g.float_val, dtype=np.float32)
    if dtype == 2:
        return np.asarray(g.double_val, dtype=np.float64)
    if dtype in (19, 14):
        bits = np.asarray(g.half_val, dtype=np.int64).astype(np.uint16)
        return bits.view(np.float16) if dtype == 19 else bits
    if dtype in (3, 4, 5, 6, 11, 12, 13, 15, 16, 17):
        return np.asarray(g.int_val, dtype=np.int64).astype(np_dtype)
    if dtype == 9:
        return np.asarray(g.int64_val, dtype=np.int64)
    if dtype == 10:
        return np.asarray(g.bool_val, dtype=bool)
    if dtype == 22:
        return np.asarray(g.uint32_val, dtype=np.uint32)
    if dtype == 23:
        return np.asarray(g.uint64_val, dtype=np.uint64)
    if dtype == 8:
        flat = np.asarray(g.scomplex_val, dtype=np.float32)
        return flat[0::2] + 1j * flat[1::2] if len(flat) else np.zeros(0, np.complex64)
    if dtype == 18:
        flat = np.asarray(g.dcomplex_val, dtype=np.float64)
        return flat[0::2] + 1j * flat[1::2] if len(flat) else np.zeros(0, np.complex128)
    return np.zeros(0, dtype=np_dtype)


def nonfinite_counts(tv: TensorValue) -> tuple[int, int, int, int]:
    """(size, n_neg_inf, n_pos_inf, n_nan) of a full tensor; zeros for non-float dtypes."""
    values = tv.values
    size = int(values.size)
    if tv.dtype not in FLOAT_DTYPES or values.dtype.kind != "f" or size == 0:
        return size, 0, 0, 0
    isinf = np.isinf(values)
    n_inf = int(np.count_nonzero(isinf))
    if n_inf:
        n_neg = int(np.count_nonzero(isinf & (values < 0)))
        n_pos = n_inf - n_neg
    else:
        n_neg = n_pos = 0
    return size, n_neg, n_pos, int(np.count_nonzero(np.isnan(values)))
