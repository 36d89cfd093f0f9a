"""An eager training loop (no tf.function) whose user logs each step after its update.

Usage: python eager_logged_steps.py LOGDIR FORM

A linear regression y ≈ (x − centre)·w + b, trained STEPS steps by SGD on batches of BATCH
rows, each iteration in the order users write it:
1. the batch: `tf.range` of its rows, `tf.gather` of them (eager ops);
2. a running centre of the inputs carried from step to step (`centre` is the previous
   step's tensor: the next forward pass reads what the step before made);
3. the forward pass and loss under a GradientTape, `tape.gradient`;
4. the update, then (or, in `hand_before`, before it) the user's logging.

FORM:
- keras: `tf.keras.optimizers.SGD.apply_gradients`, then `ppl = tf.exp(loss)` logged;
- hand_after: `w.assign_sub(LR * g)` by hand, then `ppl = tf.exp(loss)` logged;
- hand_before: the same, the perplexity logged before the update;
- metric: Keras SGD, then a `tf.keras.metrics.Mean` of `tf.exp(loss)` updated and read;
- nan_batch: Keras SGD, batch BAD's inputs hold a NaN, `tf.reduce_mean(loss)` logged;
- prefetch: Keras SGD, the next batch gathered right after the update, then `tf.exp(loss)`
  logged (the next step's data comes before this step's logging);
- lr_decay: as keras, with the learning rate decayed at the top of each iteration, before
  its batch (`opt.learning_rate = opt.learning_rate * 0.9`: a read, a Mul and a write that
  feed nothing of the forward pass, only the step's update).

In every form but nan_batch, batch BAD's targets are in the wrong units (×1000): its loss is
finite (~1e6) and so are its gradients and update (LR is small), but the logged perplexity
exp(loss) overflows float32 (loss > 88.72): the run's first ∞ is that step's logging, after
its update — step BAD, not BAD + 1. Every other step's loss is far below 88.72 (`losses`,
the numpy proof, replays the training). In nan_batch the first NaN is batch BAD's gather.
"""

from __future__ import annotations

import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np

STEPS, BAD, BATCH, FEATURES = 6, 3, 16, 4
LR = 1e-5
FORMS = ("keras", "hand_after", "hand_before", "metric", "nan_batch", "prefetch", "lr_decay")


def make_data(form: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Inputs, targets and the initial weights; batch BAD is the bad one."""
    rng = np.random.default_rng(11)
    x = rng.normal(size=(STEPS * BATCH, FEATURES)).astype(np.float32)
    y = (x @ rng.normal(size=(FEATURES, 1)) + 0.5).astype(np.float32)
    w0 = rng.normal(scale=0.1, size=(FEATURES, 1)).astype(np.float32)
    rows = slice(BAD * BATCH, (BAD + 1) * BATCH)
    if form == "nan_batch":
        x[BAD * BATCH + 2, 1] = np.nan
    else:
        y[rows] *= 1000.0
    return x, y, w0


def losses(form: str) -> list[float]:
    """The numpy proof: each step's loss, the training replayed in float32 (the same
    centre, forward pass, gradients and SGD update)."""
    x, y, w = make_data(form)
    b = np.float32(0.0)
    centre = np.zeros(FEATURES, np.float32)
    out = []
    for s in range(STEPS):
        lr = np.float32(LR * 0.9 ** (s + 1) if form == "lr_decay" else LR)
        xb, yb = x[s * BATCH:(s + 1) * BATCH], y[s * BATCH:(s + 1) * BATCH]
        centre = np.float32(0.9) * centre + np.float32(0.1) * xb.mean(0)
        xc = xb - centre
        err = xc @ w + b - yb
        out.append(float(np.mean(err * err)))
        gw = np.float32(2.0 / BATCH) * xc.T @ err
        gb = np.float32(2.0) * err.mean()
        w, b = w - lr * gw, b - lr * gb
    return out


def main() -> None:
    logdir, form = sys.argv[1], sys.argv[2]
    import tensorflow as tf

    x, y, w0 = make_data(form)
    tf.debugging.experimental.enable_dump_debug_info(
        logdir, tensor_debug_mode="FULL_HEALTH", circular_buffer_size=-1)
    xs, ys = tf.constant(x), tf.constant(y)
    w, b = tf.Variable(w0, name="w"), tf.Variable(0.0, name="b")
    opt = tf.keras.optimizers.SGD(LR)
    ppl_metric = tf.keras.metrics.Mean(name="ppl")
    centre = tf.zeros([FEATURES])

    def batch(step: int) -> tuple[tf.Tensor, tf.Tensor]:
        rows = tf.range(step * BATCH, (step + 1) * BATCH)
        return tf.gather(xs, rows), tf.gather(ys, rows)

    ready = batch(0) if form == "prefetch" else None
    for step in range(STEPS):
        if form == "lr_decay":
            opt.learning_rate = opt.learning_rate * 0.9  # decayed before the step's batch
        xb, yb = ready if ready is not None else batch(step)
        centre = 0.9 * centre + 0.1 * tf.reduce_mean(xb, 0)
        with tf.GradientTape() as tape:
            err = tf.matmul(xb - centre, w) + b - yb
            loss = tf.reduce_mean(tf.square(err))
        grads = tape.gradient(loss, [w, b])
        if form == "hand_before":
            ppl = tf.exp(loss)  # the perplexity, logged before the update
            print(f"step {step}: loss {float(loss):.4g} ppl {float(ppl):.4g}")
        if form.startswith("hand"):
            for var, g in zip([w, b], grads, strict=True):
                var.assign_sub(LR * g)
        else:
            opt.apply_gradients(zip(grads, [w, b], strict=True))
        if form in ("keras", "hand_after", "lr_decay"):
            ppl = tf.exp(loss)  # the perplexity, logged after the update
            print(f"step {step}: loss {float(loss):.4g} ppl {float(ppl):.4g}")
        elif form == "metric":
            ppl_metric.update_state(tf.exp(loss))  # a running perplexity
            print(f"step {step}: ppl so far {float(ppl_metric.result()):.4g}")
        elif form == "prefetch":
            ready = batch(step + 1) if step + 1 < STEPS else None  # the next batch first
            ppl = tf.exp(loss)  # then this step's perplexity
            print(f"step {step}: loss {float(loss):.4g} ppl {float(ppl):.4g}")
        elif form == "nan_batch":
            shown = tf.reduce_mean(loss)
            print(f"step {step}: loss {shown.numpy():.4g}")
    tf.debugging.experimental.disable_dump_debug_info()


if __name__ == "__main__":
    main()
