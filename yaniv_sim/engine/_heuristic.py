"""The heuristic policy family: when to call, what to discard, what to draw.

One policy record (``policy.call_at``, ... : the heuristic's fields of
:func:`~yaniv_sim.policies.record_type`) drives every decision;
``docs/policies.md`` documents each parameter. A decision reads only what the
seat may see: its own hand, the discard pile (the dead pile and the previous
discard), how many cards each opponent holds, the cards each opponent took
from the pile and still holds (``taken``), the turn and the running totals.

Terminology
-----------
unseen cards
    The deck less the seat's own hand, the visible pile and the cards
    opponents are known to hold; an opponent's unknown cards are drawn from
    them.
Assaf risk
    The chance that some opponent holds at most the caller's value, with each
    opponent's unknown cards taken as a random draw from the unseen cards
    (exact per opponent, opponents combined as if independent).
landing
    A positive round score that brings a total exactly onto a milestone
    total; the total is then lowered (and, with milestone theft, the leaders
    are charged).
leader
    A player still in the game with the lowest running total.
"""

from __future__ import annotations

import math

import numpy as np

from yaniv_sim._numba import njit
from yaniv_sim.cards import IS_JOKER, RANK, SUIT, VALUE
from yaniv_sim.engine._discards import (
    C_JOKERS,
    C_MASK,
    C_POINTS,
    LOW_BIT,
    POPCOUNT,
    _lay,
    _layings,
    _mask_kind,
    _run_span,
    _takeable_bits,
)
from yaniv_sim.engine._layout import (
    CUR,
    DEAD,
    KIND_RUN,
    KIND_SET,
    LAY_KIND,
    PREV,
    PS_CUR_KIND,
    PS_CUR_N,
    PS_DEAD_N,
    PS_PREV_KIND,
    PS_PREV_N,
    PS_TURN,
)
from yaniv_sim.engine._long_round import _fits, _long_round, _long_round_discard, _long_round_draw
from yaniv_sim.policies import (
    HEURISTIC,
    TABLE_BAND_EDGES,
    TABLE_BANDS,
    TABLE_CARDS,
    TABLE_OPPONENTS,
    TABLE_PICKUPS,
)

THEFT_NEAR = 3  # an opponent's guessed total within this of a milestone "could land"
# the call table (the ``call_table`` field): call (1) or wait (0) by own hand
# value 0..15, fewest cards an opponent holds 1..7, turn band (turns played:
# 0-9, 10-19, 20+), opponents still in (1, 2, 3+) and pickup (0 or 1)
H_TABLE_BASE = HEURISTIC.slot("call_table")


def table_cell(value: int, fewest: int, band: int, opponents: int, pickup: int) -> int:
    """Index of one cell in the ``call_table`` field (``opponents`` 1..3, 3 meaning 3+)."""
    cell = ((value * TABLE_CARDS + (fewest - 1)) * TABLE_BANDS + band) * TABLE_OPPONENTS
    return (cell + opponents - 1) * TABLE_PICKUPS + pickup


def table_index(value: int, fewest: int, band: int, opponents: int, pickup: int) -> int:
    """Slot of one call-table cell in a heuristic's policy vector."""
    return H_TABLE_BASE + table_cell(value, fewest, band, opponents, pickup)


def _binomials(n_max: int = 120, k_max: int = 8) -> np.ndarray:
    table = np.zeros((n_max + 1, k_max + 1), np.int64)
    for n in range(n_max + 1):
        for k in range(min(n, k_max) + 1):
            table[n, k] = math.comb(n, k)
    return table


COMB = _binomials()  # COMB[n, k] = n choose k, for the unseen cards and a hand's draws


