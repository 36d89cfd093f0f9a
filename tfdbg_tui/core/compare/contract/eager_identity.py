"""Stage 1, the eager form: the Identity TensorFlow never records, inferred in the forward pass.

TensorFlow records no eager Identity (`OP_CALLBACK_SKIP_OPS`), and a `tf.custom_gradient`
passes its results through one: an activation with a gradient of its own (Keras' swish, a
user's softplus) hands the next layer a tensor no recorded op made. Rebuilt from tensor ids,
the forward pass is then cut there — the next layer's output depends on no weight before it,
layer outputs group wrongly and the loss depends on only some variables.

What the record says (as `reader.diagnosis.unrecorded` reads it): eager tensor ids come from
one counter in the order tensors are made, and an Identity copies its input. So an input T
that no recorded op made is taken to be an Identity of the recorded output O when all of this
holds (else it stays unlinked, as before):
- O is the last recorded output made before T, at most `MAX_GAP` ids before it;
- no recorded op ever read O (its one reader was the unrecorded Identity), and no other
  input from outside the record lies between O and T (a constant converted from numpy);
- O was made inside a `tf.custom_gradient` (its decorator on the stack: the function that
  makes the Identity had just returned O; a weight read to log it, then a numpy batch
  converted for the next step, is no such pair);
- O was made, and T is first read, in the forward pass (never a tape's seed, nor the
  Identities Keras' apply_gradients passes gradients through: those are `unlinked_grads`'
  concern; the backward pass reads a forward T again, as it reads every activation);
- T is the only tensor taken to copy O.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from typing import Protocol

from tfdbg_tui.core.compare.contract.dataflow import FORWARD

MAX_GAP = 4  # tensor ids between O and the Identity's output T


def custom_gradient_stack(files: Sequence[str]) -> bool:
    """Whether a stack (its files) runs inside a `tf.custom_gradient`'s decorator."""
    return any(f.replace("\\", "/").endswith("/ops/custom_gradient.py") for f in files)


class _Record(Protocol):
    @property
    def input_tensor_ids(self) -> Sequence[int]: ...

    @property
    def output_tensor_ids(self) -> Sequence[int]: ...


def identity_links(records: Sequence[_Record], phases: Sequence[int],
                   in_custom_gradient: Callable[[int], bool]) -> dict[int, tuple[int, int]]:
    """Unrecorded input tensor id → (execution, output slot) it is taken to copy (see the
    module docstring); `phases[i]` is execution i's phase, `in_custom_gradient(i)` whether
    it ran inside a `tf.custom_gradient`."""
    produced: dict[int, tuple[int, int]] = {}
    readers: dict[int, list[int]] = {}
    for i, r in enumerate(records):
        for s, t in enumerate(r.output_tensor_ids):
            produced[int(t)] = (i, s)
        for t in r.input_tensor_ids:
            readers.setdefault(int(t), []).append(i)
    outside = sorted(t for t in readers if t not in produced)
    made = sorted(produced)
    links: dict[int, tuple[int, int]] = {}
    for t in outside:
        j = bisect_left(made, t) - 1
        if j < 0:
            continue
        o = made[j]
        if t - o > MAX_GAP or o in readers or outside[bisect_right(outside, o)] != t:
            continue
        src = produced[o]
        if phases[src[0]] in FORWARD and phases[min(readers[t])] in FORWARD \
                and in_custom_gradient(src[0]):
            links[t] = src
    return links
