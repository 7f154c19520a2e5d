"""Histogram equalisation of an 8-bit grey image with a lookup table."""

import numpy as np


def equalize_histogram(image):
    """image: (H, W) uint8. Returns the equalised uint8 image and the lookup table."""
    hist = np.bincount(image.ravel(), minlength=256)
    cdf = hist.cumsum()
    cdf_min = cdf[cdf > 0].min()  # the count of the darkest level present
    lut = np.round((cdf - cdf_min) / (cdf[-1] - cdf_min) * 255.0)
    lut = np.clip(lut, 0, 255).astype(np.uint8)
    return lut[image], lut
