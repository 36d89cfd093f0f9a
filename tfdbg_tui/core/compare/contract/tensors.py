"""A tensor of a step's `Flow` and its signature, shared by the stages that name roles.
"""

from __future__ import annotations

Tensor = tuple[int, int]  # (node, slot)


Sig = tuple[int, int, int]  # (dtype class, rank, size); -1 unknown


FLOATS = frozenset({1, 2, 14, 19})


SHAPE_ONLY = frozenset({"Shape", "ShapeN", "Size", "Rank", "ZerosLike", "OnesLike",
                         "BroadcastGradientArgs"})


def sig_class(sig: Sig) -> Sig:
    """A signature with every floating dtype as one class (float32 against float64 pairs)."""
    return (1 if sig[0] in FLOATS else sig[0], sig[1], sig[2])
