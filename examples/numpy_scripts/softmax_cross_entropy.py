"""A numerically stable softmax, the mean cross-entropy loss and its gradient."""

import numpy as np


def softmax_cross_entropy(logits, labels):
    """logits: (N, K) floats, labels: (N,) ints in [0, K).

    Returns (loss, gradient of the mean loss with respect to the logits, accuracy).
    """
    n = logits.shape[0]
    shifted = logits - logits.max(axis=1, keepdims=True)
    exp = np.exp(shifted)
    probs = exp / exp.sum(axis=1, keepdims=True)
    log_probs = shifted - np.log(np.sum(exp, axis=1, keepdims=True))
    picked = np.take_along_axis(log_probs, labels[:, None], axis=1)
    loss = -picked.mean()
    grad = probs.copy()
    grad[np.arange(n), labels] -= 1.0
    grad /= n
    accuracy = (probs.argmax(axis=1) == labels).mean()
    return loss, grad, accuracy
