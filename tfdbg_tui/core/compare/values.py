"""Comparisons that need the records: FULL_TENSOR values and SHAPE dimensions.

Values follow `numpy.testing.assert_allclose`: an element is close when
`|a − b| ≤ atol + rtol·|b|` (b is run B, the reference, as `desired` is in numpy), with one
difference: `|b|` is at least the tensor's root-mean-square magnitude. Float rounding in a sum
(a matmul, a convolution, a normalization) scales with its terms, not its result, so an element
that cancels to near zero carries the rounding of the large terms it came from; judged on its
own |b| it made two equivalent runs "diverge" by a few float32 ulps of the tensor after two
Adam steps. A real mistake moves elements by far more than rtol of the tensor's scale. Infinities
are close only to the same infinity; NaN is never close to a number. NaN at the same position
in both runs counts as equal (numpy's default, `equal_nan=True`): the question is where the
runs part, and a NaN both runs share is not where they part. Integers, booleans and strings
must be equal. Two floating dtypes compare by value (float32 against float16 is a question of
tolerance); other dtype changes are divergences.

Errors are reported as numpy does: the largest |a − b| and |a − b| / |b| over the elements
where both are finite (and b ≠ 0 for the relative one), and the index of the element that
breaks the tolerance most (or of the first NaN/∞ mismatch when only those break it).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from reader import GRAPH, DebugLogdir, ReaderError
from reader.index.health import shape_from_vector
from reader.io.tensors import FLOAT_DTYPES, TensorValue
from reader.modes import FULL_HEALTH, FULL_TENSOR, SHAPE
from tfdbg_tui.core.compare.contract.quantities import Q_APPLIED, Q_GRADIENT, Q_LAYER
from tfdbg_tui.core.compare.pairs import (
    DIFFERENT,
    EQUAL,
    R_COUNTS,
    R_DTYPE,
    R_NONE,
    R_SHAPE,
    R_UNREADABLE,
    R_VALUES,
    SKIPPED,
    Pairs,
)


@dataclass(frozen=True)
class Tolerance:
    """assert_allclose's tolerances (its defaults: rtol 1e-7, atol 0). As the migration guide
    does, the first `tight_steps` training steps may be judged on `atol` alone (errors have
    not accumulated yet) and the later ones on `atol + rtol·|b|`."""

    rtol: float = 1e-7
    atol: float = 0.0
    tight_steps: int = 0
    # a floor under each element's |b| besides its tensor's rms (`gradient_scale`; 0: none)
    scale: float = 0.0

    def for_step(self, step: int) -> Tolerance:
        """The tolerance in effect at training step `step` (-1: outside any step)."""
        if 0 <= step < self.tight_steps:
            return Tolerance(0.0, self.atol)
        return self

    def describe(self) -> str:
        if self.tight_steps:
            last = self.tight_steps - 1
            first = "step 0" if last == 0 else f"steps 0–{last}"
            return (f"{first}: atol={self.atol:g} (rtol 0); from step {self.tight_steps}: "
                    f"rtol={self.rtol:g}, atol={self.atol:g}")
        return f"rtol={self.rtol:g}, atol={self.atol:g}"


@dataclass(frozen=True)
class Outcome:
    reason: int
    max_abs: float = float("nan")
    max_rel: float = float("nan")
    worst: int = -1  # flat index
    mismatched: int = 0
    total: int = 0
    shapes: tuple[tuple[int, ...], tuple[int, ...]] | None = None
    at_worst: tuple[object, object] | None = None  # the two values there


class RecordReader:
    """Full debug tensors of one run's rows; an eager record is read once for all its slots."""

    def __init__(self, logdir: DebugLogdir) -> None:
        self.logdir = logdir
        self._last: tuple[int, tuple[TensorValue | None, ...]] | None = None

    def mode(self, kind: int, row: int) -> int:
        if kind == GRAPH:
            return int(self.logdir.traces.mode[row])
        return int(self.logdir.executions.mode[int(self.logdir.outputs.execution[row])])

    def signs(self, kind: int, row: int) -> tuple[int, int, int]:
        """The row's recorded (negative, zero, positive) counts; -1 where not recorded."""
        t = self.logdir.traces if kind == GRAPH else self.logdir.outputs
        return int(t.neg[row]), int(t.zero[row]), int(t.pos[row])

    def tensor(self, kind: int, row: int) -> TensorValue | None:
        """The FULL_TENSOR value or the summary vector of a row (ReaderError if damaged)."""
        if kind == GRAPH:
            return self.logdir.read_trace(row).value
        execution = int(self.logdir.outputs.execution[row])
        slot = int(self.logdir.outputs.slot[row])
        if self._last is None or self._last[0] != execution:
            self._last = (execution, self.logdir.read_execution(execution).debug_tensors)
        tensors = self._last[1]
        return tensors[slot] if 0 <= slot < len(tensors) else None


