"""Long rounds: how max-shed and the heuristic end a round that would never end.

A round can lock up. Everyone may hold one low card the others know
(taken from the pile), so every call would be Assafed and nobody calls;
two players may swap the same two threes forever; or, at a big table with
one deck, every low card may be held and the stock may hold only high
cards, so nobody ever gets under the threshold. The rules stop such a round
after ``max_turns`` turns as void, but that is a safety net, not play.

From ``patience`` turns a seat into the round (turns played >= patience
times the seats still in), a seat plays to end the round:

- it calls whenever it may (whatever the Assaf risk);
- it lays the card set with the most cards (ties: the most points), so its
  hand shrinks; a seat that cannot get under the threshold even if its
  worst card became a joker (its other cards are worth more than the
  threshold) lays its cheapest card set of the most cards instead, giving a
  low card back to the table;
- it takes the previous discard's card only if it is a joker, fits the hand
  (same rank, or same suit and next to a card in rank) or makes the hand
  callable; otherwise it draws from the stock.

Each of these functions reads only what the seat may see.
"""

from __future__ import annotations

from yaniv_sim._numba import njit
from yaniv_sim.cards import IS_JOKER, RANK, SUIT, VALUE
from yaniv_sim.engine._discards import C_MASK, C_POINTS, LOW_BIT, POPCOUNT, _takeable_bits
from yaniv_sim.engine._layout import PREV, PS_PREV_KIND, PS_PREV_N, PS_TURN


@njit(inline="always")
def _long_round(patience, hand_n, pst):
    """Whether the round has gone on for ``patience`` turns a seat still in (0: never)."""
    if patience <= 0 or pst[PS_TURN] < 2 * patience:  # at least two seats are in
        return False
    seats_in = 0
    for o in range(hand_n.shape[0]):
        if hand_n[o] > 0:
            seats_in += 1
    return pst[PS_TURN] >= patience * seats_in


@njit(inline="always")
def _fits(hands, seat, n, c):
    """Whether card ``c`` is a joker or could meet a card of the hand in a set or run."""
    if IS_JOKER[c]:
        return True
    for i in range(n):
        h = hands[seat, i]
        if IS_JOKER[h]:
            continue
        if RANK[h] == RANK[c] or (SUIT[h] == SUIT[c] and abs(RANK[h] - RANK[c]) <= 1):
            return True
    return False


@njit(inline="always")
def _long_round_discard(seat, rules, t, n_sets):
    """Index in ``t.cand`` of the card set a seat lays in a long round (see the module)."""
    hands, hand_n, hand_val, cand = t.hands, t.hand_n, t.hand_val, t.cand
    top = 0
    for i in range(hand_n[seat]):
        top = max(top, VALUE[hands[seat, i]])
    hopeless = hand_val[seat] - top > rules.threshold
    best = 0
    best_key = -(1 << 30)
    for i in range(n_sets):
        points = cand[C_POINTS, i]
        key = 1000 * POPCOUNT[cand[C_MASK, i]] + (-points if hopeless else points)
        if key > best_key:
            best = i
            best_key = key
    return best


@njit(inline="always")
def _long_round_draw(seat, rules, t):
    """Where a seat draws in a long round: the lowest wanted takeable card, else -1 (the stock)."""
    hands, hand_n, piles, pst = t.hands, t.hand_n, t.piles, t.pst
    prev_n = pst[PS_PREV_N]
    if prev_n == 0:
        return -1
    n = hand_n[seat]
    left = 0
    for i in range(n):
        left += VALUE[hands[seat, i]]
    bits = _takeable_bits(prev_n, pst[PS_PREV_KIND], rules.set_draw_ends != 0)
    best = -1
    best_value = 99
    while bits:
        p = LOW_BIT[bits]
        bits &= bits - 1
        c = piles[PREV, p]
        v = VALUE[c]
        if (left + v <= rules.threshold or _fits(hands, seat, n, c)) and v < best_value:
            best = p
            best_value = v
    return best
