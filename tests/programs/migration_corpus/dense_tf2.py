"""TF2 side of the dense pairs: the 5-6-3 MLP of dense_tf1.py rewritten with Keras.

Usage: python dense_tf2.py LOGDIR --variant V     (LOGDIR '-': print the trace, no dump)

Each variant is one pair's rewrite (EXPECTATIONS.md says which TF1 variant it is measured
against). Its form — a train_step run eagerly, the same wrapped in tf.function, or Model.fit —
is in FORMS. Lines: `# BUG:<variant>` where the mistake is written, `# CALL:<name>` where the
code runs (a Keras object built in one place runs its ops where it is called).

Weights: `layer.build` then `set_weights` (eager / tf.function), or `model.load_weights` of a
weights file an earlier run saved (fit). The debug run turns dropout off by calling the model
with training=False, as the migration guide advises; `fit` always trains with training=True.
"""

import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tensorflow as tf
from corpus_common import (
    CLIP_NORM,
    CLIP_VALUE,
    SEED,
    STEPS,
    WEIGHT_DECAY,
    dense_data,
    emit,
    parse,
    start,
    stop,
)

FORMS = {
    "sgd_eager": "eager", "sgd_fit": "fit", "sgd_nobias": "function", "sgd_tanh": "eager",
    "sgd_from_logits": "function", "sgd_onehot": "function", "sgd_sum_reduction": "eager",
    "nesterov_fn": "function", "nesterov_missing": "eager", "exp_no_staircase": "function",
    "nesterov_fit": "fit",
    "adam_eager": "eager", "adam_epsilon": "function", "adam_fit_dropout": "fit",
    "rmsprop_defaults": "eager",
    "adagrad_clipvalue": "function", "adagrad_clipnorm": "eager",
    "l2clip_eager": "eager", "l2clip_fit": "fit", "l2_whole": "function",
    "clipnorm_per_tensor": "eager", "clip_in_step": "function",
    "adamw_eager": "eager", "adamw_no_lr": "function",
}
logdir, variant = parse(tuple(FORMS))
form = FORMS[variant]
family = ("sgd" if variant.startswith("sgd") else
          "adam" if variant.startswith("adam_") else
          "l2clip" if variant.startswith(("l2", "clip", "exp")) else variant.split("_")[0])
data = dense_data()
tf.keras.utils.set_random_seed(SEED)
ACTS = {}  # layer outputs of the last call, for the guide's logging


class MLP(tf.keras.Model):
    def __init__(self):
        super().__init__()
        reg = None
        if family == "l2clip":
            reg = tf.keras.regularizers.l2(0.01 if variant == "l2_whole" else 0.005)  # BUG:l2_whole
        self.hidden = tf.keras.layers.Dense(6, activation="tanh" if variant == "sgd_tanh" else "relu", kernel_regularizer=reg)  # BUG:sgd_tanh  # noqa: E501
        self.drop = tf.keras.layers.Dropout(0.5) if family == "adam" else None
        self.out = tf.keras.layers.Dense(3, use_bias=variant != "sgd_nobias", kernel_regularizer=reg)  # BUG:sgd_nobias  # noqa: E501

    def call(self, x, training=False):
        h = self.hidden(x)  # CALL:hidden
        ACTS["hidden"] = h
        if self.drop is not None:
            h = self.drop(h, training=training)  # CALL:dropout
            ACTS["dropout"] = h
        logits = self.out(h)  # CALL:logits
        ACTS["logits"] = logits
        return logits


def make_optimizer():
    if family == "sgd":
        return tf.keras.optimizers.SGD(0.1)
    if family == "nesterov":
        return tf.keras.optimizers.SGD(0.1, momentum=0.9, nesterov=variant != "nesterov_missing")  # BUG:nesterov_missing  # noqa: E501
    if family == "adam":
        if variant == "adam_epsilon":
            return tf.keras.optimizers.Adam(0.01)  # BUG:adam_epsilon
        return tf.keras.optimizers.Adam(0.01, epsilon=1e-3)
    if family == "rmsprop":
        return tf.keras.optimizers.RMSprop(0.01, rho=0.9, epsilon=1e-10)  # BUG:rmsprop_defaults
    if family == "adagrad":
        if variant == "adagrad_clipnorm":
            return tf.keras.optimizers.Adagrad(0.1, initial_accumulator_value=0.1, clipnorm=CLIP_VALUE)  # BUG:adagrad_clipnorm  # noqa: E501
        return tf.keras.optimizers.Adagrad(0.1, initial_accumulator_value=0.1, clipvalue=CLIP_VALUE)
    if family == "l2clip":
        schedule = tf.keras.optimizers.schedules.ExponentialDecay(0.1, decay_steps=2, decay_rate=0.5, staircase=variant != "exp_no_staircase")  # BUG:exp_no_staircase  # noqa: E501
        if variant == "clip_in_step":
            return tf.keras.optimizers.SGD(schedule)
        if variant == "clipnorm_per_tensor":
            return tf.keras.optimizers.SGD(schedule, clipnorm=CLIP_NORM)  # BUG:clipnorm_per_tensor
        return tf.keras.optimizers.SGD(schedule, global_clipnorm=CLIP_NORM)
    wd = WEIGHT_DECAY if variant == "adamw_no_lr" else WEIGHT_DECAY / 0.01
    return tf.keras.optimizers.AdamW(0.01, weight_decay=wd, epsilon=1e-8)  # BUG:adamw_no_lr