def _shape(tv: TensorValue | None, mode: int) -> tuple[int, ...] | None:
    if tv is None:
        return None
    if mode == SHAPE:
        if tv.values.dtype.kind not in "fiub":  # strings or complex: no summary, unknown
            return None
        return shape_from_vector(np.asarray(tv.values, np.float64).reshape(-1))
    return tv.shape if len(tv.shape) <= 6 else tv.shape[-6:]


def regrouped(a: tuple[int, ...], b: tuple[int, ...]) -> bool:
    """Whether one shape is the other with adjacent axes merged or split (`[8, 8]` and
    `[8, 2, 4]`: a Keras attention kernel's head axis; a unit axis added): the elements then
    lie in the same order, and the two tensors compare element by element. A transpose
    (`[4, 8]` against `[8, 4]`) is no regrouping."""
    def cuts(shape: tuple[int, ...]) -> set[int]:
        out, p = set(), 1
        for d in shape:
            p *= int(d)
            out.add(p)
        return out
    ca, cb = cuts(a), cuts(b)
    if not a or not b or max(ca) != max(cb):
        return False
    return ca <= cb or cb <= ca


def compare_values(va: TensorValue, vb: TensorValue, tol: Tolerance) -> Outcome:
    """assert_allclose on two full tensors (see the module docstring)."""
    total = int(vb.values.size)
    floats = va.dtype in FLOAT_DTYPES and vb.dtype in FLOAT_DTYPES
    shapes = (va.shape, vb.shape)
    if va.dtype != vb.dtype and not floats:
        return Outcome(R_DTYPE, total=total, shapes=shapes)
    if va.shape != vb.shape and not regrouped(va.shape, vb.shape):
        return Outcome(R_SHAPE, total=total, shapes=shapes)
    x, y = va.values.reshape(-1), vb.values.reshape(-1)
    if x.dtype.kind not in "fc" or y.dtype.kind not in "fc":  # ints, bools, strings: exact
        bad = np.asarray(x != y, bool)
        n = int(np.count_nonzero(bad))
        at = int(np.argmax(bad)) if n else -1
        return Outcome(R_VALUES if n else R_NONE, worst=at, mismatched=n, total=total,
                       shapes=shapes, at_worst=(x[at], y[at]) if n else None)
    wide = np.complex128 if "c" in (x.dtype.kind, y.dtype.kind) else np.float64
    x, y = x.astype(wide), y.astype(wide)
    with np.errstate(invalid="ignore", over="ignore"):
        diff = np.abs(x - y)
        finite = np.isfinite(x) & np.isfinite(y)
        allowed = tol.atol + tol.rtol * np.maximum(np.abs(y), max(_rms(y[finite]), tol.scale))
        # an infinity is close only to itself (rtol·∞ would otherwise let −∞ match +∞)
        close = np.where(finite, diff <= allowed, x == y) | (np.isnan(x) & np.isnan(y))
        fd = diff[finite]
        max_abs = float(fd.max()) if len(fd) else float("nan")
        ay = np.abs(y[finite])
        rel = fd[ay > 0] / ay[ay > 0]
        max_rel = float(rel.max()) if len(rel) else (0.0 if len(fd) else float("nan"))
    bad = ~close
    n = int(np.count_nonzero(bad))
    if not n:
        return Outcome(R_NONE, max_abs, max_rel, -1, 0, total, shapes)
    with np.errstate(invalid="ignore"):
        excess = np.where(bad & finite, diff - allowed, -np.inf)
    worst = int(np.argmax(excess)) if np.isfinite(excess.max()) else int(np.argmax(bad))
    raw_a, raw_b = va.values.reshape(-1), vb.values.reshape(-1)
    return Outcome(R_VALUES, max_abs, max_rel, worst, n, total, shapes,
                   (raw_a[worst].item(), raw_b[worst].item()))