@njit
def _unseen_counts(seat, rules, view, counts):
    """Unseen cards by value (``counts[0..10]``) as ``seat`` sees them; their number."""
    hands, taken, hand_n, piles, pst = view
    decks = rules.decks
    counts[0] = rules.jokers
    for v in range(1, 10):
        counts[v] = 4 * decks
    counts[10] = 16 * decks
    for i in range(hand_n[seat]):
        counts[VALUE[hands[seat, i]]] -= 1
    for i in range(pst[PS_DEAD_N]):
        counts[VALUE[piles[DEAD, i]]] -= 1
    for i in range(pst[PS_PREV_N]):
        counts[VALUE[piles[PREV, i]]] -= 1
    for o in range(hand_n.shape[0]):
        if o != seat:
            for i in range(hand_n[o]):
                if taken[o, i]:
                    counts[VALUE[hands[o, i]]] -= 1
    total = 0
    for v in range(11):
        total += counts[v]
    return total


@njit(inline="always")
def _known_cards(hands, taken, hand_n, o):
    """(number, value) of the cards seat ``o`` took from the pile and still holds."""
    known = 0
    value = 0
    for i in range(hand_n[o]):
        if taken[o, i]:
            known += 1
            value += VALUE[hands[o, i]]
    return known, value


@njit
def _p_at_most(counts, unseen, draws, budget, ways):
    """P(the value of ``draws`` cards drawn from the unseen cards <= ``budget``).

    Counts the ``draws``-card subsets by value with a bounded knapsack over
    the values; cards worth more than the budget can never be in such a hand.
    ``ways`` is int64 scratch of at least ``(draws + 1) * (budget + 1)``.
    """
    if budget < 0:
        return 0.0
    if draws == 0:
        return 1.0
    if draws > unseen:
        return 0.0
    width = budget + 1
    for cell in range((draws + 1) * width):
        ways[cell] = 0
    ways[0] = 1
    for v in range(min(10, budget) + 1):
        n_v = counts[v]
        if n_v <= 0:
            continue
        # in place: larger k first, so ways[k - j] still holds the previous values
        for k in range(draws, 0, -1):
            for s in range(budget, -1, -1):
                acc = ways[k * width + s]
                for j in range(1, min(n_v, k) + 1):
                    t = s - j * v
                    if t < 0:
                        break
                    acc += ways[(k - j) * width + t] * COMB[n_v, j]
                ways[k * width + s] = acc
    favourable = 0
    for s in range(width):
        favourable += ways[draws * width + s]
    return favourable / COMB[unseen, draws]


@njit
def _assaf_risk(seat, value, rules, view, cand):
    """Estimated chance that calling now with ``value`` is met by an Assaf.

    Uses ``cand`` as scratch (the call is decided before any card set is
    listed): row 2 holds the unseen counts, rows 0 and 1 the counting tables.
    """
    hands, taken, hand_n, _, _ = view
    counts = cand[2]
    unseen = _unseen_counts(seat, rules, view, counts)
    p_none = 1.0
    # opponents often share (unknown cards, budget): remember the last few answers
    memo_key = cand[2, 20:28]
    memo_p = cand[2, 28:36]  # probabilities stored as parts per 2**40
    memo_n = 0
    for o in range(hand_n.shape[0]):
        if o == seat or hand_n[o] == 0:  # seats out of the game hold no cards
            continue
        known, known_value = _known_cards(hands, taken, hand_n, o)
        draws = hand_n[o] - known
        budget = value - known_value
        # the lowest the unknown cards can be worth: the cheapest unseen cards
        least = 0
        need = draws
        for v in range(11):
            take = min(need, counts[v])
            least += take * v
            need -= take
            if need == 0:
                break
        if budget < least:
            continue  # this opponent cannot be at or below the caller
        key = draws * 64 + budget
        p = -1.0
        for m in range(memo_n):
            if memo_key[m] == key:
                p = memo_p[m] / 1099511627776.0
                break
        if p < 0:
            p = _p_at_most(counts, unseen, draws, budget, cand[0])
            if memo_n < 8:
                memo_key[memo_n] = key
                memo_p[memo_n] = np.int64(p * 1099511627776.0)
                memo_n += 1
        p_none *= 1.0 - p
    return 1.0 - p_none


@njit(inline="always")
def _is_milestone(rules, total):
    """Whether ``total`` is one of the rules' milestone totals."""
    for m in range(rules.n_milestones):  # noqa: SIM110  (no generators in numba kernels)
        if total == rules.milestones[m, 0]:
            return True
    return False


