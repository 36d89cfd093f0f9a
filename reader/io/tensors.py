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
# numpy holds at most 64 dimensions (TensorFlow allows 254): a deeper tensor is reported,
# never decoded, so every reader of values sees the same refusal.
MAX_RANK = 64


def _check_fill(given: int, size: int) -> None:
    """Raise CorruptRecordError unless `given` values can stand for `size` elements."""
    if given == size or size == 0:
        return
    if size > MAX_FILL:
        raise CorruptRecordError(f"tensor of {size} elements given by only {given} values")
    if given > size:
        raise CorruptRecordError(f"tensor holds {given} values for {size} elements")


def _fill(values: np.ndarray, size: int) -> np.ndarray:
    """The `size` elements `values` stand for. One value (or none: zeros) is broadcast, a
    read-only view that allocates nothing; a longer prefix is copied out (bounded)."""
    _check_fill(len(values), size)
    if len(values) == size:
        return values
    if size == 0:
        return values[:0]
    if len(values) <= 1:
        one = values if len(values) else np.zeros(1, dtype=values.dtype)
        return np.broadcast_to(one, (size,))
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


def _header(p: pb.TensorProto) -> tuple[int, tuple[int, ...], int]:
    """(dtype, shape, size) of a TensorProto, checked before anything is sized by them."""
    dtype = int(p.dtype)
    shape = shape_of(p)
    if len(shape) > MAX_RANK:
        raise CorruptRecordError(f"tensor of {len(shape)} dimensions (at most {MAX_RANK} "
                                 "can be decoded)")
    if any(d < 0 for d in shape):
        raise CorruptRecordError(f"tensor shape {shape} has a negative dimension")
    if math.prod(d for d in shape if d) > 1 << 34:
        raise CorruptRecordError(f"tensor shape {list(shape)} is implausibly large")
    return dtype, shape, math.prod(shape)


def _given(p: pb.TensorProto, dtype: int, shape: tuple[int, ...], size: int) -> np.ndarray:
    """The values the record actually holds (maybe fewer than `size`: see `_fill`); never
    more than the record's own bytes can hold."""
    name, np_dtype = DTYPES.get(dtype, (f"dtype_{dtype}", None))
    content: bytes = p.tensor_content
    values: np.ndarray
    if dtype == 7 and content:  # FULL_TENSOR dumps pack strings into tensor_content
        return decode_string_content(content, size)
    if dtype == 7:  # string
        raw = list(p.string_val)
        values = np.empty(max(len(raw), 1), dtype=object)
        values[:] = raw or [b""]
        return values
    if np_dtype is None:  # resource / variant / unknown: keep opaque placeholders
        return np.array([None], dtype=object)
    if content:
        if len(content) != size * np_dtype.itemsize:
            raise CorruptRecordError(
                f"tensor_content has {len(content)} bytes; {name}{list(shape)} needs "
                f"{size * np_dtype.itemsize}"
            )
        values = np.frombuffer(content, dtype=np_dtype)
    else:
        values = _typed_values(p, dtype, np_dtype)
    if dtype == 14:
        values = _bf16_to_f32(values.astype(np.uint16))
    return values


def decode_tensor(proto: pb.TensorProto) -> TensorValue | None:
    """Decode a TensorProto message; None for an empty placeholder (dtype 0).

    Raises CorruptRecordError when the bytes cannot describe a tensor of the stated shape.
    """
    if proto.dtype == 0:
        return None
    dtype, shape, size = _header(proto)
    values = _fill(_given(proto, dtype, shape, size), size)
    return TensorValue(dtype, dtype_name(dtype), shape,
                       values.reshape(shape) if shape else values.reshape(()))


def tensor_health(proto: pb.TensorProto) -> tuple[int, int, int, int, int, int] | None:
    """(dtype, rank, size, n_neg_inf, n_pos_inf, n_nan) of a FULL_TENSOR value, counted on
    the values the record holds: a value standing for many elements counts that many times,
    so a few bytes claiming a huge shape never become a huge array. None for a placeholder.

    Raises CorruptRecordError exactly when `decode_tensor` would.
    """
    if proto.dtype == 0:
        return None
    dtype, shape, size = _header(proto)
    given = _given(proto, dtype, shape, size)
    _check_fill(len(given), size)
    if dtype not in FLOAT_DTYPES or given.dtype.kind != "f" or size == 0:
        return dtype, len(shape), size, 0, 0, 0
    n_neg, n_pos, n_nan = _nonfinite(given)
    if 0 < len(given) < size:  # the last value repeats for the elements not given
        x_neg, x_pos, x_nan = _nonfinite(given[-1:])
        times = size - len(given)
        n_neg, n_pos, n_nan = n_neg + x_neg * times, n_pos + x_pos * times, n_nan + x_nan * times
    return dtype, len(shape), size, n_neg, n_pos, n_nan


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
    if dtype in (8, 18):
        flat = np.asarray(g.scomplex_val if dtype == 8 else g.dcomplex_val,
                          dtype=np.float32 if dtype == 8 else np.float64)
        if len(flat) % 2:  # pairs (real, imaginary): an odd count has half a value
            raise CorruptRecordError(f"{dtype_name(dtype)} tensor given by {len(flat)} floats, "
                                     "an odd number (real and imaginary parts come in pairs)")
        return flat.view(np_dtype)
    return np.zeros(0, dtype=np_dtype)


def _nonfinite(values: np.ndarray) -> tuple[int, int, int]:
    """(n_neg_inf, n_pos_inf, n_nan) of a float array."""
    isinf = np.isinf(values)
    n_inf = int(np.count_nonzero(isinf))
    if n_inf:
        n_neg = int(np.count_nonzero(isinf & (values < 0)))
        n_pos = n_inf - n_neg
    else:
        n_neg = n_pos = 0
    return n_neg, n_pos, int(np.count_nonzero(np.isnan(values)))


def nonfinite_counts(tv: TensorValue) -> tuple[int, int, int, int]:
    """(size, n_neg_inf, n_pos_inf, n_nan) of a full tensor; zeros for non-float dtypes."""
    values = tv.values
    size = int(values.size)
    if tv.dtype not in FLOAT_DTYPES or values.dtype.kind != "f" or size == 0:
        return size, 0, 0, 0
    return (size, *_nonfinite(values))
