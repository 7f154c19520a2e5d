"""k-nearest-neighbour classification from a full pairwise distance matrix."""

import numpy as np


def nearest_neighbours(queries, references, reference_labels, k=3, n_classes=3):
    """queries: (M, D), references: (N, D), reference_labels: (N,) ints in [0, n_classes).

    Returns (indices of the k nearest references, their distances, predicted labels).
    """
    distances = np.sqrt(np.sum((queries[:, None] - references[None]) ** 2, axis=-1))
    order = np.argsort(distances, axis=1)[:, :k]
    nearest = np.take_along_axis(distances, order, axis=1)
    votes = (reference_labels[order][..., None] == np.arange(n_classes)).sum(axis=1)
    return order, nearest, votes.argmax(axis=1)
