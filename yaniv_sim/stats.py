"""Small statistics helpers shared by the analyses: intervals, clustered means, FDR."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

__all__ = [
    "benjamini_hochberg",
    "clustered_interval",
    "clustered_means",
    "fdr_verdicts",
    "wilson_interval",
]


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


def clustered_means(values, groups, clusters) -> pd.DataFrame:
    """Mean of ``values`` per group, with standard errors that respect clusters.

    Observations of one cluster (the decision points of one game) are not
    independent; the standard error of each group's mean is the
    cluster-robust one of a ratio estimator: with ``S_c`` and ``n_c`` the
    sum and count of cluster ``c`` in the group, ``m`` the mean, ``G`` the
    clusters and ``N`` the observations in it,
    ``se^2 = G / (G - 1) * sum_c (S_c - m n_c)^2 / N^2``.

    ``groups`` is a DataFrame of key columns (or one array) aligned with
    ``values``; ``clusters`` an integer array. Returns one row per group:
    the keys, ``n``, ``clusters``, ``mean``, ``se`` (NaN with one cluster),
    ``p_above`` and ``p_below`` (one-sided p-values of ``mean > 0`` and
    ``mean < 0``, Student t with ``G - 1`` degrees of freedom).
    """
    keys = groups if isinstance(groups, pd.DataFrame) else pd.DataFrame({"group": groups})
    names = list(keys.columns)
    frame = keys.reset_index(drop=True).assign(
        _v=np.asarray(values, dtype=np.float64), _c=np.asarray(clusters)
    )
    per = frame.groupby([*names, "_c"], observed=True, sort=False)["_v"].agg(["sum", "count"])
    per = per.reset_index()
    total = per.groupby(names, observed=True)[["sum", "count"]].sum()
    g = per.groupby(names, observed=True).size().rename("clusters")
    out = total.join(g).reset_index()
    out["mean"] = out["sum"] / out["count"]
    per = per.merge(out[[*names, "mean"]], on=names)
    per["_r2"] = (per["sum"] - per["mean"] * per["count"]) ** 2
    r2 = per.groupby(names, observed=True)["_r2"].sum().rename("r2").reset_index()
    out = out.merge(r2, on=names)
    clusters_n = out["clusters"].to_numpy(np.float64)
    n = out["count"].to_numpy(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        var = clusters_n / (clusters_n - 1) * out["r2"].to_numpy() / n**2
        se = np.where(clusters_n > 1, np.sqrt(var), np.nan)
        t = out["mean"].to_numpy() / se
    df = np.maximum(clusters_n - 1, 1)
    flat = np.isfinite(se) & (se == 0)
    p_above = np.where(np.isfinite(t), stats.t.sf(t, df), np.nan)
    p_below = np.where(np.isfinite(t), stats.t.cdf(t, df), np.nan)
    mean = out["mean"].to_numpy()
    p_above = np.where(flat, np.where(mean > 0, 0.0, 1.0), p_above)
    p_below = np.where(flat, np.where(mean < 0, 0.0, 1.0), p_below)
    result = out[names].copy()
    result["n"] = out["count"].astype(np.int64)
    result["clusters"] = out["clusters"].astype(np.int64)
    result["mean"] = mean
    result["se"] = se
    result["p_above"] = np.where(clusters_n > 1, p_above, np.nan)
    result["p_below"] = np.where(clusters_n > 1, p_below, np.nan)
    return result


def clustered_interval(means: pd.DataFrame, clip: tuple[float, float] | None = None):
    """The 95% interval ``(low, high)`` of each row of :func:`clustered_means`.

    Student t with ``clusters - 1`` degrees of freedom. With ``clip`` (the
    range a share can take, ``(0, 1)``), the ends are clipped to it and a
    group from a single cluster gets the whole range: one game says nothing
    about how much games differ.
    """
    half = stats.t.ppf(0.975, np.maximum(means["clusters"] - 1, 1)) * means["se"]
    low = (means["mean"] - half).to_numpy(np.float64)
    high = (means["mean"] + half).to_numpy(np.float64)
    if clip is not None:
        one = means["clusters"].to_numpy() < 2
        low = np.where(one, clip[0], np.maximum(low, clip[0]))
        high = np.where(one, clip[1], np.minimum(high, clip[1]))
    return low, high


def benjamini_hochberg(p_values, q: float = 0.05) -> np.ndarray:
    """Which hypotheses the Benjamini-Hochberg procedure rejects at false-discovery rate ``q``.

    NaN p-values are never rejected and do not count as tests.
    """
    p = np.asarray(p_values, dtype=np.float64)
    out = np.zeros(p.shape, bool)
    valid = np.flatnonzero(np.isfinite(p))
    m = len(valid)
    if m == 0:
        return out
    order = valid[np.argsort(p[valid], kind="stable")]
    passed = p[order] <= q * np.arange(1, m + 1) / m
    if passed.any():
        last = np.flatnonzero(passed).max()
        out[order[: last + 1]] = True
    return out


def fdr_verdicts(p_call, p_wait, n, min_points: int, fdr: float = 0.05) -> np.ndarray:
    """``call``, ``wait``, ``too close`` or ``too few`` for each cell of a table.

    ``p_call`` and ``p_wait`` are the one-sided p-values of a cell's gain of
    calling above and below 0; all of them (cells with at least
    ``min_points`` points, ``n``) are tested together by
    :func:`benjamini_hochberg` at ``fdr``. A cell with fewer points is ``too
    few``; one where neither test rejects, ``too close``.
    """
    enough = np.asarray(n) >= min_points
    p_call = np.where(enough, p_call, np.nan)
    p_wait = np.where(enough, p_wait, np.nan)
    found = benjamini_hochberg(np.r_[p_call, p_wait], fdr)
    call, wait = found[: len(enough)], found[len(enough) :]
    verdict = np.where(call, "call", np.where(wait, "wait", "too close"))
    return np.where(enough, verdict, "too few")
