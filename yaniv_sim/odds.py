"""Exact odds by combinatorics.

Terminology
-----------
dealt hand
    ``hand_size`` cards drawn uniformly at random, without replacement, from
    a set of cards (a full deck, or the cards a player has not seen).
"""

from __future__ import annotations

from math import comb

import numpy as np

from yaniv_sim.cards import VALUE, deck_codes
from yaniv_sim.rules import Rules

__all__ = ["hand_value_distribution", "p_dealt_at_most"]


def hand_value_distribution(cards, hand_size: int) -> np.ndarray:
    """Exact distribution of the value of ``hand_size`` cards drawn from ``cards``.

    Parameters
    ----------
    cards : array of card codes
        The cards drawn from (each code once).
    hand_size : int

    Returns
    -------
    numpy.ndarray
        ``p[v]`` is the probability that the hand's value is ``v``.
    """
    cards = np.asarray(cards)
    if not 0 <= hand_size <= len(cards):
        raise ValueError(f"hand_size: {hand_size} cards cannot be drawn from {len(cards)}")
    counts = np.bincount(VALUE[cards], minlength=11)
    max_value = 10 * hand_size
    # ways[k][s]: number of k-card subsets of the values seen so far with sum s
    ways = [[0] * (max_value + 1) for _ in range(hand_size + 1)]
    ways[0][0] = 1
    for value, count in enumerate(counts):
        if count == 0:
            continue
        new = [[0] * (max_value + 1) for _ in range(hand_size + 1)]
        for k in range(hand_size + 1):
            for s in range(max_value + 1):
                if ways[k][s] == 0:
                    continue
                for j in range(min(count, hand_size - k) + 1):
                    t = s + j * value
                    if t <= max_value:
                        new[k + j][t] += ways[k][s] * comb(int(count), j)
        ways = new
    total = comb(len(cards), hand_size)
    return np.array([w / total for w in ways[hand_size]])


def p_dealt_at_most(value: int, rules: Rules, players: int) -> float:
    """Probability that a freshly dealt hand is worth at most ``value`` points."""
    deck = deck_codes(rules.decks_for(players), rules.jokers_per_deck)
    dist = hand_value_distribution(deck, rules.hand_size)
    return float(dist[: value + 1].sum())
