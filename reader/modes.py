"""The one table of tfdbg2's tensor debug modes: numbers, names, summary-vector layouts.

TensorFlow's `TensorDebugMode` enum decides what each trace or execution record carries: nothing
(NO_TENSOR), a float64 summary vector of a fixed length (the health modes and SHAPE), or the
whole tensor (FULL_TENSOR). The reader's ingest and health columns, the diagnosis, the value
inspector and the TF-free dumper all ask these questions, so they all ask this module.
The vector layouts are described in docs/format.md.
"""

from __future__ import annotations

UNSPECIFIED = 0
NO_TENSOR = 1
CURT_HEALTH = 2
CONCISE_HEALTH = 3
FULL_HEALTH = 4
SHAPE = 5
FULL_NUMERICS = 6
FULL_TENSOR = 7
REDUCE_INF_NAN_THREE_SLOTS = 8

MODE_NAMES: dict[int, str] = {
    UNSPECIFIED: "UNSPECIFIED",
    NO_TENSOR: "NO_TENSOR",
    CURT_HEALTH: "CURT_HEALTH",
    CONCISE_HEALTH: "CONCISE_HEALTH",
    FULL_HEALTH: "FULL_HEALTH",
    SHAPE: "SHAPE",
    FULL_NUMERICS: "FULL_NUMERICS",
    FULL_TENSOR: "FULL_TENSOR",
    REDUCE_INF_NAN_THREE_SLOTS: "REDUCE_INF_NAN_THREE_SLOTS",
}
MODE_IDS: dict[str, int] = {v: k for k, v in MODE_NAMES.items()}

# The modes `enable_dump_debug_info` accepts (and the TF-free dumper writes).
RECORDABLE: tuple[int, ...] = (NO_TENSOR, CURT_HEALTH, CONCISE_HEALTH, FULL_HEALTH, SHAPE,
                               FULL_TENSOR)
# Length of the float64 summary vector per mode (fixed-layout modes only).
VECTOR_LEN: dict[int, int] = {CURT_HEALTH: 2, CONCISE_HEALTH: 5, FULL_HEALTH: 11, SHAPE: 10,
                              REDUCE_INF_NAN_THREE_SLOTS: 3}
# Modes that summarize floating-point tensors only (others record nothing for ints, strings).
HEALTH_MODES = frozenset({CURT_HEALTH, CONCISE_HEALTH, FULL_HEALTH})
# Modes whose records can reveal NaN/∞.
NAN_REVEALING = frozenset({CURT_HEALTH, CONCISE_HEALTH, FULL_HEALTH, FULL_TENSOR,
                           REDUCE_INF_NAN_THREE_SLOTS})


def mode_name(mode: int) -> str:
    """The enum name of a mode number; unknown numbers read `MODE_<n>`."""
    return MODE_NAMES.get(int(mode), f"MODE_{int(mode)}")
