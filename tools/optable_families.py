"""The op table's families: what makes NaN/∞ there, what the recorded input health tells,
and the usual fix (used by tools/make_optable.py, written into reader/diagnosis/optable.json)."""

from __future__ import annotations

# family → what makes NaN/∞ there, what the recorded input health tells, the usual fix
FAMILIES: dict[str, dict[str, str]] = {
    "overflow": {
        "when": "a result beyond the dtype's largest finite value (float16 65504, bfloat16 "
                "and float32 ≈3.4e38): sums, products, dot products, exponential growth, "
                "a cast to a narrower type; NaN follows when an overflow meets its opposite "
                "(∞ − ∞, 0 × ∞)",
        "tells": "finite inputs and a ±∞ output mean it overflowed; the largest input "
                 "magnitudes (FULL_TENSOR) show by how much",
        "fix": "scale the values down, compute in float32, or work in log space",
    },
    "division": {
        "when": "a divisor of 0: x/0 = ±∞, 0/0 = NaN (in float16 a small epsilon added to the "
                "divisor rounds to 0)",
        "tells": "the divisor's zero count (FULL_HEALTH) shows it; the health modes without "
                 "counts cannot",
        "fix": "guard the divisor (tf.math.divide_no_nan, or add an epsilon that the dtype "
               "can hold)",
    },
    "domain": {
        "when": "an input outside the function's domain or at its edge: log of 0 or of a "
                "negative, √ of a negative, acos/asin beyond ±1, atanh at ±1, acosh below 1, "
                "pow of a negative base to a fractional power, incomplete gamma/beta with "
                "a non-positive parameter or a negative argument",
        "tells": "zero and negative counts (FULL_HEALTH) show edges at 0; other edges (±1, 1) "
                 "need the values (FULL_TENSOR)",
        "fix": "clip or shift the input into the open domain (e.g. tf.clip_by_value, "
               "softplus(z) + 1e-6 for a positive parameter)",
    },
    "pole": {
        "when": "an input at a pole of the function: 1/x and rsqrt at 0, lgamma/digamma/"
                "polygamma at 0 and the negative integers, zeta at 1, Bessel K/Y at 0, tan "
                "at odd multiples of π/2",
        "tells": "zero and negative counts (FULL_HEALTH) show poles at 0 and below; the "
                 "values (FULL_TENSOR) show the others",
        "fix": "keep the input away from the pole (e.g. softplus(z) + 1e-6 for a positive "
               "parameter)",
    },
    "singular": {
        "when": "a singular (or numerically singular) matrix: a zero or repeated row or "
                "column, a covariance of fewer samples than dimensions, a zero on a "
                "triangular factor's diagonal — the log-determinant is −∞, solves and "
                "inverses divide by 0",
        "tells": "the recorded health shows the matrix finite, not whether it is singular; "
                 "FULL_TENSOR values do (its rank)",
        "fix": "add jitter on the diagonal (+ 1e-6·I), or drop the constant/duplicated "
               "features",
    },
    "not_positive_definite": {
        "when": "a matrix that is not positive definite (an indefinite or singular "
                "'covariance' or kernel matrix): the Cholesky factorisation takes √ of a "
                "non-positive pivot, NaN",
        "tells": "the recorded health shows the matrix finite, not its eigenvalues",
        "fix": "add jitter on the diagonal (+ 1e-6·I), or build the matrix from a valid "
               "kernel / as A·Aᵀ",
    },
    "empty": {
        "when": "a reduction over no elements: the mean of nothing is 0/0 = NaN, the max −∞, "
                "the min +∞, a batch normalisation of an empty batch NaN",
        "tells": "an input of size 0 is visible in every health mode",
        "fix": "skip the term when nothing is selected, or divide a sum by a count with "
               "tf.math.divide_no_nan",
    },
    "alignment": {
        "when": "no valid alignment: a CTC label sequence longer than its logit length "
                "allows (each repeated label needs a blank between), so the loss is +∞",
        "tells": "the float logits are recorded; the integer labels and lengths that decide "
                 "it are not traced in the health modes (they cannot hold NaN)",
        "fix": "make logit_length ≥ label length + repeats, drop such examples, or pass "
               "ignore_longer_outputs_than_inputs=True (tf.compat.v1.nn.ctc_loss)",
    },
    "gradient": {
        "when": "a backward op at a point where the forward op's derivative is infinite "
                "(√ or rsqrt at 0, 1/x at 0, a pole) or where the backward products overflow",
        "tells": "the forward op's recorded values show the singular point; the gradient's "
                 "own inputs alone often cannot",
        "fix": "fix the forward computation at that point (add an epsilon, or make the "
               "value safe before the op)",
    },
    "optimizer": {
        "when": "an update that divides by the square root of an accumulator (Adam, RMSProp, "
                "Adagrad, Adadelta, FTRL): an accumulator of 0 with an epsilon lost in "
                "float16 gives 0/0; or the update overflows",
        "tells": "the gradient's and the slots' health show which; a NaN gradient makes a "
                 "NaN update",
        "fix": "keep optimizer slots in float32 (mixed precision's LossScaleOptimizer), use "
               "an epsilon the dtype can hold",
    },
    "parse": {
        "when": "values read from text or bytes: 'nan'/'inf' in the text, or bit patterns "
                "that are NaN/∞ — the data carries it",
        "tells": "the parsed output's health; the raw bytes are not recorded",
        "fix": "clean the source data, or filter the parsed values with tf.math.is_finite",
    },
    "quantization": {
        "when": "a quantisation range whose minimum equals its maximum (scale 0), or values "
                "far outside it",
        "tells": "the range inputs' health; their equality needs FULL_TENSOR",
        "fix": "make sure min < max (e.g. from a calibration set that is not constant)",
    },
}
