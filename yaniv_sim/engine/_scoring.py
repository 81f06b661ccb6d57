"""Kernels for round scores, running totals and who starts the next round.

Arrays are indexed by seat. ``alive`` marks the seats still in the game
(``int8``/``bool``); seats out of the game score nothing and are skipped.
"""

from __future__ import annotations

import numpy as np

from yaniv_sim._numba import njit
from yaniv_sim.engine._layout import (
    OUT_ASSAF,
    OUT_SLAPDOWN,
    OUT_STOCK_OUT,
    OUT_YANIV,
    THEFT_CHARGE,
)


@njit(inline="always")
def _next_alive(alive, seat):
    """The next seat clockwise after ``seat`` that is still in the game (-1 if none)."""
    n = alive.shape[0]
    s = seat
    for _ in range(n):
        s += 1
        if s == n:
            s = 0
        if alive[s]:
            return s
    return -1


@njit
def _score_round(values, alive, caller, slapdown, rules, scores):
    """Score one round into ``scores``; return ``(outcome, round winner)``.

    Parameters
    ----------
    values : int64[seats]
        Hand values when the round ended.
    alive : int8[seats]
    caller : int
        Seat that called Yaniv or slapped down; -1 when the round ended
        without a call (the stock ran out), when everyone scores their hand.
    slapdown : bool
        The caller slapped down (hand of value 0 right after a draw).
    rules : int64 rule vector
    scores : int64[seats], written

    Returns
    -------
    outcome : int
        One of the ``OUT_*`` codes (never void: a void round is not scored).
    winner : int
        The round's winner for the ``starter = winner`` rule, -1 for none.
    """
    seats = values.shape[0]
    for s in range(seats):
        scores[s] = values[s] if alive[s] else 0
    if caller < 0:
        return OUT_STOCK_OUT, -1
    scores[caller] = 0
    if slapdown:
        return OUT_SLAPDOWN, caller
    c = values[caller]
    lowest = np.int64(1 << 30)
    for o in range(seats):
        if alive[o] and o != caller and values[o] < lowest:
            lowest = values[o]
    if not rules.assaf or lowest > c:
        return OUT_YANIV, caller
    scores[caller] = rules.assaf_penalty + (c if rules.assaf_adds_hand else 0)
    winner = -1
    o = caller
    for _ in range(seats - 1):
        o = (o + 1) % seats
        if alive[o] and values[o] == lowest:
            if winner < 0:
                winner = o
            if rules.assaf_winner == 0:
                scores[o] = 0
        if alive[o] and rules.assaf_winner == 2:
            scores[o] = 0
    return OUT_ASSAF, winner


@njit
def _settle(totals, scores, alive, rules, landed, charges):
    """Add a round's scores to the running totals; return the game's winner or -1.

    Milestones first (a positive score landing exactly on one), then milestone
    theft charges (computed from the totals after milestones), then
    elimination above the limit, with the all-over-the-limit rule. ``totals``,
    ``alive`` and ``landed`` (1 where a seat landed on a milestone) are
    updated in place; ``charges`` (int64[seats]) is scratch.
    """
    seats = totals.shape[0]
    n_landed = 0
    for s in range(seats):
        landed[s] = 0
        if not alive[s]:
            continue
        totals[s] += scores[s]
        if scores[s] > 0:
            for m in range(rules.n_milestones):
                if totals[s] == rules.milestones[m, 0]:
                    totals[s] = rules.milestones[m, 1]
                    landed[s] = 1
                    n_landed += 1
                    break
    if rules.theft and n_landed > 0:
        for s in range(seats):
            charges[s] = 0
        for s in range(seats):
            if not landed[s]:
                continue
            lowest = np.int64(1 << 62)
            for o in range(seats):
                if alive[o] and o != s and totals[o] < lowest:
                    lowest = totals[o]
            for o in range(seats):
                if alive[o] and o != s and totals[o] == lowest:
                    charges[o] += THEFT_CHARGE
        for s in range(seats):
            totals[s] += charges[s]
    limit = rules.limit
    n_alive = 0
    n_over = 0
    for s in range(seats):
        if alive[s]:
            n_alive += 1
            if totals[s] > limit:
                n_over += 1
    if n_over == n_alive:
        # everyone still in is over the limit: the lowest total wins, ties play on
        lowest = np.int64(1 << 62)
        for s in range(seats):
            if alive[s] and totals[s] < lowest:
                lowest = totals[s]
        n_low = 0
        last = -1
        for s in range(seats):
            if alive[s]:
                if totals[s] == lowest:
                    n_low += 1
                    last = s
                else:
                    alive[s] = 0
        return last if n_low == 1 else -1
    remaining = -1
    n_left = 0
    for s in range(seats):
        if alive[s]:
            if totals[s] > limit:
                alive[s] = 0
            else:
                n_left += 1
                remaining = s
    return remaining if n_left == 1 else -1


@njit
def _next_starter(rules, last_starter, round_winner, alive):
    """Who starts the next round under the rule's ``starter`` field."""
    if rules.starter_winner:
        seat = last_starter if round_winner < 0 else round_winner
        if alive[seat]:
            return seat
        return _next_alive(alive, seat)
    return _next_alive(alive, last_starter)


@njit
def _settle_rounds(totals, scores, alive, rules, scratch, winners):
    """:func:`_settle` for every row: ``totals`` and ``alive`` (int64/int8[n, seats])
    updated in place, ``scores`` int64[n, seats], ``winners`` int64[n] gets each
    row's game winner or -1; ``scratch`` int64/int8 pair ``(charges[seats],
    landed[seats])``."""
    charges, landed = scratch
    for i in range(totals.shape[0]):
        winners[i] = _settle(totals[i], scores[i], alive[i], rules, landed, charges)
