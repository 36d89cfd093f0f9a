"""tf1_attention.py in Keras: MultiHeadAttention(num_heads=1) + residual, pooled, classified;
SGD with ExponentialDecay and clipvalue; train step in tf.function.

python tf2_attention_fn.py [DATA_DIR]     (DATA_DIR unused)
"""
import json
import os

import numpy as np
import tensorflow as tf

D, K = 6, 4
rng = np.random.RandomState(404)
tokens = rng.normal(size=(3, 4, D)).astype(np.float32)
labels = np.array([1, 0, 1], dtype=np.int32)
weights = {
    "query/kernel": rng.normal(0, 0.5, (D, K)), "query/bias": rng.normal(0, 0.1, (K,)),
    "key/kernel": rng.normal(0, 0.5, (D, K)), "key/bias": rng.normal(0, 0.1, (K,)),
    "value/kernel": rng.normal(0, 0.5, (D, K)), "value/bias": rng.normal(0, 0.1, (K,)),
    "output/kernel": rng.normal(0, 0.5, (K, D)), "output/bias": rng.normal(0, 0.1, (D,)),
    "classifier/kernel": rng.normal(0, 0.5, (D, 2)), "classifier/bias": np.zeros(2),
}
weights = {k: v.astype(np.float32) for k, v in weights.items()}


class AttentionClassifier(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.attention = tf.keras.layers.MultiHeadAttention(num_heads=1, key_dim=K)
        self.pool = tf.keras.layers.GlobalAveragePooling1D()
        self.classifier = tf.keras.layers.Dense(2)

    def call(self, x):
        h = x + self.attention(x, x)  # CALL:attention
        return self.classifier(self.pool(h))  # CALL:logits


model = AttentionClassifier()
model(tokens[:1])
# Keras keeps a head axis: (D, K) -> (D, 1, K), (K,) -> (1, K), (K, D) -> (1, K, D)
model.attention.set_weights([  # CALL:restore
    weights["query/kernel"][:, None, :], weights["query/bias"][None, :],
    weights["key/kernel"][:, None, :], weights["key/bias"][None, :],
    weights["value/kernel"][:, None, :], weights["value/bias"][None, :],
    weights["output/kernel"][None, :, :], weights["output/bias"],
])
model.classifier.set_weights([weights["classifier/kernel"], weights["classifier/bias"]])  # CALL:restore

schedule = tf.keras.optimizers.schedules.ExponentialDecay(0.2, decay_steps=2, decay_rate=0.5, staircase=True)
optimizer = tf.keras.optimizers.SGD(learning_rate=schedule, clipvalue=0.1)
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = loss_fn(y, model(x))  # CALL:loss
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    return loss


losses = []
for step in range(3):
    value = train_step(tokens, labels)
    print(f"step {step} loss {float(value):.6f}")
    losses.append(float(value))
if os.environ.get("HELDOUT_TRACE"):
    w = model.get_weights()
    final = dict(zip(weights, [w[0][:, 0, :], w[1][0], w[2][:, 0, :], w[3][0], w[4][:, 0, :],
                               w[5][0], w[6][0], w[7], w[8], w[9]]))
    print("trace", json.dumps({"loss": losses, "weights": {k: a.tolist() for k, a in final.items()}}))
