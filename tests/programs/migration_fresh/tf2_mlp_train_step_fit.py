"""tf1_mlp_smooth.py as a tf.keras.Model subclass that overrides train_step, trained by
Model.fit with sample weights: the step calls the model with training=False (dropout off for
this debugging run), adds the L2 kernel penalties (l2(5e-4) = 1e-3 * tf.nn.l2_loss) and lets
the compiled optimizer apply the gradients.

python tf2_mlp_train_step_fit.py [DATA_DIR]     (DATA_DIR unused)
"""
import json
import os

import numpy as np
import tensorflow as tf

rng = np.random.RandomState(818)
inputs = rng.normal(size=(6, 6)).astype(np.float32)
onehot = np.eye(4, dtype=np.float32)[[3, 0, 1, 2, 3, 1]]
example_weights = np.array([1.0, 0.5, 2.0, 1.0, 1.5, 0.5], dtype=np.float32)
saved = [rng.normal(0.0, 0.4, size=(6, 10)), rng.normal(0.0, 0.1, size=(10,)),
         rng.normal(0.0, 0.4, size=(10, 4)), rng.normal(0.0, 0.1, size=(4,))]
saved = [a.astype(np.float32) for a in saved]


class SmoothMLP(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.hidden = tf.keras.layers.Dense(10, activation="relu", kernel_regularizer=tf.keras.regularizers.l2(5e-4))  # CALL:hidden_layer
        self.dropout = tf.keras.layers.Dropout(0.3)
        self.out = tf.keras.layers.Dense(4, kernel_regularizer=tf.keras.regularizers.l2(5e-4))  # CALL:logits_layer
        self.loss_fn = tf.keras.losses.CategoricalCrossentropy(from_logits=True, label_smoothing=0.1)  # CALL:loss_object

    def call(self, x, training=False):
        h = self.hidden(x)  # CALL:hidden
        h = self.dropout(h, training=training)  # CALL:dropout
        return self.out(h)  # CALL:logits

    def train_step(self, data):
        x, y, sample_weight = data
        with tf.GradientTape() as tape:
            logits = self(x, training=False)  # CALL:forward
            data_loss = self.loss_fn(y, logits, sample_weight=sample_weight)  # CALL:loss
            loss = data_loss + tf.add_n(self.losses)  # CALL:reg
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))  # CALL:update
        return {"total_loss": loss}


model = SmoothMLP()
model(inputs[:1])  # CALL:build
model.set_weights(saved)  # CALL:restore
model.compile(optimizer=tf.keras.optimizers.SGD(learning_rate=0.05, momentum=0.9))  # CALL:opt
history = model.fit(inputs, onehot, sample_weight=example_weights, batch_size=6, epochs=3, shuffle=False, verbose=0)  # CALL:fit
for step, value in enumerate(history.history["total_loss"]):
    print("step %d loss %.7f" % (step, value))
if os.environ.get("FRESH_TRACE"):
    names = ["hidden/kernel", "hidden/bias", "out/kernel", "out/bias"]
    print("trace", json.dumps({"loss": [float(v) for v in history.history["total_loss"]], "weights": {
        n: w.tolist() for n, w in zip(names, model.get_weights())}}))
