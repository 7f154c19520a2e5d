"""The lazy twins of numpy's functions: numpy function -> the function recording it lazily.

_numpy_functions.call looks a call up here: numpy's functions on Arrays (NEP 18), and the
ndarray methods that are numpy functions (`x.clip(0, 1)` is `np.clip(x, 0, 1)`: one
implementation of each name, _methods.numpy_method). A function missing from this table, or a
twin raising Fallback, runs numpy's implementation on computed values instead. One row per
function; np.amax and np.max are different objects, so both are listed.
"""

from __future__ import annotations

import numpy as np

from . import (
    composed,
    convolution,
    creation,
    data_types,
    elementwise,
    histograms,
    interpolation,
    linalg_standard,
    linear_algebra,
    manipulation,
    nan_statistics,
    order_statistics,
    polynomials,
    searching,
    shaping,
    statistics,
)
from .arguments import axis_of_0d

TWINS = {
    # statistics
    np.nansum: nan_statistics.nansum,
    np.nanprod: nan_statistics.nanprod,
    np.nancumsum: nan_statistics.nancumsum,
    np.nancumprod: nan_statistics.nancumprod,
    np.nanmax: nan_statistics.nanmax,
    np.nanmin: nan_statistics.nanmin,
    np.nanargmax: nan_statistics.nanargmax,
    np.nanargmin: nan_statistics.nanargmin,
    np.nanmean: nan_statistics.nanmean,
    np.nanvar: nan_statistics.nanvar,
    np.nanstd: nan_statistics.nanstd,
    np.partition: order_statistics.partition,
    np.median: order_statistics.median,
    np.quantile: order_statistics.quantile,
    np.percentile: order_statistics.percentile,
    np.sum: statistics.sum,
    np.prod: statistics.prod,
    np.mean: statistics.mean,
    np.std: statistics.std,
    np.var: statistics.var,
    np.max: statistics.max,
    np.amax: statistics.max,
    np.min: statistics.min,
    np.amin: statistics.min,
    np.ptp: statistics.ptp,
    np.argmax: statistics.argmax,
    np.argmin: statistics.argmin,
    np.any: statistics.any,
    np.all: statistics.all,
    np.count_nonzero: statistics.count_nonzero,
    np.cumsum: statistics.cumsum,
    np.cumprod: statistics.cumprod,
    np.diff: statistics.diff,
    np.histogram: histograms.histogram,
    np.bincount: histograms.bincount,
    np.interp: interpolation.interp,
    # manipulation
    np.concatenate: manipulation.concatenate,
    np.stack: manipulation.stack,
    np.vstack: manipulation.vstack,
    np.hstack: manipulation.hstack,
    np.dstack: manipulation.dstack,
    np.column_stack: manipulation.column_stack,
    np.append: manipulation.append,
    np.split: manipulation.split,
    np.array_split: manipulation.array_split,
    np.atleast_1d: manipulation.atleast_1d,
    np.atleast_2d: manipulation.atleast_2d,
    np.atleast_3d: manipulation.atleast_3d,
    np.reshape: manipulation.reshape,
    np.ravel: manipulation.ravel,
    np.squeeze: manipulation.squeeze,
    np.expand_dims: manipulation.expand_dims,
    np.broadcast_to: manipulation.broadcast_to,
    np.broadcast_arrays: manipulation.broadcast_arrays,
    np.copy: manipulation.copy,
    np.transpose: manipulation.transpose,
    np.moveaxis: manipulation.moveaxis,
    np.swapaxes: manipulation.swapaxes,
    np.flip: manipulation.flip,
    np.roll: manipulation.roll,
    np.tile: manipulation.tile,
    np.repeat: manipulation.repeat,
    np.take: manipulation.take,
    np.take_along_axis: manipulation.take_along_axis,
    # searching, sorting, sets
    np.where: searching.where,
    np.nonzero: searching.nonzero,
    np.argwhere: searching.argwhere,
    np.flatnonzero: searching.flatnonzero,
    np.searchsorted: searching.searchsorted,
    np.sort: searching.sort,
    np.argsort: searching.argsort,
    np.unique: searching.unique,
    np.isin: searching.isin,
    # element-wise functions that are not ufuncs
    np.clip: elementwise.clip,
    np.round: elementwise.round,
    np.around: elementwise.round,
    np.isclose: elementwise.isclose,
    np.allclose: elementwise.allclose,
    np.array_equal: elementwise.array_equal,
    np.array_equiv: elementwise.array_equiv,
    np.nan_to_num: elementwise.nan_to_num,
    np.real: elementwise.real,
    np.imag: elementwise.imag,
    np.iscomplex: elementwise.iscomplex,
    np.isreal: elementwise.isreal,
    # creation
    np.zeros_like: creation.zeros_like,
    np.ones_like: creation.ones_like,
    np.empty_like: creation.empty_like,
    np.full_like: creation.full_like,
    np.meshgrid: creation.meshgrid,
    np.diag: creation.diag,
    np.isposinf: elementwise.isposinf,
    np.isneginf: elementwise.isneginf,
    np.real_if_close: elementwise.real_if_close,
    np.sort_complex: searching.sort_complex,
    np.histogram_bin_edges: histograms.histogram_bin_edges,
    np.tril: creation.tril,
    np.triu: creation.triu,
    # shapes and dtypes (never compute)
    np.shape: data_types.shape,
    np.ndim: data_types.ndim,
    np.size: data_types.size,
    np.result_type: data_types.result_type,
    np.can_cast: data_types.can_cast,
    np.iscomplexobj: data_types.iscomplexobj,
    np.isrealobj: data_types.isrealobj,
    # linear algebra
    np.dot: linear_algebra.dot,
    np.vdot: linear_algebra.vdot,
    np.inner: linear_algebra.inner,
    np.outer: linear_algebra.outer,
    np.tensordot: linear_algebra.tensordot,
    np.einsum: linear_algebra.einsum,
    np.cross: linear_algebra.cross,
    np.convolve: convolution.convolve,
    np.correlate: convolution.correlate,
    np.trace: linear_algebra.trace,
    np.diagonal: linear_algebra.diagonal,
    np.linalg.inv: linear_algebra.inv,
    np.linalg.det: linear_algebra.det,
    np.linalg.slogdet: linear_algebra.slogdet,
    np.linalg.solve: linear_algebra.solve,
    np.linalg.cholesky: linear_algebra.cholesky,
    np.linalg.eigh: linear_algebra.eigh,
    np.linalg.eigvalsh: linear_algebra.eigvalsh,
    np.linalg.svd: linear_algebra.svd,
    np.linalg.qr: linear_algebra.qr,
    np.linalg.matrix_power: linear_algebra.matrix_power,
    np.linalg.norm: linear_algebra.norm,
    # composed by numpy from its other functions
    **{getattr(np, n): getattr(composed, n) for n in composed.NAMES if hasattr(np, n)},
    **{getattr(np, n): getattr(polynomials, n) for n in polynomials.NAMES},
    **{getattr(np, n): getattr(shaping, n) for n in shaping.NAMES if hasattr(np, n)},
    **{getattr(np, n): getattr(searching, n) for n in searching.STANDARD_UNIQUES},
}

