"""Tuning: search one parameter of a policy for the best game win rate.

Every candidate value plays the same deals against the same field in
duplicate format (common random numbers), so the curve's differences are
not drowned by the luck of the deal.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from yaniv_sim.compare import compare
from yaniv_sim.datafiles import is_data_file
from yaniv_sim.engine._specs import canonical_spec
from yaniv_sim.rules import Rules

__all__ = ["TuneResult", "parse_values", "tune"]


@dataclasses.dataclass
class TuneResult:
    policy: str
    param: str
    against: list[str]
    players: int
    games: int
    seed: int
    curve: pd.DataFrame  # value, spec, win_rate, win_low, win_high, fair_share

    @property
    def best(self) -> pd.Series:
        return self.curve.loc[self.curve["win_rate"].idxmax()]

    def __str__(self) -> str:
        best = self.best
        lines = [
            f"tuning {self.param} of {self.policy} against {', '.join(self.against)}: "
            f"{self.games:,} duplicate deals per value, {self.players} players, seed {self.seed}",
            "",
            f"{self.param:>12} {'win rate':>9} {'95% interval':>17}",
        ]
        top = self.curve["win_high"].max()
        for row in self.curve.itertuples():
            bar = "#" * round(40 * row.win_rate / max(top, 1e-9))
            mark = "  <- best" if row.value == best["value"] else ""
            lines.append(
                f"{row.value:>12g} {row.win_rate:>9.2%} {row.win_low:>8.2%}-{row.win_high:<8.2%}"
                f" {bar}{mark}"
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
            f"--values {text!r}: give numbers separated by commas (0.1,0.2) or a range (3..7)"
        ) from None
    if not values:
        raise ValueError("--values: give at least one value")
    return values


def tune(
    policy: str,
    param: str,
    values: list[float],
    *,
    against: list[str] | tuple[str, ...] = ("max-shed",),
    rules: Rules | None = None,
    players: int = 4,
    games: int = 1000,
    seed: int = 0,
    workers: int | None = None,
) -> TuneResult:
    """Play ``policy`` with each value of ``param`` against the field; the curve."""
    rules = rules or Rules()
    if is_data_file(policy):
        policy = canonical_spec(policy)
    rows = []
    for value in values:
        sep = "," if ":" in policy else ":"
        spec = canonical_spec(f"{policy}{sep}{param}={value:g}")
        result = compare([spec, *against], rules, players, games, seed, workers)
        row = result.table.iloc[0]
        rows.append(
            {
                "value": value,
                "spec": spec,
                "win_rate": row.win_rate,
                "win_low": row.win_low,
                "win_high": row.win_high,
                "fair_share": row.fair_share,
            }
        )
    curve = pd.DataFrame(rows)
    curve["value"] = curve["value"].astype(np.float64)
    return TuneResult(policy, param, list(against), players, games, seed, curve)