@njit
def _theft_pressure(seat, rules, totals, view, cand, penalty):
    """Whether a landing at this round's end would charge a leader other than ``seat``.

    True when the seat's own Assaf would land on a milestone while an
    opponent leads, or when some opponent's guessed hand (known pickups at
    their value, each unknown card at the mean unseen value) would bring
    their total within ``THEFT_NEAR`` of a milestone while the players who
    would pay (the lowest totals among the others) do not include the seat.
    Uses ``cand[2]`` as scratch.
    """
    hands, taken, hand_n, _, _ = view
    seats = hand_n.shape[0]
    own = totals[seat]
    opponent_leads = False
    for o in range(seats):
        if o != seat and hand_n[o] > 0 and totals[o] < own:
            opponent_leads = True
    if opponent_leads and _is_milestone(rules, own + penalty):
        return True
    counts = cand[2]
    unseen = _unseen_counts(seat, rules, view, counts)
    mean = 0.0
    for v in range(11):
        mean += v * counts[v]
    mean /= max(unseen, 1)
    for o in range(seats):
        if o == seat or hand_n[o] == 0:
            continue
        known, known_value = _known_cards(hands, taken, hand_n, o)
        guess = totals[o] + known_value + (hand_n[o] - known) * mean
        near = False
        for m in range(rules.n_milestones):
            if abs(guess - rules.milestones[m, 0]) <= THEFT_NEAR:
                near = True
        if not near:
            continue
        # if o lands, the lowest totals among everyone else pay
        lowest = own
        for p in range(seats):
            if p != o and hand_n[p] > 0:
                lowest = min(lowest, totals[p])
        if own > lowest:
            return True
    return False


@njit
def _heuristic_call(policy, seat, rules, totals, hand_val, view, cand):
    """Whether the heuristic at ``seat`` calls now (asked only when it may).

    ``view = (hands, taken, hand_n, piles, pst)``: the table's arrays, of
    which the seat reads only what it may see.
    """
    hands, taken, hand_n, _, pst = view
    value = hand_val[seat]
    if not rules.assaf:
        return True
    penalty = rules.assaf_penalty + (value if rules.assaf_adds_hand else 0)
    if policy.milestone > 0 and _is_milestone(rules, totals[seat] + penalty):
        return True  # even an Assaf would land exactly on a milestone
    if _long_round(policy.patience, hand_n, pst):
        return True  # a long round: end it (see _long_round)
    call_at = min(policy.call_at, rules.threshold)
    fewest = 99
    low_pickup = False
    opponents = 0
    pickup = 0  # an opponent's cards taken from the pile add up to no more than the hand
    for o in range(hand_n.shape[0]):
        if o == seat or hand_n[o] == 0:  # seats out of the game hold no cards
            continue
        fewest = min(fewest, hand_n[o])
        opponents += 1
        known_n = 0
        known_value = 0
        for i in range(hand_n[o]):
            if taken[o, i]:
                known_n += 1
                known_value += VALUE[hands[o, i]]
                if VALUE[hands[o, i]] <= policy.pickup_value:
                    low_pickup = True
        if known_n > 0 and known_value <= value:
            pickup = 1
    if policy.table > 0:
        # a cell of 1 calls, 0 waits, anything between defers to the rules below
        turn = pst[PS_TURN]
        band = 0 if turn < TABLE_BAND_EDGES[0] else (1 if turn < TABLE_BAND_EDGES[1] else 2)
        cell = (min(value, 15) * TABLE_CARDS + (min(fewest, 7) - 1)) * TABLE_BANDS + band
        cell = (cell * TABLE_OPPONENTS + min(opponents, TABLE_OPPONENTS) - 1) * TABLE_PICKUPS
        verdict = policy.call_table[cell + pickup]
        if verdict >= 1.0:
            return True
        if verdict <= 0.0:
            return False
    if fewest <= policy.few_cards:
        call_at -= policy.few_margin
    if low_pickup:
        call_at -= policy.pickup_margin
    if policy.late_turn > 0 and pst[PS_TURN] >= policy.late_turn:
        call_at -= policy.late_margin
    if totals[seat] + penalty > rules.limit:
        call_at -= policy.limit_margin
    if (
        rules.theft
        and policy.theft_margin > 0
        and _theft_pressure(seat, rules, totals, view, cand, penalty)
    ):
        call_at += policy.theft_margin
    if value > call_at:
        return False
    if policy.suspicion > 0:
        counts = cand[2]
        unseen = _unseen_counts(seat, rules, view, counts)
        mean = 0.0
        for v in range(11):
            mean += v * counts[v]
        mean /= max(unseen, 1)
        for o in range(hand_n.shape[0]):
            if o == seat or hand_n[o] == 0:
                continue
            known, known_value = _known_cards(hands, taken, hand_n, o)
            estimate = known_value + (hand_n[o] - known) * policy.suspicion * mean
            if estimate <= value:
                return False
    acceptable = policy.max_risk
    if policy.risk_table > 0:
        acceptable = min(acceptable, policy.risk_at[min(value, 15)])
    if value > 0 and policy.milestone_wait < 1.0 and _is_milestone(rules, totals[seat] + value):
        # being caught with this hand would land on a milestone: worth waiting for
        acceptable = min(acceptable, policy.milestone_wait)
    if acceptable < 1.0:
        risk = _assaf_risk(seat, value, rules, view, cand)
        if risk > acceptable:
            return False
    return True


