"""Assaf risk by hand value, measured at every decision point of a dataset.

Terminology
-----------
decision point
    A turn start at which the acting seat may call (a row of the
    ``decisions`` table), whether it called or not.
Assaf risk ("if you called now")
    The share of decision points at which calling would have been met by an
    Assaf: some opponent still in the game holds the caller's value or less
    (``lowest_opponent <= hand_value``; a tie counts against the caller).
    Most decision points are turns at which the policy waits, often because
    the risk is high, so this is the risk of calling at an average decision
    point, not the fate of the calls players make.
Assaf rate of calls ("when players did call")
    The same count over the decision points at which the player did call:
    the share of actual calls that were Assafed.
turn band
    Turns of the round already played (all seats): ``0-9``, ``10-19``, ``20+``,
    the bands of the policies' call table.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from yaniv_sim import odds
from yaniv_sim.cards import deck_codes
from yaniv_sim.engine.specs import TABLE_BAND_EDGES
from yaniv_sim.rules import Rules
from yaniv_sim.stats import clustered_interval, clustered_means, wilson_interval

__all__ = ["BAND_NAMES", "assaf_risk", "called_assaf_rate", "naive_assaf_risk", "turn_band"]

BAND_NAMES = ("0-9", "10-19", "20+")


def turn_band(turn) -> np.ndarray:
    """Band index (0, 1, 2) of each turn number."""
    return np.searchsorted(np.array(TABLE_BAND_EDGES), np.asarray(turn), side="right")


def assaf_risk(decisions: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """Assaf risk with a 95% interval for each group of decision points.

    ``decisions`` is a ``decisions`` table (with any extra columns named in
    ``by``, such as ``players`` or ``band``). Returns one row per group:
    the ``by`` columns, ``n`` (decision points), ``games`` (the games they
    come from), ``assafs`` (points where an opponent held the value or
    less), ``risk``, ``low``, ``high``.

    The points of one game are not independent (a round's consecutive turns
    face the same opponents' hands), so the interval is cluster-robust with
    the game as the cluster (:func:`yaniv_sim.stats.clustered_interval`;
    ``players`` and ``game`` together name a game when both are columns),
    and never narrower than the Wilson interval of the points: the union of
    the two. A group from a single game gets 0 to 1.
    """
    hit = (decisions["lowest_opponent"] <= decisions["hand_value"]).astype(np.int64)
    grouped = hit.groupby([decisions[c] for c in by], observed=True)
    table = pd.DataFrame({"n": grouped.size(), "assafs": grouped.sum()}).reset_index()
    table["risk"] = table["assafs"] / table["n"]
    wilson_low, wilson_high = wilson_interval(table["assafs"], table["n"])
    if "game" not in decisions.columns:
        table.insert(len(by) + 1, "games", table["n"])
        table["low"], table["high"] = wilson_low, wilson_high
        return table
    game = decisions["game"].to_numpy(np.int64)
    if "players" in decisions.columns:
        game = game * 16 + decisions["players"].to_numpy(np.int64)
    keys = decisions[by].reset_index(drop=True)
    means = clustered_means(hit.to_numpy(np.float64), keys, game)
    low, high = clustered_interval(means, (0.0, 1.0))
    means = means[by].assign(games=means["clusters"].to_numpy(), _low=low, _high=high)
    table = table.merge(means, on=by, how="left")
    table["low"] = np.minimum(wilson_low, table.pop("_low"))
    table["high"] = np.maximum(wilson_high, table.pop("_high"))
    columns = [*by, "n", "games", "assafs", "risk", "low", "high"]
    return table[columns]


def called_assaf_rate(decisions: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """The share of actual calls that were Assafed, per group ("when players did call").

    :func:`assaf_risk` over the decision points at which the player called;
    ``n`` counts calls.
    """
    return assaf_risk(decisions[decisions["called"].to_numpy(bool)], by)


def _opponent_cards(decisions: pd.DataFrame) -> np.ndarray:
    columns = [c for c in decisions.columns if re.fullmatch(r"opp\d+_cards", c)]
    return decisions[columns].to_numpy()


def naive_assaf_risk(decisions: pd.DataFrame, rules: Rules, players: int) -> pd.DataFrame:
    """The Assaf risk if opponents' cards were random, for the same situations.

    For each decision point the exact probability (by :func:`yaniv_sim.odds.p_assaf`)
    that some opponent holds the hand value or less when every opponent's
    cards are a uniformly random draw from the full deck, with the
    opponents' card counts of that point; averaged per hand value.
    Returns ``hand_value``, ``n``, ``naive``.
    """
    deck = deck_codes(rules.decks_for(players), rules.jokers_per_deck)
    cards = _opponent_cards(decisions)
    counts = np.sort(np.where(cards >= 0, cards, 0), axis=1)
    keys = pd.DataFrame(counts).assign(hand_value=decisions["hand_value"].to_numpy())
    situations = keys.value_counts().reset_index(name="n")
    cache: dict[tuple, float] = {}
    probability = []
    for row in situations.itertuples(index=False):
        value, *held = row[-2], *row[:-2]
        held = tuple(int(c) for c in held if c > 0)
        key = (int(value), held)
        if key not in cache:
            cache[key] = odds.p_assaf(int(value), list(held), deck)
        probability.append(cache[key])
    situations["p"] = probability
    situations["weighted"] = situations["p"] * situations["n"]
    per_value = situations.groupby("hand_value")[["weighted", "n"]].sum()
    return pd.DataFrame(
        {
            "hand_value": per_value.index.astype(int),
            "n": per_value["n"].to_numpy(),
            "naive": (per_value["weighted"] / per_value["n"]).to_numpy(),
        }
    )
