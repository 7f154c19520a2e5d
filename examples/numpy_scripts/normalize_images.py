"""Per-channel standardisation of a batch of images in NCHW layout.

The usual preprocessing step before a convolutional network: subtract each channel's mean,
divide by its standard deviation, clip outliers, then boost one channel in place through a view.
"""

import numpy as np


def normalize_images(images, clip=3.0, boost_channel=0, boost=1.5):
    """images: (N, C, H, W) floats. Returns (normalized, channel means, channel stds)."""
    mean = images.mean(axis=(0, 2, 3), keepdims=True)
    std = images.std(axis=(0, 2, 3), keepdims=True)
    normalized = (images - mean) / (std + 1e-6)
    normalized = np.clip(normalized, -clip, clip)
    channel = normalized[:, boost_channel]  # a view: writing into it changes `normalized`
    channel *= boost
    return normalized, mean.reshape(-1), np.squeeze(std)