@njit(inline="always")
def _combo_potential(hands, seat, n, skip):
    """Points in pairs of cards (not in ``skip``) that could still meet in a set or run."""
    total = 0
    for i in range(n):
        if (skip >> i) & 1:
            continue
        a = hands[seat, i]
        for j in range(i + 1, n):
            if (skip >> j) & 1:
                continue
            b = hands[seat, j]
            if (
                IS_JOKER[a]
                or IS_JOKER[b]
                or RANK[a] == RANK[b]
                or (SUIT[a] == SUIT[b] and abs(RANK[a] - RANK[b]) <= 2)
            ):
                total += VALUE[a] + VALUE[b]
    return total


@njit
def _heuristic_discard(policy, seat, rules, t, n_sets):
    """Choose, lay and return the slot mask of the heuristic's discard.

    Score of a card set: its points plus ``keep`` times the combination
    potential left in the hand; ties go to fewer jokers, then more cards,
    then the first listed. With ``hold_jokers`` a card set holding a joker
    is considered only when every listed set holds one. With
    ``milestone_slack`` a set scoring within the slack of the best is
    preferred when the hand it leaves would land the total on a milestone.
    """
    if _long_round(policy.patience, t.hand_n, t.pst):
        best = _long_round_discard(seat, rules, t, n_sets)
    else:
        best = _heuristic_pick(policy, seat, rules, t, n_sets)
    return _lay_chosen(policy, seat, rules, t, best)


@njit(inline="always")
def _heuristic_pick(policy, seat, rules, t, n_sets):
    """The index in ``t.cand`` of the card set :func:`_heuristic_discard` lays outside a
    long round."""
    totals, hands, hand_n, hand_val = t.totals, t.hands, t.hand_n, t.hand_val
    cand = t.cand
    n = hand_n[seat]
    keep = policy.keep
    hold = False
    if policy.hold_jokers > 0:
        for i in range(n_sets):
            if cand[C_JOKERS, i] == 0:
                hold = True  # a joker-free card set exists: keep the jokers
                break
    best = 0
    best_score = -1e18
    for i in range(n_sets):
        if hold and cand[C_JOKERS, i] > 0:
            continue
        score = float(cand[C_POINTS, i])
        if keep != 0.0:
            score += keep * _combo_potential(hands, seat, n, cand[C_MASK, i])
        better = score > best_score + 1e-9
        if not better and abs(score - best_score) <= 1e-9:
            d = cand[C_JOKERS, best] - cand[C_JOKERS, i]
            if d == 0:
                d = POPCOUNT[cand[C_MASK, i]] - POPCOUNT[cand[C_MASK, best]]
            better = d > 0
        if better:
            best = i
            best_score = score
    slack = policy.milestone_slack
    if slack > 0:
        # the highest-scoring set within the slack whose remaining hand would land
        aim = -1
        aim_score = -1e18
        for i in range(n_sets):
            if hold and cand[C_JOKERS, i] > 0:
                continue
            left = hand_val[seat] - cand[C_POINTS, i]
            if left <= 0 or not _is_milestone(rules, totals[seat] + left):
                continue
            score = float(cand[C_POINTS, i])
            if keep != 0.0:
                score += keep * _combo_potential(hands, seat, n, cand[C_MASK, i])
            if score >= best_score - slack - 1e-9 and score > aim_score + 1e-9:
                aim = i
                aim_score = score
        if aim >= 0:
            best = aim
    return best


