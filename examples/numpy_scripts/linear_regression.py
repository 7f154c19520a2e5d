"""Linear regression fitted by full-batch gradient descent, stopping early at convergence."""

import numpy as np


def fit_linear_regression(features, targets, learning_rate=0.1, steps=20, tol=1e-4):
    """features: (N, D), targets: (N,). Returns (weights, bias, mean squared error, steps run)."""
    n = features.shape[0]
    weights = np.zeros_like(features[0])  # the features' array type and dtype
    bias = 0.0
    step = 0
    for step in range(1, steps + 1):  # noqa: B007 (the count is returned)
        error = features @ weights + bias - targets
        grad_w = features.T @ error / n
        grad_b = error.mean()
        weights -= learning_rate * grad_w
        bias -= learning_rate * grad_b
        if np.abs(grad_w).max() < tol:  # converged: reads one value per step
            break
    mse = np.mean((features @ weights + bias - targets) ** 2)
    return weights, bias, mse, step
