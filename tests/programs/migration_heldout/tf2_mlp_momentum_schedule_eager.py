"""tf1_mlp_piecewise.py migrated to Keras: the same MLP and schedule, an eager GradientTape loop.

python tf2_mlp_momentum_schedule_eager.py [DATA_DIR]     (DATA_DIR unused)
"""
import json
import os

import numpy as np
import tensorflow as tf

STEPS = 4
rng = np.random.RandomState(77)
features = rng.normal(0.0, 1.2, size=(8, 5)).astype(np.float32)
labels = np.array([2, 0, 1, 2, 1, 0, 0, 2], dtype=np.int32)
init = {
    "hidden/kernel": rng.uniform(-0.8, 0.8, size=(5, 12)).astype(np.float32),
    "hidden/bias": np.zeros(12, np.float32),
    "logits/kernel": rng.uniform(-0.6, 0.6, size=(12, 3)).astype(np.float32),
    "logits/bias": np.zeros(3, np.float32),
}

model = tf.keras.Sequential([
    tf.keras.Input(shape=(5,)),
    tf.keras.layers.Dense(12, activation="tanh", name="hidden"),
    tf.keras.layers.Dense(3, name="logits"),
])
for layer in model.layers:
    layer.set_weights([init[f"{layer.name}/kernel"], init[f"{layer.name}/bias"]])  # CALL:restore

schedule = tf.keras.optimizers.schedules.PiecewiseConstantDecay(boundaries=[1], values=[0.1, 0.02])
optimizer = tf.keras.optimizers.SGD(learning_rate=schedule, momentum=0.9)  # BUG:mlp_momentum_schedule
loss_object = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

losses = []
for step in range(STEPS):
    with tf.GradientTape() as tape:
        logits = model(features)
        loss = loss_object(labels, logits)  # CALL:loss
    gradients = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(gradients, model.trainable_variables))  # CALL:update
    print(f"step {step}: loss {float(loss):.6f}")
    losses.append(float(loss))

if os.environ.get("HELDOUT_TRACE"):
    final = {f"{layer.name}/{w.name}": w.numpy().tolist() for layer in model.layers
             for w in layer.weights}
    print("trace", json.dumps({"loss": losses, "weights": final}))
