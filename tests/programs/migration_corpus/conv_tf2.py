"""TF2 side of the conv pairs: conv_tf1.py's network rewritten with Keras layers.

Usage: python conv_tf2.py LOGDIR --variant V     (LOGDIR '-': print the trace, no dump)

Each variant is one pair's rewrite (EXPECTATIONS.md: against which TF1 variant); its form is
in FORMS. Lines: `# BUG:<variant>` where the mistake is written, `# CALL:<name>` where the code
runs. Weights: each layer built, then `set_weights` (eager / tf.function), or a
`tf.train.Checkpoint` an earlier run wrote, restored into the built model (fit).
"""

import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tensorflow as tf
from corpus_common import SEED, STEPS, conv_data, emit, parse, start, stop

FORMS = {
    "convbn_eager": "eager", "convbn_fit": "fit", "convbn_fn": "function",
    "flatten_channels_first": "eager", "bn_momentum": "function", "bn_epsilon": "eager",
    "bn_training_false": "function", "restore_missing": "eager", "mixed_float16": "eager",
    "bninf_eager": "eager", "bninf_fit": "fit", "bninf_fn": "function",
}
logdir, variant = parse(tuple(FORMS))
form = FORMS[variant]
frozen_bn = variant.startswith("bninf") and variant != "bninf_fit"
data = conv_data()
tf.keras.utils.set_random_seed(SEED)
if variant == "mixed_float16":
    tf.keras.mixed_precision.set_global_policy("mixed_float16")  # BUG:mixed_float16
ACTS = {}


class ConvNet(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.conv = tf.keras.layers.Conv2D(4, 3, padding="valid")
        self.bn = tf.keras.layers.BatchNormalization(momentum=0.99 if variant == "bn_momentum" else 0.9, epsilon=1e-5)  # BUG:bn_momentum  # noqa: E501
        if variant == "bn_epsilon":
            self.bn = tf.keras.layers.BatchNormalization(momentum=0.9)  # BUG:bn_epsilon
        self.relu = tf.keras.layers.ReLU()
        self.flatten = tf.keras.layers.Flatten(data_format="channels_first" if variant == "flatten_channels_first" else "channels_last")  # BUG:flatten_channels_first  # noqa: E501
        self.fc = tf.keras.layers.Dense(3)

    def call(self, x, training=False):
        ACTS["conv"] = h = self.conv(x)  # CALL:conv
        ACTS["bn"] = h = self.bn(h, training=False if frozen_bn else training)  # CALL:bn  # BUG:bninf_fit  # noqa: E501
        ACTS["relu"] = h = self.relu(h)  # CALL:relu
        ACTS["flatten"] = h = self.flatten(h)  # CALL:flatten
        ACTS["logits"] = logits = self.fc(h)  # CALL:logits
        return logits


SHAPES = (("conv", "conv", (None, 6, 6, 2)), ("bn", "bn", (None, 4, 4, 4)),
          ("logits", "fc", (None, 64)))


def build_and_set(m):
    for _prefix, attr, shape in SHAPES:
        getattr(m, attr).build(shape)  # CALL:build
    restore = SHAPES[:2] if variant == "restore_missing" else SHAPES  # BUG:restore_missing
    for prefix, attr, _shape in restore:
        layer = getattr(m, attr)
        layer.set_weights([data[f"{prefix}/{w.name}"] for w in layer.weights])  # CALL:restore


model = ConvNet()
optimizer = tf.keras.optimizers.SGD(0.1)
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
if form == "fit":
    # the checkpoint of an earlier run (written before this run's recording starts)
    saved = ConvNet()
    build_and_set(saved)
    ckpt = tf.train.Checkpoint(model=saved).write(os.path.join(tempfile.mkdtemp(), "ckpt"))

start(logdir)
if form == "fit":
    for _prefix, attr, shape in SHAPES:
        getattr(model, attr).build(shape)  # CALL:build
    tf.train.Checkpoint(model=model).read(ckpt).assert_consumed()  # CALL:restore
else:
    build_and_set(model)
layers = [(prefix, getattr(model, attr)) for prefix, attr, _ in SHAPES]
names = [f"{p}/{w.name}" for p, layer in layers for w in layer.trainable_weights]


def snapshot():
    return dict(zip(names, (v.numpy() for v in model.trainable_variables), strict=True))


def bn_state():
    return {"bn/moving_mean": model.bn.moving_mean.numpy(),
            "bn/moving_variance": model.bn.moving_variance.numpy()}


def train_step(x, y):
    with tf.GradientTape() as tape:
        logits = model(x, training=variant != "bn_training_false")  # CALL:forward  # BUG:bn_training_false  # noqa: E501
        loss = loss_fn(y, logits)  # CALL:loss
    grads = tape.gradient(loss, model.trainable_variables)  # CALL:grads
    optimizer.apply_gradients(zip(grads, model.trainable_variables, strict=True))  # CALL:update
    return {"loss": loss, "total_loss": loss, "layer_output": dict(ACTS),
            "gradient": dict(zip(names, grads, strict=True))}


trace = []
if form == "fit":
    model.compile(optimizer=optimizer, loss=loss_fn, jit_compile=False)
    dataset = tf.data.Dataset.from_tensors((data["x"], data["y"]))

    class Trace(tf.keras.callbacks.Callback):
        def on_train_batch_begin(self, batch, logs=None):
            trace.append({"variable": snapshot()})

        def on_train_batch_end(self, batch, logs=None):
            trace[-1].update(variable_after=snapshot(), total_loss=float(logs["loss"]),
                             state=bn_state())

    callbacks = [Trace()] if logdir == "-" else []
    model.fit(dataset, epochs=STEPS, shuffle=False, verbose=0, callbacks=callbacks)  # CALL:fit
else:
    step_fn = tf.function(train_step) if form == "function" else train_step
    for _step in range(STEPS):
        before = snapshot() if logdir == "-" else None
        logs = step_fn(data["x"], data["y"])
        if logdir == "-":
            trace.append({**logs, "variable": before, "learning_rate": 0.1,
                          "applied_gradient": logs["gradient"],
                          "variable_after": snapshot(), "state": bn_state()})
stop(logdir)
if logdir == "-":
    emit(trace)
