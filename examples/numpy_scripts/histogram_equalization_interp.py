"""Histogram equalisation the way the OpenCV tutorial writes it: np.histogram and np.interp."""

import numpy as np


def equalize_histogram_interp(image):
    """image: (H, W) uint8. Returns the equalised image as floats in [0, 255]."""
    hist, bins = np.histogram(image.flatten(), 256, (0, 256))
    cdf = hist.cumsum()
    cdf_normalized = cdf * 255.0 / cdf[-1]
    equalized = np.interp(image.flatten(), bins[:-1], cdf_normalized)
    return equalized.reshape(image.shape)
