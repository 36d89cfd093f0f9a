"""tf1_twoopt.py as a Keras Model subclass trained by Model.fit: Dense(5, tanh) encoder,
Dense(3) head; train_step overridden to apply two optimizers (Adam at 0.01 with TF1's epsilon
for the encoder, SGD with momentum 0.9 at 0.1 for the head) to a KLDivergence on the head's
softmax, as Keras' GAN example does. The TF1 weights from the saved arrays.

python tf2_twoopt_kl_swap_fit.py DATA_DIR     (DATA_DIR/twoopt.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "twoopt.npz")))
NAMES = ["encoder/kernel", "encoder/bias", "head/kernel", "head/bias"]


class TwoOptimizerModel(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.encoder = tf.keras.layers.Dense(5, activation="tanh", name="encoder")  # CALL:encoder
        self.head = tf.keras.layers.Dense(3, name="head")  # CALL:head
        self.kl = tf.keras.losses.KLDivergence()  # CALL:loss

    def call(self, x):
        return self.head(self.encoder(x))

    def compile(self, encoder_optimizer, head_optimizer):
        super().compile()
        self.encoder_optimizer = encoder_optimizer
        self.head_optimizer = head_optimizer

    def train_step(self, data):
        x, target = data
        with tf.GradientTape() as tape:
            loss = self.kl(tf.nn.softmax(self(x, training=True)), target)  # BUG:twoopt_kl_swap_fit
        encoder_grads, head_grads = tape.gradient(loss, [self.encoder.trainable_variables, self.head.trainable_variables])  # CALL:grads
        self.encoder_optimizer.apply_gradients(zip(encoder_grads, self.encoder.trainable_variables))  # CALL:update
        self.head_optimizer.apply_gradients(zip(head_grads, self.head.trainable_variables))  # CALL:update
        return {"kl": loss}  # "loss" would be the compiled loss tracker's (never updated here)


model = TwoOptimizerModel()
model(saved["x"][:1])  # builds the layers
model.set_weights([saved[n] for n in NAMES])  # CALL:restore
model.compile(encoder_optimizer=tf.keras.optimizers.Adam(learning_rate=0.01, epsilon=1e-8),  # CALL:opt
              head_optimizer=tf.keras.optimizers.SGD(learning_rate=0.1, momentum=0.9))  # CALL:opt
history = model.fit(saved["x"], saved["y"], batch_size=6, epochs=3, shuffle=False, verbose=0)  # CALL:fit
for step, value in enumerate(history.history["kl"]):
    print("step %d loss %.6f" % (step, value))
if os.environ.get("BLIND3_TRACE"):
    print("trace", json.dumps({"loss": history.history["kl"], "weights": {
        n: w.tolist() for n, w in zip(NAMES, model.get_weights())}}))
