"""The data and starting weights of each blind program, for the numpy models (float32 values as
the programs hold them, widened to float64): the arrays prepare_data.py writes, made by the
same functions (no TensorFlow), split into the batch and the weights by name.
"""

from __future__ import annotations

import numpy as np


def _own_prepare_data() -> object:
    """This corpus's prepare_data.py, loaded by its path: every corpus has one, and a pytest
    process that imports two corpora would otherwise get the first one's for both."""
    import importlib.util
    from pathlib import Path

    spec = importlib.util.spec_from_file_location(
        "migration_blind_prepare_data", Path(__file__).with_name("prepare_data.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


ARRAYS = _own_prepare_data().ARRAYS  # type: ignore[attr-defined]

Arrays = dict[str, np.ndarray]
BATCH_KEYS = ("x", "y")


def model_of(program: str) -> str:
    """'tf2_conv1d_warmup_fn.py' -> 'conv1d' (the model a program trains)."""
    return program[4:-3].split("_")[0]


def program_data(program: str) -> tuple[Arrays, Arrays]:
    """(batch, every weight the program starts from: frozen ones too) of `program`."""
    arrays = ARRAYS[model_of(program)]()
    batch = {k: arrays[k] for k in BATCH_KEYS}
    batch["x"] = np.asarray(batch["x"], np.float32).astype(np.float64)
    if batch["y"].dtype.kind == "f":
        batch["y"] = batch["y"].astype(np.float64)
    weights = {k: np.asarray(v, np.float32).astype(np.float64)
               for k, v in arrays.items() if k not in BATCH_KEYS}
    return batch, weights
