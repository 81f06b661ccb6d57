"""Calling rules a player can remember, fitted to a solved strategy, and what each costs.

A solved calling strategy (:mod:`yaniv_sim.solve`) is ``best`` with a table of
up to 2,016 cells, and where the table is silent ``best``'s own Assaf-risk
estimate decides: nobody can play that from memory. The tiers are complete
calling rules that a person can carry:

- **one line**: call at ``many`` points or less while every opponent holds 3
  or more cards, at ``few`` or less while an opponent is down to 1 or 2;
- **small table**: the most you call at for each fewest-cards group (1, 2, 3,
  4 or more) and turn band (turns 0-9, 10-19, 20 on): twelve numbers;
- **full table**: the solved strategy itself.

A tier's numbers are fitted at the full strategy's own decision points: its
self-play is simulated with call-or-wait branches (every point where the table
decides played both ways on the same cards, :func:`yaniv_sim.solve.decision_gains`),
and each point's **win gain** is the deciding seat's game-win chance after the
round if it calls less if it waits (from the equity tables). In each of the
tier's groups the cut ``x`` is the one for which "call at ``x`` or less" gains
the most summed over the group's points (``-1``: never call; ties go to the
lower cut). This is the rule that best replaces the full strategy's call, one
decision at a time; it is not the rule that agrees with most of its decisions
(fitted that way, the rules agreed with 85-90% of decisions at 2 players and
still lost 10-12 points of win share, because a wrong call costs far more
than a wrong wait). The tiers decide every call
themselves (discards and draws stay ``best``'s; a call that lands a milestone
is still made), and each is played back in duplicate games against the full
strategy: its **cost** is the full strategy's win share less the tier's, and the
tier's points per round less the full strategy's, each with its paired 95%
interval over deals (``scripts/tiers.py`` measures them; the results ship as
``yaniv_sim/data/solved/<rules>-<players>p-tiers.json``).
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pandas as pd

from yaniv_sim.engine.specs import TABLE_CARDS, TABLE_OPPONENTS, TABLE_PICKUPS

__all__ = [
    "FEWEST_GROUPS",
    "OneLine",
    "SmallTable",
    "best_cut",
    "fit_one_line",
    "fit_small_table",
    "read_shipped",
    "table_of",
]

DATA = Path(__file__).parent / "data" / "solved"
# the small table's rows: fewest cards any opponent holds, low to high
FEWEST_GROUPS = ((1, 1), (2, 2), (3, 3), (4, TABLE_CARDS))
# the one line's split: every opponent on this many cards or more, or not
MANY = 3
BANDS = (0, 1, 2)


def best_cut(values, gains, threshold: int) -> tuple[int, float]:
    """The cut ``x`` (``-1`` to ``threshold``) for which "call at x or less" gains most.

    ``values``: hand values of decision points; ``gains``: what calling there
    gains over waiting. Returns ``(x, summed gain of the points it calls at)``;
    ties go to the lower cut (the more cautious rule).
    """
    values = np.asarray(values, np.int64)
    gains = np.asarray(gains, np.float64)
    best, gain_best = -1, 0.0
    for x in range(threshold + 1):
        gain = float(gains[values <= x].sum())
        if gain > gain_best:
            best, gain_best = x, gain
    return best, gain_best


def _cut_words(x: int) -> str:
    return "never call" if x < 0 else f"call at {x} or less"


@dataclasses.dataclass(frozen=True)
class OneLine:
    """Call at ``many`` or less while every opponent holds 3+ cards, at ``few`` or less else."""

    many: int
    few: int

    def cut(self, fewest: int, band: int) -> int:
        return self.many if fewest >= MANY else self.few

    def words(self) -> str:
        many = _cut_words(self.many)
        if self.few == self.many:
            return f"{many}, whatever the opponents hold"
        few = {-1: "never call", 0: "only at 0"}.get(self.few, f"at {self.few} or less")
        return (f"{many} while every opponent holds {MANY}+ cards; {few} while an opponent is "
                "down to 1-2 cards")  # fmt: skip

    def to_dict(self) -> dict:
        return {"many": self.many, "few": self.few}


@dataclasses.dataclass(frozen=True)
class SmallTable:
    """The most you call at, ``cuts[group][band]``, by :data:`FEWEST_GROUPS` and turn band."""

    cuts: tuple[tuple[int, ...], ...]

    def cut(self, fewest: int, band: int) -> int:
        for g, (low, high) in enumerate(FEWEST_GROUPS):
            if low <= fewest <= high:
                return self.cuts[g][band]
        raise ValueError(f"fewest: {fewest} cards is not 1 to {TABLE_CARDS}")

    def to_dict(self) -> dict:
        return {"cuts": [list(row) for row in self.cuts]}


def fit_one_line(points: pd.DataFrame, threshold: int) -> OneLine:
    """The :class:`OneLine` that gains most over ``points``.

    ``points``: one row per decision point with ``hand_value``, ``fewest``,
    ``band``, ``called`` and ``win_gain`` (as :func:`yaniv_sim.solve.decision_gains`
    gives them).
    """
    many = points["fewest"] >= MANY
    cut_many, _ = best_cut(points.loc[many, "hand_value"], points.loc[many, "win_gain"], threshold)
    cut_few, _ = best_cut(points.loc[~many, "hand_value"], points.loc[~many, "win_gain"], threshold)
    return OneLine(cut_many, cut_few)


def fit_small_table(points: pd.DataFrame, threshold: int) -> SmallTable:
    """The :class:`SmallTable` that gains most over ``points``, group by group."""
    cuts = []
    for low, high in FEWEST_GROUPS:
        row = []
        for band in BANDS:
            part = points[points["fewest"].between(low, high) & (points["band"] == band)]
            row.append(best_cut(part["hand_value"], part["win_gain"], threshold)[0])
        cuts.append(tuple(row))
    return SmallTable(tuple(cuts))


def agreement(rule, points: pd.DataFrame) -> float:
    """The share of ``points`` where ``rule`` does what the strategy did."""
    grid = np.array([[rule.cut(f, b) for b in BANDS] for f in range(1, TABLE_CARDS + 1)])
    cuts = grid[points["fewest"].to_numpy() - 1, points["band"].to_numpy()]
    says = points["hand_value"].to_numpy() <= cuts
    return float((says == points["called"].to_numpy()).mean()) if len(points) else float("nan")


def table_of(rule, threshold: int) -> dict[tuple[int, int, int, int, int], int]:
    """Every call-table cell a call can reach (hand value 0 to ``threshold``), set by ``rule``."""
    return {
        (v, c, b, o, k): int(v <= rule.cut(c, b))
        for v in range(threshold + 1)
        for c in range(1, TABLE_CARDS + 1)
        for b in BANDS
        for o in range(1, TABLE_OPPONENTS + 1)
        for k in range(TABLE_PICKUPS)
    }


def read_shipped(rules_name: str, players: int) -> dict | None:
    """The shipped tiers and their measured costs for a preset and table size, or ``None``."""
    path = DATA / f"{rules_name}-{players}p-tiers.json"
    if not path.exists():
        return None
    return json.loads(path.read_text(encoding="utf-8"))
