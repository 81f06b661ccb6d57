"""Simulated statistics that have an exact answer, checked against it at fixed seeds."""

from __future__ import annotations

from collections import Counter
from itertools import combinations, pairwise
from math import comb

import numpy as np
import pytest
from scipy import stats

from yaniv_sim import Rules, engine
from yaniv_sim.cards import VALUE, deck_codes
from yaniv_sim.odds import hand_value_distribution, p_dealt_at_most


def exact_p_at_most(limit: int, hand_size: int = 5, jokers: int = 2, decks: int = 1) -> float:
    """P(value of a dealt hand <= limit), by counting hands over card values.

    A deck holds, per deck: 4 cards of each value 1-9, 16 tens (10 J Q K),
    and the jokers (value 0). Count the hands by how many cards of each value
    they hold: a product of binomials.
    """
    counts = {0: jokers * decks, 10: 16 * decks}
    counts.update({v: 4 * decks for v in range(1, 10)})
    total = sum(counts.values())
    favourable = 0

    def walk(values, k, budget, ways):
        nonlocal favourable
        if k == 0:
            favourable += ways
            return
        if not values:
            return
        v, rest = values[0], values[1:]
        for j in range(min(counts[v], k) + 1):
            if j * v > budget:
                break
            walk(rest, k - j, budget - j * v, ways * comb(counts[v], j))

    walk(sorted(counts), hand_size, limit, 1)
    return favourable / comb(total, hand_size)


def test_exact_counting_agrees_with_brute_force_on_a_small_deck():
    cards = deck_codes(1, 2)[::4]  # 14 cards: a mix of values
    values = [int(VALUE[c]) for c in cards]
    brute = Counter(sum(h) for h in combinations(values, 3))
    dist = hand_value_distribution(cards, 3)
    n = comb(len(cards), 3)
    for v, count in brute.items():
        assert dist[v] == pytest.approx(count / n, abs=1e-15)
    assert dist.sum() == pytest.approx(1.0)


@pytest.mark.parametrize("limit", [5, 7, 9, 15])
def test_odds_module_matches_the_test_own_counting(limit):
    assert p_dealt_at_most(limit, Rules(), 4) == pytest.approx(exact_p_at_most(limit), rel=1e-12)


def test_known_small_probabilities():
    # five cards are worth at least 3 (two jokers and three aces)
    assert exact_p_at_most(2) == 0.0
    # the only hands worth 3: both jokers and three of the four aces
    assert exact_p_at_most(3) == pytest.approx(comb(4, 3) / comb(54, 5))


def _dealt_values(rules, players, rounds, seed):
    """Values of seat 0's dealt hand over seeded rounds."""
    out = []
    for r in range(rounds):
        record = engine.play_round(rules, players, seed, round=r, record=False)
        out.append(engine.hand_value(record.dealt[0]))
    return np.array(out)


def test_dealt_hand_value_distribution_matches_exact_counts():
    rules = Rules(max_turns=1)
    values = _dealt_values(rules, 4, 20_000, seed=2024)
    exact = hand_value_distribution(deck_codes(1, 2), 5)
    # bins with enough expected count, the tails pooled
    edges = [0, 15, 18, 21, 24, 27, 30, 33, 36, 39, 42, 51]
    observed = np.histogram(values, bins=edges)[0]
    expected = np.array([exact[a:b].sum() for a, b in pairwise(edges)])
    expected *= len(values)
    assert expected.min() > 50
    p = stats.chisquare(observed, expected).pvalue
    assert p > 0.001, f"dealt hand values differ from the exact distribution (p={p:.2g})"


@pytest.mark.parametrize(
    ("threshold", "rounds"),
    [(5, 4_000_000), (7, 1_000_000), (9, 400_000), (15, 100_000)],
)
def test_first_turn_call_rate_matches_exact_deal_odds(threshold, rounds):
    """max-shed calls at once exactly when the dealt hand is at most the threshold."""
    rules = Rules(threshold=threshold, max_turns=1)
    data = engine.play_rounds(rules, 4, 11 + threshold, rounds)
    first_turn = int(((data["turns"] == 0) & (data["caller"] >= 0)).sum())
    p = exact_p_at_most(threshold)
    # two-sided exact binomial test at a fixed seed
    pvalue = stats.binomtest(first_turn, rounds, p).pvalue
    assert pvalue > 0.001, f"{first_turn}/{rounds} vs exact {p:.6f} (p={pvalue:.2g})"
    # and the estimate lies within 5 standard errors (a stated tolerance)
    se = np.sqrt(p * (1 - p) / rounds)
    assert abs(first_turn / rounds - p) < 5 * se
