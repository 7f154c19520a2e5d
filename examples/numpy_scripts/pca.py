"""Principal component analysis by SVD, with scikit-learn's deterministic sign convention
(svd_flip: the largest loading of each left singular vector is positive)."""

import numpy as np


def pca(data, n_components=2):
    """data: (N, D) floats. Returns (projected (N, n_components), components
    (n_components, D), explained variance ratio (n_components,))."""
    centered = data - data.mean(axis=0)
    u, s, vt = np.linalg.svd(centered, full_matrices=False)
    max_abs_rows = np.argmax(np.abs(u), axis=0)
    signs = np.sign(u[max_abs_rows, range(u.shape[1])])
    u *= signs
    vt *= signs[:, None]
    explained = s**2 / np.sum(s**2)
    projected = u[:, :n_components] * s[:n_components]
    return projected, vt[:n_components], explained[:n_components]
