"""A moving-average filter with np.convolve, and the residual it leaves."""

import numpy as np


def moving_average(signal, window=5):
    """signal: (T,) floats. Returns (smoothed, residual), each (T - window + 1,)."""
    kernel = np.ones(window) / window
    smoothed = np.convolve(signal, kernel, mode="valid")
    residual = signal[window - 1 :] - smoothed
    return smoothed, residual
