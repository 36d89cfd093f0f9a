"""Value statistics for FULL_TENSOR dumps: numbers (stats), slicing expressions, `.npy` export.

TF-free and UI-free: the inspector screen, `report --values` and scripts share one definition
of "min over finite elements" or "the first NaN".
"""

from reader.values.save import default_save_dir, npy_name, save_npy
from reader.values.slicing import Index, SliceError, apply_index, format_index, parse_index
from reader.values.stats import (
    Histogram,
    ValueStats,
    compute_stats,
    first_nonfinite,
    histogram,
    value_kind,
)

__all__ = [
    "Histogram", "Index", "SliceError", "ValueStats", "apply_index", "compute_stats",
    "default_save_dir", "first_nonfinite", "format_index", "histogram", "npy_name",
    "parse_index", "save_npy", "value_kind",
]
