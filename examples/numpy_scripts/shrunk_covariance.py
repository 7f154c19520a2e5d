"""Ledoit-Wolf-style shrinkage of a covariance matrix, written as scikit-learn's
shrunk_covariance writes it: the diagonal is updated through `.flat` with a stride."""

import numpy as np


def shrunk_covariance(data, shrinkage=0.1):
    """data: (N, D) floats. Returns the (D, D) covariance shrunk towards mu * identity."""
    n_features = data.shape[1]
    centered = data - data.mean(axis=0)
    cov = centered.T @ centered / data.shape[0]
    mu = np.trace(cov) / n_features
    shrunk = (1.0 - shrinkage) * cov
    shrunk.flat[:: n_features + 1] += shrinkage * mu
    return shrunk
