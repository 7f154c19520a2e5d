"""k-means without a Python loop over clusters: a one-hot membership matrix turns the centre
update into one matrix product (the vectorised form of a mask-mean)."""

import numpy as np


def kmeans_onehot(points, centers, iterations=3):
    """points: (N, D), centers: (K, D) initial centres.

    Returns (centers, labels, inertia). A centre left with no points stays where it was.
    """
    n_clusters = centers.shape[0]
    for _ in range(iterations):
        distances = ((points[:, None, :] - centers[None, :, :]) ** 2).sum(axis=-1)  # (N, K)
        labels = np.argmin(distances, axis=1)
        one_hot = labels[:, None] == np.arange(n_clusters)  # (N, K) bool
        counts = one_hot.sum(axis=0)
        sums = one_hot.T @ points  # (K, D): the sum of each cluster's points
        means = sums / np.maximum(counts, 1)[:, None]
        centers = np.where(counts[:, None] > 0, means, centers)
    distances = ((points[:, None, :] - centers[None, :, :]) ** 2).sum(axis=-1)
    labels = distances.argmin(axis=1)
    inertia = np.min(distances, axis=1).sum()
    return centers, labels, inertia
