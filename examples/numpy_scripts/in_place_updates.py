"""In-place updates as numpy code writes them: a covariance matrix regularised through a view
of its diagonal, masked resets, a row scaled through a view, a column through the transpose."""

import numpy as np


def in_place_updates(data, ridge=0.5, outlier=2.0):
    """data: (N, D) floats (not modified). Returns (regularised covariance, cleaned copy of
    data, the cleaned copy's column means)."""
    n = data.shape[0]
    centered = data - data.mean(axis=0)
    cov = centered.T @ centered / (n - 1)
    diagonal = np.einsum("ii->i", cov)  # numpy's writable view of the diagonal
    diagonal += ridge
    cov /= 1.0 + ridge

    cleaned = data.copy()
    cleaned[np.abs(cleaned) > outlier] = 0.0  # reset the outliers: a boolean mask
    row = cleaned[1]  # a view of row 1
    row *= 2.0
    cleaned.T[0] += 1.0  # column 0, through the transposed view
    last = cleaned[-1, :]
    last[:] = last[::-1]  # reverse the last row in place (numpy buffers the overlap)
    return cov, cleaned, cleaned.mean(axis=0)