@njit(inline="always")
def _lay_chosen(policy, seat, rules, t, best):
    """Lay card set ``best`` of ``t.cand`` (with ``protect``, the laying that gives least away)."""
    hands, piles, pst, cand = t.hands, t.piles, t.pst, t.cand
    lay, lay_len = t.lay, t.lay_len
    mask = cand[C_MASK, best]
    jis = rules.joker_in_sets != 0
    ends = rules.set_draw_ends != 0
    kind = _mask_kind(hands, seat, mask, jis)
    length = POPCOUNT[mask]
    # more than one laying: a set of 3+ under ends, or one natural card with
    # jokers that may also be laid as a run
    several = (
        kind == KIND_SET and length >= 3 and (ends or (jis and cand[C_JOKERS, best] == length - 1))
    )
    if kind == KIND_RUN:
        lo, hi = _run_span(hands, seat, mask)
        several = length > hi - lo + 1  # spare jokers: more than one placement
    if policy.protect > 0 and several:
        # lay so that the cards the next player may take are worth the most to hold
        rows = _layings(hands, seat, mask, kind, (jis, ends), lay, lay_len, np.int64(0))
        # fewest jokers among the takeable cards first, then the highest lowest one
        pick = 0
        pick_key = -1000
        for r in range(rows):
            bits = _takeable_bits(lay_len[r], np.int64(lay[r, LAY_KIND]), ends)
            jokers = 0
            low = 99
            while bits:
                c = lay[r, LOW_BIT[bits]]
                bits &= bits - 1
                if IS_JOKER[c]:
                    jokers += 1
                else:
                    low = min(low, VALUE[c])
            key = -100 * jokers + low
            if key > pick_key:
                pick = r
                pick_key = key
        for p in range(lay_len[pick]):
            piles[CUR, p] = lay[pick, p]
        pst[PS_CUR_N] = lay_len[pick]
        pst[PS_CUR_KIND] = lay[pick, LAY_KIND]
    else:
        pst[PS_CUR_N] = _lay(hands, seat, mask, kind, piles, CUR)
        pst[PS_CUR_KIND] = kind
    return mask


@njit(inline="always")
def _heuristic_draw(policy, seat, rules, t):
    """-1 for the stock, or the position of the previous discard's card to take."""
    hands, hand_n, piles, pst = t.hands, t.hand_n, t.piles, t.pst
    prev_n = pst[PS_PREV_N]
    if prev_n == 0:
        return -1
    if _long_round(policy.patience, hand_n, pst):
        return _long_round_draw(seat, rules, t)
    bits = _takeable_bits(prev_n, pst[PS_PREV_KIND], rules.set_draw_ends != 0)
    pile_at = policy.pile_at
    combo = policy.pile_combo > 0
    best = -1
    best_value = 99
    while bits:
        p = LOW_BIT[bits]
        bits &= bits - 1
        c = piles[PREV, p]
        v = VALUE[c]
        wanted = v <= pile_at
        if combo and not wanted:
            wanted = _fits(hands, seat, hand_n[seat], c)
        if wanted and v < best_value:
            best = p
            best_value = v
    return best
