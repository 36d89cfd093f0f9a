"""tf1_mha.py in Keras: a Model subclass with MultiHeadAttention(num_heads=2, key_dim=2), the
residual, a Dense feed-forward with the tanh-approximated gelu, GlobalAveragePooling1D and the
classifier; Adadelta with TF1's rho and epsilon; the train step in tf.function. The TF1
weights from the saved arrays (Keras keeps a head axis: (4, 4) -> (4, 2, 2)).

python tf2_mha_fn.py DATA_DIR     (DATA_DIR/mha.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

HEADS, KEY_DIM, D = 2, 2, 4
saved = dict(np.load(os.path.join(sys.argv[1], "mha.npz")))


class AttentionClassifier(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.attention = tf.keras.layers.MultiHeadAttention(num_heads=HEADS, key_dim=KEY_DIM)  # CALL:attention
        self.ffn = tf.keras.layers.Dense(6, activation=lambda t: tf.keras.activations.gelu(t, approximate=True))  # CALL:ffn
        self.pool = tf.keras.layers.GlobalAveragePooling1D()
        self.classifier = tf.keras.layers.Dense(3)  # CALL:logits

    def call(self, x):
        h = x + self.attention(x, x)  # CALL:attention
        return self.classifier(self.pool(self.ffn(h)))  # CALL:ffn CALL:logits


model = AttentionClassifier()
model(saved["x"][:1])  # CALL:build
model.attention.set_weights([  # CALL:restore
    saved["query/kernel"].reshape(D, HEADS, KEY_DIM), saved["query/bias"].reshape(HEADS, KEY_DIM),
    saved["key/kernel"].reshape(D, HEADS, KEY_DIM), saved["key/bias"].reshape(HEADS, KEY_DIM),
    saved["value/kernel"].reshape(D, HEADS, KEY_DIM), saved["value/bias"].reshape(HEADS, KEY_DIM),
    saved["output/kernel"].reshape(HEADS, KEY_DIM, D), saved["output/bias"],
])
model.ffn.set_weights([saved["ffn/kernel"], saved["ffn/bias"]])  # CALL:restore
model.classifier.set_weights([saved["classifier/kernel"], saved["classifier/bias"]])  # CALL:restore

optimizer = tf.keras.optimizers.Adadelta(learning_rate=1.0, rho=0.95, epsilon=1e-8)  # CALL:opt
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = loss_fn(y, model(x, training=True))  # CALL:loss
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    return loss


losses = []
for step in range(3):
    value = train_step(saved["x"], saved["y"])
    print("step", step, "loss", float(value))
    losses.append(float(value))
if os.environ.get("BLIND_TRACE"):
    w = model.attention.get_weights() + model.ffn.get_weights() + model.classifier.get_weights()
    names = ["query/kernel", "query/bias", "key/kernel", "key/bias", "value/kernel", "value/bias",
             "output/kernel", "output/bias", "ffn/kernel", "ffn/bias", "classifier/kernel", "classifier/bias"]
    print("trace", json.dumps({"loss": losses, "weights": {
        n: a.reshape(saved[n].shape).tolist() for n, a in zip(names, w)}}))
