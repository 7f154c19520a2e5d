"""Lloyd's k-means as numpy textbooks write it: nearest centres by broadcasting, then each
centre moves to the mean of its points, selected with a boolean mask."""

import numpy as np


def kmeans(points, centers, iterations=3):
    """points: (N, D), centers: (K, D) initial centres (copied, not modified).

    Returns (centers, labels, inertia). A centre left with no points stays where it was.
    """
    centers = centers.copy()
    for _ in range(iterations):
        distances = ((points[:, None, :] - centers[None, :, :]) ** 2).sum(axis=-1)  # (N, K)
        labels = np.argmin(distances, axis=1)
        for k in range(centers.shape[0]):
            members = points[labels == k]  # a boolean mask: its shape depends on the data
            if len(members):
                centers[k] = members.mean(axis=0)
    distances = ((points[:, None, :] - centers[None, :, :]) ** 2).sum(axis=-1)
    labels = distances.argmin(axis=1)
    inertia = np.min(distances, axis=1).sum()
    return centers, labels, inertia
