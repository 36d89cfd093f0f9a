"""TF2 side of the sequence pairs: rnn_tf1.py's model rewritten with Keras layers.

Usage: python rnn_tf2.py LOGDIR --variant V     (LOGDIR '-': print the trace, no dump)

V  rnn_eager      Embedding → SimpleRNN(5) → Dense(3), SGD(0.1, momentum=0.9), train_step run
                  eagerly; weights by build + set_weights
   rnn_fit        the same trained by Model.fit; weights read from the TF1 run's checkpoint
                  (tf.train.load_checkpoint) and assigned variable by variable
   rnn_mask_zero  Embedding(mask_zero=True): id 0 is a real token in this data, but Keras now
                  treats it as padding and the RNN skips those time steps; train_step in
                  tf.function
Lines: `# BUG:<variant>` where the mistake is written, `# CALL:<name>` where the code runs.
"""

import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tensorflow as tf
from corpus_common import SEED, STEPS, emit, parse, rnn_data, start, stop, write_tf1_checkpoint

FORMS = {"rnn_eager": "eager", "rnn_fit": "fit", "rnn_mask_zero": "function"}
logdir, variant = parse(tuple(FORMS))
form = FORMS[variant]
data = rnn_data()
tf.keras.utils.set_random_seed(SEED)
ACTS = {}


class SeqNet(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.embedding = tf.keras.layers.Embedding(8, 4, mask_zero=variant == "rnn_mask_zero")  # BUG:rnn_mask_zero  # noqa: E501
        self.rnn = tf.keras.layers.SimpleRNN(5)
        self.fc = tf.keras.layers.Dense(3)

    def call(self, x, training=False):
        ACTS["embedding"] = h = self.embedding(x)  # CALL:embedding
        ACTS["rnn"] = h = self.rnn(h)  # CALL:rnn
        ACTS["logits"] = logits = self.fc(h)  # CALL:logits
        return logits


model = SeqNet()
optimizer = tf.keras.optimizers.SGD(0.1, momentum=0.9)
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
LAYERS = (("embedding", "embedding", (None, 5)), ("rnn", "rnn", (None, 5, 4)),
          ("logits", "fc", (None, 5)))
NAMES = ["embedding/embeddings", "rnn/kernel", "rnn/recurrent_kernel", "rnn/bias",
         "logits/kernel", "logits/bias"]
if form == "fit":
    # the TF1 run's checkpoint (written before this run's recording starts)
    ckpt = write_tf1_checkpoint({n: data[n] for n in NAMES}, tempfile.mkdtemp())

start(logdir)
for _prefix, attr, shape in LAYERS:
    getattr(model, attr).build(shape)  # CALL:build
if form == "fit":
    reader = tf.train.load_checkpoint(ckpt)
    for name, variable in zip(NAMES, model.trainable_variables, strict=True):
        variable.assign(reader.get_tensor(name))  # CALL:restore
else:
    for prefix, attr, _ in LAYERS:
        layer = getattr(model, attr)
        layer.set_weights([data[f"{prefix}/{w.name}"] for w in layer.weights])  # CALL:restore


def snapshot():
    return dict(zip(NAMES, (v.numpy() for v in model.trainable_variables), strict=True))


def train_step(x, y):
    with tf.GradientTape() as tape:
        logits = model(x, training=True)  # CALL:forward
        loss = loss_fn(y, logits)  # CALL:loss
    grads = tape.gradient(loss, model.trainable_variables)  # CALL:grads
    optimizer.apply_gradients(zip(grads, model.trainable_variables, strict=True))  # CALL:update
    return {"loss": loss, "total_loss": loss, "layer_output": dict(ACTS),
            "gradient": dict(zip(NAMES, grads, strict=True))}


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
        logs = step_fn(data["x"], data["y"])
        if logdir == "-":
            trace.append({**logs, "variable": before, "learning_rate": 0.1,
                          "applied_gradient": logs["gradient"], "variable_after": snapshot()})
stop(logdir)
if logdir == "-":
    emit(trace)
