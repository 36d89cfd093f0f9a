"""Test program: a tiny Keras model trained with `fit` for one epoch on random data."""

from __future__ import annotations

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import keras
import numpy as np

rng = np.random.default_rng(0)
model = keras.Sequential(
    [keras.Input((8,)), keras.layers.Dense(4, activation="relu"),
     keras.layers.Dense(2, activation="softmax")]
)
model.compile("sgd", "sparse_categorical_crossentropy")
model.fit(rng.random((32, 8), dtype=np.float32), rng.integers(0, 2, 32), batch_size=16,
          epochs=1, verbose=0)
print("done", flush=True)
