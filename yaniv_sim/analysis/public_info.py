"""What a player can see at the table, and how it changes the Assaf risk and the call.

A decision point's hand value and the opponents' card counts are the usual
inputs of a calling rule. Players use more than that, all of it public:

pickup
    an opponent still holds cards it took from the pile that add up to no
    more than your hand (it may well be low: those cards are in its hand);
one_card
    your hand is a single card (if you wait, you cannot shed more than that
    card, and the card you draw stays in your hand);
next_fewest
    the player after you, who plays next, holds the fewest cards (if you
    wait, the shortest hand at the table moves first);
assaf_out
    your game total is close enough to the limit that an Assaf's points
    (your hand plus the penalty) would put you out;
leading
    no other player still in has a lower game total than yours (ties count
    as leading).

The last two bring in the game score. For each feature and hand value,
:func:`feature_table` gives the Assaf risk if you called now (the share of
decision points where some opponent held the hand value or less), the gain
of calling over waiting (by default in game-win chance from the equity
tables, else in round margin) with 95% intervals clustered by game, and a
verdict from one-sided tests controlled together at a false-discovery rate
of 5% over the whole table, as in :mod:`yaniv_sim.analysis.decision_table`.
The points are those of the report's self-play with call-or-wait branches
(:func:`yaniv_sim.solve.branch_values`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd

from yaniv_sim.stats import clustered_interval, clustered_means, fdr_verdicts

__all__ = ["FEATURES", "Feature", "feature_table"]


class Feature(NamedTuple):
    """A split of the decision points by something every player can see."""

    label: str  # its name in the report
    meaning: str
    levels: tuple[str, str]  # the names of level 0 and level 1


FEATURES = {
    "pickup": Feature(
        "Pickup",
        "an opponent still holds pile cards worth no more than your hand",
        ("no pickup", "a pickup"),
    ),
    "one_card": Feature(
        "One card in hand",
        "your hand is a single card",
        ("two or more cards", "a single card"),
    ),
    "next_fewest": Feature(
        "Shortest hand next",
        "the next player holds the fewest cards",
        ("the shortest hand elsewhere", "the shortest hand next"),
    ),
    "assaf_out": Feature(
        "An Assaf puts you out",
        "an Assaf's points would put you out",
        ("room for an Assaf", "no room for an Assaf"),
    ),
    "leading": Feature(
        "Lowest total",
        "no other player still in has a lower game total than yours",
        ("someone lower", "the lowest total"),
    ),
}


def feature_table(
    points: pd.DataFrame,
    feature: str,
    by=("hand_value",),
    gain: str = "win_gain",
    min_points: int = 100,
    fdr: float = 0.05,
) -> pd.DataFrame:
    """Assaf risk and the gain of calling for each ``by`` cell and level of ``feature``.

    ``points``: one row per decision point with ``game``, the ``by`` columns,
    ``feature`` (0 or 1), ``assafed`` (0 or 1) and the ``gain`` column (as
    :func:`yaniv_sim.solve.branch_values` gives them). Returns one row per
    cell and level: the keys, ``level`` (0 or 1), ``n``, ``games``, ``risk``,
    ``risk_low``, ``risk_high``, ``gain``, ``gain_low``, ``gain_high``,
    ``called`` (share of points where the player called), ``p_call``,
    ``p_wait`` and ``verdict`` (``call``, ``wait``, ``too close``, or ``too
    few`` under ``min_points`` points).
    """
    if feature not in FEATURES:
        raise ValueError(f"feature: {feature!r}; choose from " + ", ".join(FEATURES))
    keys = points[[*by, feature]].rename(columns={feature: "level"}).reset_index(drop=True)
    games = points["game"].to_numpy()
    risk = clustered_means(points["assafed"].to_numpy(np.float64), keys, games)
    table = risk[[*by, "level", "n", "clusters"]].rename(columns={"clusters": "games"})
    table["risk"] = risk["mean"]
    table["risk_low"], table["risk_high"] = clustered_interval(risk, (0.0, 1.0))
    value = clustered_means(points[gain].to_numpy(np.float64), keys, games)
    table = table.merge(
        value[[*by, "level", "mean", "se", "clusters", "p_above", "p_below"]], on=[*by, "level"]
    )
    table["gain_low"], table["gain_high"] = clustered_interval(table)
    table = table.rename(columns={"mean": "gain", "p_above": "p_call", "p_below": "p_wait"})
    groups = [points[c] for c in by] + [points[feature].rename("level")]
    called = points.groupby(groups, observed=True)["called"].mean()
    called = called.rename("called").reset_index()
    table = table.merge(called, on=[*by, "level"], how="left")
    table["verdict"] = fdr_verdicts(table["p_call"], table["p_wait"], table["n"], min_points, fdr)
    columns = [*by, "level", "n", "games", "risk", "risk_low", "risk_high", "gain", "gain_low",
               "gain_high", "called", "p_call", "p_wait", "verdict"]  # fmt: skip
    return table[columns].sort_values([*by, "level"]).reset_index(drop=True)
