"""A rolling z-score along time from cumulative sums (moving mean and standard deviation)."""

import numpy as np


def rolling_zscore(series, window):
    """series: (T, F) floats, one column per signal. Returns a (T - window + 1, F) array: each
    row's distance from the mean of the `window` rows ending there, in standard deviations."""
    zeros = np.zeros((1, series.shape[1]), dtype=series.dtype)
    sums = np.concatenate([zeros, np.cumsum(series, axis=0)])
    squares = np.concatenate([zeros, np.cumsum(series**2, axis=0)])
    mean = (sums[window:] - sums[:-window]) / window
    variance = (squares[window:] - squares[:-window]) / window - mean**2
    std = np.sqrt(np.maximum(variance, 0.0))
    return (series[window - 1 :] - mean) / (std + 1e-8)
