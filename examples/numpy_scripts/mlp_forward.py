"""The forward pass of a small multi-layer perceptron classifier."""

import numpy as np


def mlp_forward(x, params):
    """x: (N, D) features; params: dict of weights w1, w2, w3 and biases b1, b2, b3.

    Returns (class probabilities, predicted classes).
    """
    hidden = np.maximum(x @ params["w1"] + params["b1"], 0.0)  # ReLU
    hidden = np.tanh(np.dot(hidden, params["w2"]) + params["b2"])
    logits = hidden.dot(params["w3"]) + params["b3"]
    logits = logits - logits.max(axis=-1, keepdims=True)
    probs = np.exp(logits)
    probs /= probs.sum(axis=-1, keepdims=True)
    return probs, np.argmax(probs, axis=-1)