def _rms(v: np.ndarray) -> float:
    """The root-mean-square magnitude of a tensor's finite values (0 for none)."""
    if not len(v):
        return 0.0
    scale = float(np.abs(v).max())
    if not scale or not np.isfinite(scale):
        return 0.0
    return scale * float(np.sqrt(np.mean(np.square(np.abs(v) / scale))))


def _finite_signs(tv: TensorValue) -> tuple[int, int, int] | None:
    v = tv.values
    if tv.dtype not in FLOAT_DTYPES or v.dtype.kind != "f":
        return None
    finite = v[np.isfinite(v)]
    return (int(np.count_nonzero(finite < 0)), int(np.count_nonzero(finite == 0)),
            int(np.count_nonzero(finite > 0)))


def compare_records(ra: RecordReader, rb: RecordReader, kind: int, row_a: int, row_b: int,
                    tol: Tolerance, kind_b: int | None = None) -> Outcome:
    """Compare one pair on what its records give (ReaderError if one is damaged)."""
    kb = kind if kind_b is None else kind_b
    ma, mb = ra.mode(kind, row_a), rb.mode(kb, row_b)
    va, vb = ra.tensor(kind, row_a), rb.tensor(kb, row_b)
    if ma == FULL_TENSOR and mb == FULL_TENSOR:
        if va is None or vb is None:
            return Outcome(R_NONE if va is vb else R_VALUES)
        return compare_values(va, vb, tol)
    if FULL_TENSOR in (ma, mb) and FULL_HEALTH in (ma, mb):
        ft, fh = (va, (rb, row_b)) if ma == FULL_TENSOR else (vb, (ra, row_a))
        signs = _finite_signs(ft) if ft is not None else None
        if signs is None:
            return Outcome(R_NONE)
        other = fh[0].signs(kind if fh[0] is ra else kb, fh[1])
        if min(other) < 0:
            return Outcome(R_NONE)
        a_counts, b_counts = (signs, other) if ma == FULL_TENSOR else (other, signs)
        off = any(abs(p - q) > tol.rtol * abs(q) for p, q in zip(a_counts, b_counts,
                                                                strict=True))
        return Outcome(R_COUNTS if off else R_NONE)
    sa, sb = _shape(va, ma), _shape(vb, mb)
    if sa is None or sb is None:
        return Outcome(R_NONE)
    return Outcome(R_NONE if sa == sb else R_SHAPE, shapes=(sa, sb))


Relaid = dict[int, tuple[tuple[int, int] | None, tuple[int, int] | None]]


def record_checks(a: DebugLogdir, b: DebugLogdir, pairs: Pairs, todo: np.ndarray,
                  tol: Tolerance, warn: Callable[[str], None], relaid: Relaid | None = None
                  ) -> None:
    """Read and compare the pairs `todo` (in run A's order), updating `pairs` in place.
    `relaid`: per pair, each side's transposed layout of the same layer output (the run's
    next layer output, `layer_pairing._transposed`), compared instead when the layouts
    differ and it makes them one."""
    ra, rb = RecordReader(a), RecordReader(b)
    for p in todo.tolist():
        kind, row_a, row_b = int(pairs.kind[p]), int(pairs.a_row[p]), int(pairs.b_row[p])
        try:
            got = compare_records(ra, rb, kind, row_a, row_b,
                                  tol.for_step(int(pairs.step[p])), int(pairs.kind_b[p]))
            if got.reason == R_SHAPE and relaid and p in relaid:
                got = _relaid(ra, rb, pairs, p, relaid[p], got, tol)
        except ReaderError as exc:
            pairs.status[p], pairs.reason[p] = SKIPPED, R_UNREADABLE
            warn(f"not compared: {exc}")
            continue
        if (got.reason == R_SHAPE and int(pairs.quantity[p]) == Q_LAYER and got.shapes
                and sorted(got.shapes[0]) == sorted(got.shapes[1])):
            # one layer's output laid out another way (heads split by reshape + transpose
            # against an einsum's [batch, time, heads, depth]): a layout, not values; what
            # it feeds is compared where the layouts meet
            pairs.status[p] = SKIPPED
            warn(f"{pairs.label[p] or 'a layer output'} not compared: laid out "
                 f"{list(got.shapes[0])} in A and {list(got.shapes[1])} in B (a transpose)")
            continue
        pairs.max_abs[p], pairs.max_rel[p], pairs.worst[p] = got.max_abs, got.max_rel, got.worst
        if got.reason != R_NONE and pairs.reason[p] == R_NONE:
            pairs.reason[p] = got.reason
        pairs.status[p] = EQUAL if pairs.reason[p] == R_NONE else DIFFERENT
    _gradients_at_their_scale(ra, rb, pairs, todo, tol)


