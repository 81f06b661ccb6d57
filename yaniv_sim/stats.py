"""Small statistics helpers shared by the analyses: intervals for proportions."""

from __future__ import annotations

import numpy as np
from scipy import stats

__all__ = ["wilson_interval"]


def wilson_interval(successes, trials, confidence: float = 0.95):
    """Wilson score interval for a binomial proportion.

    Works elementwise on arrays; where ``trials`` is 0 the interval is
    ``(0, 1)``.

    Returns
    -------
    (low, high) : arrays or floats
    """
    k = np.asarray(successes, dtype=float)
    n = np.asarray(trials, dtype=float)
    z = stats.norm.ppf(0.5 + confidence / 2)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.where(n > 0, k / np.maximum(n, 1), 0.0)
        denom = 1 + z**2 / np.maximum(n, 1)
        centre = (p + z**2 / (2 * np.maximum(n, 1))) / denom
        half = z * np.sqrt(p * (1 - p) / np.maximum(n, 1) + z**2 / (4 * np.maximum(n, 1) ** 2))
        half = half / denom
    low = np.where(n > 0, np.clip(centre - half, 0, 1), 0.0)
    high = np.where(n > 0, np.clip(centre + half, 0, 1), 1.0)
    if low.ndim == 0:
        return float(low), float(high)
    return low, high
