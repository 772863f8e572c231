"""Small numeric helpers the readers call often enough for NumPy's generality to cost."""

from __future__ import annotations

import math

import numpy as np


def median(values: np.ndarray) -> np.floating:
    """``np.median(values)`` of a float array, the same value of the same type, at about half
    the cost on a few thousand values: ``np.median`` spends as long on its generality (axes,
    ``out``, the mean of the middle pair) as on the partition itself, and the readers take
    hundreds of medians a photo (a robber's window, a chip's paper, a blob's texture).

    NaN anywhere gives NaN, as ``np.median`` does; an empty array is left to it.

    >>> median(np.array([3.0, 1.0, 2.0, 10.0], np.float32))
    np.float32(2.5)
    """
    flat = values.ravel()
    n = flat.size
    if n == 0 or flat.dtype.kind != "f":
        return np.median(flat)
    half = n // 2
    # The middle pair (or value) and the largest, where NaNs sort: as np.median partitions.
    kth = [half - 1, half, n - 1] if n % 2 == 0 else [half, n - 1]
    part = np.partition(flat, kth)
    if np.isnan(part[-1]):
        return part[-1]
    if n % 2:
        return part[half]
    # np.median's mean of the pair: their sum in the array's type, halved (exactly).
    return (part[half - 1] + part[half]) / 2


def quantile(values: np.ndarray, q: float) -> float:
    """``float(np.quantile(values, q))`` of a float array and a Python float ``q`` (0..1),
    linear interpolation, the same value at a fraction of the cost: a chip's ink level takes
    one of its disc's thousands of values each read.

    NaN anywhere gives NaN; an empty array (or another type) is left to ``np.quantile``.

    >>> quantile(np.array([4.0, 1.0, 2.0, 3.0], np.float32), 0.5)
    2.5
    """
    flat = values.ravel()
    n = flat.size
    if n == 0 or flat.dtype.kind != "f" or type(q) is not float:
        return float(np.quantile(flat, q))
    # As np.quantile: the virtual index in float64, its two neighbours (both the last at or
    # beyond it), and a weight from the index less the lower neighbour's (-1 for the last).
    at = (n - 1) * q
    lower = math.floor(at)
    if at >= n - 1:
        lower = upper = -1
    else:
        upper = lower + 1
    part = np.partition(flat, sorted({0, n - 1, lower % n, upper % n}))
    if np.isnan(part[-1]):
        return float(part[-1])
    a, b = part[lower], part[upper]
    weight = at - lower
    # np.quantile's lerp, in the array's type (a Python float takes the scalar's type).
    diff = b - a
    return float(b - diff * (1 - weight) if weight >= 0.5 else a + diff * weight)