model = MLP()
optimizer = make_optimizer()
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=variant != "sgd_from_logits")  # BUG:sgd_from_logits  # noqa: E501
if variant == "sgd_onehot":  # one-hot labels and the categorical loss: the same cross entropy
    loss_fn = tf.keras.losses.CategoricalCrossentropy(from_logits=True)
elif variant == "sgd_sum_reduction":
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True, reduction="sum")  # BUG:sgd_sum_reduction  # noqa: E501
layers = [("hidden", model.hidden), ("logits", model.out)]

if form == "fit":
    # the weights an earlier run saved (written before this run's recording starts)
    saved = MLP()
    saved(data["x"][:1])
    saved.hidden.set_weights([data["hidden/kernel"], data["hidden/bias"]])
    saved.out.set_weights([data["logits/kernel"], data["logits/bias"]])
    weights_file = os.path.join(tempfile.mkdtemp(), "mlp.weights.h5")
    saved.save_weights(weights_file)

start(logdir)
if form == "fit":
    model(data["x"][:1])  # CALL:build
    model.load_weights(weights_file)  # CALL:restore
else:
    for name, layer in layers:
        layer.build((None, 5 if name == "hidden" else 6))  # CALL:build
        layer.set_weights([data[f"{name}/{w.name}"] for w in layer.weights])  # CALL:restore
names = [f"{n}/{w.name}" for n, layer in layers for w in layer.trainable_weights]


def snapshot():
    return dict(zip(names, (v.numpy() for v in model.trainable_variables), strict=True))


def train_step(x, y):
    with tf.GradientTape() as tape:
        logits = model(x, training=False)  # CALL:forward
        labels = tf.one_hot(y, 3) if variant == "sgd_onehot" else y
        loss = loss_fn(labels, logits)  # CALL:loss
        total = loss + tf.add_n(model.losses) if model.losses else loss  # CALL:reg
    grads = tape.gradient(total, model.trainable_variables)  # CALL:grads
    applied = grads
    if variant == "clip_in_step":
        applied, _ = tf.clip_by_global_norm(grads, CLIP_NORM)  # CALL:clip
    logs = {"loss": loss, "total_loss": total, "layer_output": dict(ACTS),
            "gradient": dict(zip(names, grads, strict=True))}
    if logdir == "-":  # what apply_gradients applies (its clipping), for verify.py only
        clipped = optimizer._clip_gradients(applied)
        logs["applied_gradient"] = dict(zip(names, clipped, strict=True))
        if model.losses:
            logs["regularization"] = tf.add_n(model.losses)
    optimizer.apply_gradients(zip(applied, model.trainable_variables, strict=True))  # CALL:update
    return logs


trace = []
if form == "fit":
    model.compile(optimizer=optimizer, loss=loss_fn, jit_compile=False)
    dataset = tf.data.Dataset.from_tensors((data["x"], data["y"]))

    class Trace(tf.keras.callbacks.Callback):
        def on_train_batch_begin(self, batch, logs=None):
            trace.append({"variable": snapshot()})

        def on_train_batch_end(self, batch, logs=None):
            trace[-1].update(variable_after=snapshot(), total_loss=float(logs["loss"]))

    callbacks = [Trace()] if logdir == "-" else []
    model.fit(dataset, epochs=STEPS, shuffle=False, verbose=0, callbacks=callbacks)  # CALL:fit
else:
    step_fn = tf.function(train_step) if form == "function" else train_step
    for _step in range(STEPS):
        before = snapshot() if logdir == "-" else None
        lr = float(optimizer.learning_rate) if logdir == "-" else None
        logs = step_fn(data["x"], data["y"])
        if logdir == "-":
            trace.append({**logs, "variable": before, "learning_rate": lr,
                          "variable_after": snapshot()})
stop(logdir)
if logdir == "-":
    emit(trace)
