"""Tuning: search parameters of a policy for the best game win rate.

Every candidate setting plays the same deals against the same field in
duplicate format (common random numbers), so the curve's differences are
not drowned by the luck of the deal, and the objective (minus the win rate)
is a deterministic function of the setting.

Terminology
-----------
setting
    One value for each tuned parameter, played as one duplicate comparison.
grid
    Every combination of the given values (the product of the value lists).
optimize
    A scipy.optimize search inside given ranges: ``minimize_scalar`` (bounded
    Brent) for one parameter, Nelder-Mead for several. Parameters that count
    something are rounded to whole numbers; each distinct setting is played
    once and remembered, and ``evaluations`` caps how many are played.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy import optimize

from yaniv_sim.compare import compare
from yaniv_sim.datafiles import is_data_file
from yaniv_sim.engine.specs import FAMILIES, WHOLE_PARAMS, canonical_spec
from yaniv_sim.rules import Rules

__all__ = ["INTEGER_PARAMS", "TuneResult", "parse_range", "parse_values", "tune"]

# parameters that count points, cards or turns, or switch a rule on (the
# kernel compares integers with them): the optimizer rounds these
INTEGER_PARAMS = WHOLE_PARAMS
METHODS = ("grid", "optimize")


@dataclasses.dataclass
class TuneResult:
    policy: str
    params: list[str]
    against: list[str]
    players: int
    games: int
    seed: int
    curve: pd.DataFrame  # one column per parameter, spec, win_rate, win_low, win_high, fair_share
    method: str = "grid"

    @property
    def param(self) -> str:
        """The tuned parameter names, joined by commas."""
        return ",".join(self.params)

    @property
    def best(self) -> pd.Series:
        """The evaluated setting with the highest win rate (the first on a tie)."""
        return self.curve.loc[self.curve["win_rate"].idxmax()]

    def __str__(self) -> str:
        best = self.best
        how = (
            "grid"
            if self.method == "grid"
            else f"scipy.optimize: {len(self.curve)} settings, in the order tried"
        )
        lines = [
            f"tuning {self.param} of {self.policy} against {', '.join(self.against)} ({how}): "
            f"{self.games:,} duplicate deals per setting, {self.players} players, "
            f"seed {self.seed}",
            "",
            "".join(f"{p:>12} " for p in self.params) + f"{'win rate':>9} {'95% interval':>17}",
        ]
        top = self.curve["win_high"].max()
        for index, row in self.curve.iterrows():
            bar = "#" * round(40 * row.win_rate / max(top, 1e-9))
            mark = "  <- best" if index == best.name else ""
            lines.append(
                "".join(f"{row[p]:>12g} " for p in self.params)
                + f"{row.win_rate:>9.2%} {row.win_low:>8.2%}-{row.win_high:<8.2%} {bar}{mark}"
            )
        lines += [
            "",
            f"best: {best['spec']} wins {best['win_rate']:.2%} "
            f"(95% interval {best['win_low']:.2%} to {best['win_high']:.2%}; "
            f"fair share {best['fair_share']:.2%})",
        ]
        return "\n".join(lines)


def parse_values(text: str) -> list[float]:
    """``"3,4,5"`` or an integer range ``"3..7"``."""
    text = text.strip()
    try:
        if ".." in text:
            low, high = (int(part) for part in text.split(".."))
            if high < low:
                raise ValueError
            return [float(v) for v in range(low, high + 1)]
        values = [float(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise ValueError(
            f"values {text!r}: give numbers separated by commas (0.1,0.2) or a range (3..7)"
        ) from None
    if not values:
        raise ValueError("values: give at least one value")
    return values


def parse_range(text: str) -> tuple[float, float]:
    """``"0.02..0.3"``: the low and high ends of a search range (low below high)."""
    low_text, sep, high_text = text.strip().partition("..")
    try:
        low, high = float(low_text), float(high_text)
    except ValueError:
        low = high = float("nan")
    if not sep or not low < high:
        raise ValueError(f"range {text!r}: give LOW..HIGH with LOW below HIGH, e.g. 0.02..0.3")
    return low, high


def _with(policy: str, setting: dict[str, float]) -> str:
    """The canonical spec of ``policy`` with the setting's values added."""
    sep = "," if ":" in policy else ":"
    return canonical_spec(policy + sep + ",".join(f"{k}={v:g}" for k, v in setting.items()))


def _param_range(policy: str, param: str) -> tuple[float, float]:
    """The allowed range of ``param`` (checks the policy and the parameter exist)."""
    name = policy.partition(":")[0].strip()
    params = FAMILIES[name][1]
    if param not in params:
        allowed = ", ".join(params) if params else "none"
        raise ValueError(f"policy {name}: unknown parameter {param!r}; its parameters: {allowed}")
    _index, _default, low, high = params[param]
    return low, high


def _round(param: str, x: float) -> float:
    return float(round(x)) if param in INTEGER_PARAMS else float(f"{x:.4g}")


class _Budget(Exception):
    """The evaluation budget is spent."""