_GRADIENTS = (Q_GRADIENT, Q_APPLIED)


def _gradients_at_their_scale(ra: RecordReader, rb: RecordReader, pairs: Pairs,
                              todo: np.ndarray, tol: Tolerance) -> None:
    """Judge a gradient found different again at the scale of its step's gradients. A
    gradient is a sum over the batch of the terms backprop multiplies; where they cancel, an
    element — or a whole one-element gradient, a bias of one unit — is near zero, and a
    difference of the weights within the tolerance, propagated through the terms, is far
    above rtol of its own size (an equivalent eager Adam pair: out/bias's gradient, the sum
    of eight terms up to 0.4, cancels to −2.4e-4 and differs by 1.7e-6 at step 1, every
    update agreeing). The rms of all of B's gradients of the step (pooled over their
    elements) is then a floor under each element's scale: a real mistake — a scaled loss, a
    missing term, other clipping — moves a gradient by far more than rtol of that."""
    sel = [p for p in todo.tolist() if int(pairs.quantity[p]) in _GRADIENTS
           and pairs.status[p] != SKIPPED] if len(pairs.quantity) else []
    bad = [p for p in sel if pairs.status[p] == DIFFERENT and pairs.reason[p] == R_VALUES]
    if not bad:
        return
    parts: dict[int, list[tuple[float, int]]] = {}  # step → (rms, size) of B's gradients
    for p in sel:
        try:
            tv = rb.tensor(int(pairs.kind_b[p]), int(pairs.b_row[p]))
        except ReaderError:
            continue
        if tv is not None and tv.dtype in FLOAT_DTYPES and tv.values.size:
            v = tv.values.reshape(-1).astype(np.float64)
            parts.setdefault(int(pairs.step[p]), []).append((_rms(v[np.isfinite(v)]), v.size))
    for p in bad:
        step = int(pairs.step[p])
        t = tol.for_step(step)
        scale = gradient_scale(parts.get(step, []))
        if not t.rtol or not scale:
            continue
        try:
            got = compare_records(ra, rb, int(pairs.kind[p]), int(pairs.a_row[p]),
                                  int(pairs.b_row[p]), replace(t, scale=scale),
                                  int(pairs.kind_b[p]))
        except ReaderError:
            continue
        if got.reason == R_NONE:
            pairs.status[p], pairs.reason[p] = EQUAL, R_NONE


def gradient_scale(parts: list[tuple[float, int]]) -> float:
    """The rms of tensors pooled over their elements, from each one's (rms, size) —
    computed relative to the largest rms, so that squares of big values do not overflow."""
    top = max((r for r, _ in parts), default=0.0)
    n = sum(size for _, size in parts)
    if not top or not n or not np.isfinite(top):
        return 0.0
    return top * float(np.sqrt(sum(size * (r / top) ** 2 for r, size in parts) / n))


def _relaid(ra: RecordReader, rb: RecordReader, pairs: Pairs, p: int,
            alt: tuple[tuple[int, int] | None, tuple[int, int] | None], got: Outcome,
            tol: Tolerance) -> Outcome:
    """A layer pair of two layouts compared as one run lays it out next (its transpose), when
    that makes the layouts one: the pair then stands for the tensors compared."""
    kind, kind_b = int(pairs.kind[p]), int(pairs.kind_b[p])
    here = ((kind, int(pairs.a_row[p])), (kind_b, int(pairs.b_row[p])))
    for x, y in ((alt[0], here[1]), (here[0], alt[1]), (alt[0], alt[1])):
        if x is None or y is None:
            continue
        again = compare_records(ra, rb, x[0], x[1], y[1], tol.for_step(int(pairs.step[p])),
                                y[0])
        if again.reason != R_SHAPE:
            pairs.a_row[p], pairs.b_row[p] = x[1], y[1]
            return again
    return got
