"""Numpy scripts a data scientist writes, unchanged: each function calls numpy's functions and
ndarray methods and operators only, so it runs on numpy arrays and on lazyinfini arrays alike
(tests/test_numpy_scripts.py runs both and compares). README.md lists what each one computes
eagerly on lazyinfini arrays."""

from .histogram_equalization import equalize_histogram
from .histogram_equalization_interp import equalize_histogram_interp
from .in_place_updates import in_place_updates
from .kmeans import kmeans
from .kmeans_onehot import kmeans_onehot
from .linear_regression import fit_linear_regression
from .mlp_forward import mlp_forward
from .moving_average import moving_average
from .nearest_neighbours import nearest_neighbours
from .normalize_images import normalize_images
from .pca import pca
from .rolling_zscore import rolling_zscore
from .shrunk_covariance import shrunk_covariance
from .softmax_cross_entropy import softmax_cross_entropy

__all__ = [
    "equalize_histogram",
    "equalize_histogram_interp",
    "fit_linear_regression",
    "in_place_updates",
    "kmeans",
    "kmeans_onehot",
    "mlp_forward",
    "moving_average",
    "nearest_neighbours",
    "normalize_images",
    "pca",
    "rolling_zscore",
    "shrunk_covariance",
    "softmax_cross_entropy",
]