def tune(
    policy: str,
    param: str | Sequence[str],
    values: Sequence[float] | Sequence[Sequence[float]] | None = None,
    *,
    against: list[str] | tuple[str, ...] = ("max-shed",),
    rules: Rules | None = None,
    players: int = 4,
    games: int = 1000,
    seed: int = 0,
    workers: int | None = None,
    method: str = "grid",
    ranges: Sequence[tuple[float, float]] | None = None,
    evaluations: int = 20,
) -> TuneResult:
    """Search parameters of ``policy`` for the highest win rate against the field.

    Parameters
    ----------
    policy : str
        A policy name or ``NAME:param=value,...``; tried values are added to it.
    param : str or list of str
        The parameter(s) to tune.
    values : list of float, or one list per parameter
        ``method="grid"``: the values to try; with several parameters every
        combination is played (the product of the lists).
    method : {"grid", "optimize"}
        ``"optimize"`` searches inside ``ranges`` with scipy.optimize:
        ``minimize_scalar(method="bounded")`` for one parameter, Nelder-Mead
        (over the ranges scaled to 0..1, started at their middle) for several.
    ranges : list of (low, high), optional
        ``method="optimize"``: one range per parameter (default: each
        parameter's whole allowed range).
    evaluations : int
        ``method="optimize"``: the most distinct settings to play.

    Every setting plays ``games`` duplicate deals with the same ``seed``, so
    the objective is deterministic; a setting met twice is played once.
    """
    rules = rules or Rules()
    if is_data_file(policy):
        policy = canonical_spec(policy)
    canonical_spec(policy)  # a bad policy fails here, before anything is played
    params = [param] if isinstance(param, str) else list(param)
    if not params:
        raise ValueError("tune: give at least one parameter")
    if len(set(params)) != len(params):
        raise ValueError(f"tune: a parameter is given twice in {', '.join(params)}")
    if method not in METHODS:
        raise ValueError(f"tune: method {method!r} is not known; use one of {', '.join(METHODS)}")
    limits = [_param_range(policy, p) for p in params]

    cache: dict[str, dict] = {}
    order: list[str] = []

    def play(setting: dict[str, float]) -> float:
        spec = _with(policy, setting)
        if spec not in cache:
            if method == "optimize" and len(cache) >= evaluations:
                raise _Budget
            result = compare([spec, *against], rules, players, games, seed, workers)
            row = result.table.iloc[0]
            cache[spec] = {
                **setting,
                "spec": spec,
                "win_rate": row.win_rate,
                "win_low": row.win_low,
                "win_high": row.win_high,
                "fair_share": row.fair_share,
            }
            order.append(spec)
        return -cache[spec]["win_rate"]

    if method == "grid":
        if values is None:
            raise ValueError("tune: give the values to try for each parameter")
        lists = [list(values)] if isinstance(param, str) else [list(v) for v in values]
        if len(lists) != len(params):
            raise ValueError(f"tune: {len(params)} parameters but {len(lists)} lists of values; "
                             "give one list of values for each parameter")  # fmt: skip
        for p, vs, (low, high) in zip(params, lists, limits, strict=True):
            if not vs:
                raise ValueError(f"tune: give at least one value for {p}")
            for v in vs:
                if not low <= v <= high:
                    raise ValueError(f"tune: {p}={v:g} is outside its range {low:g} to {high:g}")
        for combo in itertools.product(*lists):
            play(dict(zip(params, (float(v) for v in combo), strict=True)))
    else:
        if evaluations < 1:
            raise ValueError("tune: evaluations must be at least 1")
        if ranges is None:
            ranges = limits
        ranges = [tuple(map(float, r)) for r in ranges]
        if len(ranges) != len(params):
            raise ValueError(f"tune: {len(params)} parameters but {len(ranges)} ranges; "
                             "give one range for each parameter")  # fmt: skip
        for p, (lo, hi), (low, high) in zip(params, ranges, limits, strict=True):
            if not lo < hi:
                raise ValueError(f"tune: the range of {p} needs its low end below its high end")
            if lo < low or hi > high:
                raise ValueError(f"tune: the range {lo:g}..{hi:g} of {p} is outside its allowed "
                                 f"range {low:g} to {high:g}")  # fmt: skip

        def setting_of(u) -> dict[str, float]:
            out = {}
            for p, ui, (lo, hi) in zip(params, np.atleast_1d(u), ranges, strict=True):
                out[p] = _round(p, lo + float(np.clip(ui, 0.0, 1.0)) * (hi - lo))
            return out

        try:
            if len(params) == 1:
                p = params[0]
                span = ranges[0][1] - ranges[0][0]
                xatol = (0.5 if p in INTEGER_PARAMS else 0.01 * span) / span
                optimize.minimize_scalar(
                    lambda u: play(setting_of(u)),
                    bounds=(0.0, 1.0),
                    method="bounded",
                    options={"xatol": xatol, "maxiter": evaluations},
                )
                if p in INTEGER_PARAMS:
                    # Brent stops within a step or so: climb to a whole-number local best
                    lo, hi = ranges[0]
                    while True:
                        here = min(cache.values(), key=lambda row: -row["win_rate"])[p]
                        steps = [v for v in (here - 1, here + 1) if lo <= v <= hi]
                        scores = [play({p: v}) for v in steps]
                        current = play({p: here})  # remembered: costs nothing
                        if not scores or min(scores) >= current:
                            break
            else:
                d = len(params)
                start = np.full(d, 0.5)
                simplex = np.vstack([start] + [start + 0.3 * np.eye(d)[i] for i in range(d)])
                optimize.minimize(
                    lambda u: play(setting_of(u)),
                    start,
                    method="Nelder-Mead",
                    bounds=[(0.0, 1.0)] * d,
                    options={"initial_simplex": simplex, "maxfev": 4 * evaluations,
                             "xatol": 0.02, "fatol": 1e-4},
                )  # fmt: skip
        except _Budget:
            pass

    curve = pd.DataFrame([cache[spec] for spec in order])
    for p in params:
        curve[p] = curve[p].astype(np.float64)
    if len(params) == 1:
        curve.insert(0, "value", curve[params[0]])  # the one-parameter curve's column
    return TuneResult(policy, params, list(against), players, games, seed, curve, method)
