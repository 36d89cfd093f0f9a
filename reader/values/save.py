"""Saving a tensor's values as `.npy`, under a safe file name and never overwriting."""

from __future__ import annotations

import os
import re
import tempfile

import numpy as np

from reader.io.safewrite import open_folder, write_new
from reader.io.tensors import TensorValue
from reader.values.stats import _is_bytes

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def npy_name(tensor_name: str) -> str:
    """A safe file name for a tensor: `dense/MatMul:0` → `dense_MatMul_0.npy`."""
    stem = _UNSAFE.sub("_", tensor_name).strip("._") or "tensor"
    return stem[:100] + ".npy"


def default_save_dir() -> str:
    """$TFDBG_TUI_SAVE_DIR, else the current directory if writable, else the temp dir."""
    env = os.environ.get("TFDBG_TUI_SAVE_DIR")
    if env:
        return env
    cwd = os.getcwd()
    return cwd if os.access(cwd, os.W_OK) else tempfile.gettempdir()


MAX_STRING_NPY = 2 << 30  # a fixed-width string .npy bigger than this is refused


def _gib(n: int) -> str:
    return f"{n / (1 << 30):,.1f} GiB"


def _check_string_size(values: np.ndarray) -> None:
    """Refuse (ValueError, one line) a string tensor whose fixed-width `.npy` — every element
    as wide as the longest — would be too big, before anything of that size is allocated.

    A record can declare [2**24] strings and give one 1,000-byte value (broadcast: a view
    of one element), so the width is read from the distinct elements, not from each of the
    2**24 (a broadcast view has a zero stride: one element stands for all)."""
    flat = values.reshape(-1)
    if flat.size == 0:
        return
    if flat.strides == (0,):
        width = len(flat[0])
    else:
        width = max(len(v) for v in flat)
    need = flat.size * max(width, 1)
    try:
        pages = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError):
        pages = MAX_STRING_NPY
    limit = min(MAX_STRING_NPY, max(pages // 2, 64 << 20))
    if need > limit:
        raise ValueError(f"{flat.size:,} strings of up to {width:,} bytes need {_gib(need)} "
                         f"as .npy (at most {_gib(limit)} here); not saved")


def save_npy(tv: TensorValue | np.ndarray, tensor_name: str, directory: str | None = None) -> str:
    """Save the values to `<directory>/<tensor name>.npy` without overwriting; returns the path.

    Written to a temporary name, fsync'ed and linked into place (`reader.io.safewrite`), never
    through a symlink planted in the folder.

    bfloat16 is saved as the float32 it was widened to (numpy has no bfloat16); strings as a
    fixed-width bytes array, so `np.load` needs no pickle.
    """
    values = tv.values if isinstance(tv, TensorValue) else tv
    values = np.asarray(values)
    if values.dtype.kind == "O":
        if values.size and not _is_bytes(values):
            raise ValueError("opaque tensors (resource, variant) have no values to save")
        _check_string_size(values)
        values = values.astype(np.bytes_) if values.size else values.astype("S1")
    directory = os.path.abspath(directory or default_save_dir())
    name = npy_name(tensor_name)
    fd = open_folder(directory, [])
    try:
        for n in range(10_000):
            candidate = name if n == 0 else f"{name[:-4]}-{n}.npy"
            try:
                os.lstat(candidate, dir_fd=fd)
                continue  # taken (the link below catches one taken meanwhile)
            except FileNotFoundError:
                pass
            try:  # all or nothing: a full disk leaves no truncated .npy under the name
                write_new(fd, candidate, lambda f: np.save(f, values, allow_pickle=False))
            except FileExistsError:
                continue
            return os.path.join(directory, candidate)
    finally:
        os.close(fd)
    raise OSError(f"{name}: 10,000 files of that name already; not saved")
