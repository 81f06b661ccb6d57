"""A reshuffled stock is a fair shuffle of the dead cards.

When the stock runs out, every card under the discard just laid is shuffled
into a new stock. Rounds are replayed from their records: the pile is
followed turn by turn in discard order (the turned-up card, then each
discard, less the cards taken back), and at each reshuffle the card drawn
first from the new stock is located among the cards that went into it.
Each of them should come first equally often, whatever its place in the
pile.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from yaniv_sim import Rules, engine

BINS = 10


def first_draws(rules: Rules, players: int, rounds: int, policy: str):
    """(position in discard order, number of cards) of the first card of every new stock."""
    out = []
    for r in range(rounds):
        record = engine.play_round(rules, players=players, seed=5, round=r, policies=policy)
        pile = [int(record.turned_up)]
        for step in record.steps:
            if step.action != "turn" or step.source == "none":
                continue
            if step.reshuffled:
                assert step.source == "stock"
                out.append((pile.index(int(step.drawn)), len(pile)))
                pile = []
            elif step.source == "pile":
                pile.remove(int(step.drawn))
            pile.extend(int(c) for c in step.discard)
    return out


def test_the_first_card_of_a_new_stock_is_any_dead_card_equally_often():
    rules = Rules(max_turns=150)  # no one calls: rounds run into many reshuffles
    draws = first_draws(rules, 3, 400, "random:call=0,pile=0.3")
    assert len(draws) >= 700
    position, size = np.array(draws).T
    assert size.min() >= 2
    # each position of a pile of n cards is 1/n likely: spread it evenly over
    # [0, 1) with a fixed random offset and count tenths
    offset = np.random.default_rng(0).random(len(draws))
    tenth = np.minimum(((position + offset) / size * BINS).astype(int), BINS - 1)
    observed = np.bincount(tenth, minlength=BINS)
    p = stats.chisquare(observed).pvalue
    assert p > 1e-4, (observed, p)
    # the previous player's discard, the last card into the new stock, is not favoured
    last = np.mean(position == size - 1)
    expected = np.mean(1 / size)
    assert abs(last - expected) < 5 * np.sqrt(expected / len(draws)), (last, expected)