if hasattr(np.linalg, "vector_norm"):  # numpy 2.0 added the standard's functions to np.linalg
    TWINS.update(
        {getattr(np.linalg, name): getattr(linalg_standard, name) for name in linalg_standard.NAMES}
    )

# numpy's functions that take axis 0 or -1 of a 0-d array (its one element's), as axis=None
_OF_0D = (np.sum, np.prod, np.max, np.amax, np.min, np.amin, np.ptp, np.argmax, np.argmin)
_OF_0D += (np.any, np.all, np.count_nonzero, np.cumsum, np.cumprod, np.argsort, np.take)
TWINS.update({func: axis_of_0d(TWINS[func]) for func in _OF_0D if func in TWINS})

if hasattr(np, "cumulative_sum"):  # numpy 2.1 added the standard's names
    TWINS[np.cumulative_sum] = statistics.cumulative_sum
    TWINS[np.cumulative_prod] = statistics.cumulative_prod
    TWINS[np.astype] = data_types.astype

# How numpy casts a result into out= where its rule is not same_kind: its reductions cast
# unsafely (np.sum(x, out=an_int_array) truncates), dot takes only the exact dtype.
OUT_CASTING = {
    np.sum: "unsafe",
    np.prod: "unsafe",
    np.mean: "unsafe",
    np.var: "unsafe",
    np.max: "unsafe",
    np.amax: "unsafe",
    np.min: "unsafe",
    np.amin: "unsafe",
    np.any: "unsafe",
    np.all: "unsafe",
    np.cumsum: "unsafe",
    np.cumprod: "unsafe",
    np.trace: "unsafe",
    np.take: "unsafe",
    np.dot: "no",
}
