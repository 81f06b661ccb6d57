"""The policy kernel: one function per decision, driven by a parameter vector.

A table's policies are a ``float64`` array ``pol`` of shape
``(seats, N_POLICY_PARAMS)``; ``pol[seat, P_KIND]`` picks the rule family and
the other entries are its parameters. A policy sees only what its seat may
see: its own hand, the discard pile, how many cards each opponent holds and
which cards each opponent took from the pile (the ``taken`` flags), the turn
and the running totals. Its randomness is its own stream, ``1 + seat``.

Every decision function takes ``(pol, seat, rp, t)``: the policy matrix,
the seat deciding, the rule vector and the :class:`~yaniv_sim.engine._table.Table`.

Families
--------
``KIND_MAX_SHED`` (``max-shed``)
    Call as soon as it is legal (and slap down whenever it may); otherwise
    discard the card set with the highest point total, ties broken toward
    fewer jokers, then more cards, then uniformly at random among the
    distinct card sets left (a card set that is both a set and a run is laid
    as a set); always draw from the stock.
``KIND_RANDOM`` (``random``)
    A test device: calls with probability ``P_CALL_PROB`` when it may, lays a
    uniformly random legal laying (of either reading, for a card set that is
    both a set and a run), and takes a uniformly random takeable card
    of the previous discard with probability ``P_PILE_PROB``.
"""

from __future__ import annotations

from yaniv_sim._numba import njit
from yaniv_sim.engine._discards import (
    C_JOKERS,
    C_MASK,
    C_POINTS,
    POPCOUNT,
    _lay,
    _layings,
    _mask_kind,
    _takeable_bits,
)
from yaniv_sim.engine._heuristic import (
    N_HEURISTIC_PARAMS,
    _heuristic_call,
    _heuristic_discard,
    _heuristic_draw,
)
from yaniv_sim.engine._layout import (
    CUR,
    LAY_KIND,
    PS_CUR_KIND,
    PS_CUR_N,
    PS_PREV_KIND,
    PS_PREV_N,
    R_JOKER_IN_SETS,
    R_SET_DRAW_ENDS,
)
from yaniv_sim.engine._rng import _below, _uniform
from yaniv_sim.policies import HEURISTIC, MAX_SHED, RANDOM, SLOT_KIND

N_POLICY_PARAMS = N_HEURISTIC_PARAMS  # the largest family: the heuristic and its call table
P_KIND = SLOT_KIND
P_CALL_PROB = RANDOM.slot("call")
P_PILE_PROB = RANDOM.slot("pile")

KIND_MAX_SHED = MAX_SHED.kind
KIND_RANDOM = RANDOM.kind
KIND_HEURISTIC = HEURISTIC.kind

# Whether the decision functions may dispatch to the heuristic family and to
# the random test device. numba reads these at compile time and drops a branch
# where its flag is False: :mod:`yaniv_sim.engine._variants` builds such copies
# of the kernels for max-shed-only runs, which then compile neither.
HEURISTICS = True
RANDOM_POLICY = True


@njit(inline="always")
def _wants_call(pol, seat, rp, t):
    """Whether ``seat`` calls Yaniv now (asked only when the call is legal)."""
    if RANDOM_POLICY:  # noqa: SIM102  (a bare global test, so numba can drop the branch)
        if pol[seat, P_KIND] == KIND_RANDOM:
            return _uniform(t.rng, 1 + seat) < pol[seat, P_CALL_PROB]
    if HEURISTICS:  # noqa: SIM102  (a bare global test, so numba can drop the branch)
        if pol[seat, P_KIND] == KIND_HEURISTIC:
            view = (t.hands, t.taken, t.hand_n, t.piles, t.pst)
            return _heuristic_call(pol, seat, rp, t.totals, t.hand_val, view, t.cand)
    return True


@njit(inline="always")
def _wants_slapdown(pol, seat, rp, t):
    """Whether ``seat`` slaps down (asked only when it may)."""
    rng = t.rng
    if RANDOM_POLICY:  # noqa: SIM102  (a bare global test, so numba can drop the branch)
        if pol[seat, P_KIND] == KIND_RANDOM:
            return _uniform(rng, 1 + seat) < pol[seat, P_CALL_PROB]
    return True


@njit(inline="always")
def _max_shed_pick(cand, n_sets, rng, seat):
    """Index of max-shed's card set among the ``n_sets`` listed in ``cand``."""
    best = 0
    ties = 1
    for i in range(1, n_sets):
        d = cand[C_POINTS, i] - cand[C_POINTS, best]
        if d == 0:
            d = cand[C_JOKERS, best] - cand[C_JOKERS, i]
            if d == 0:
                d = POPCOUNT[cand[C_MASK, i]] - POPCOUNT[cand[C_MASK, best]]
        if d > 0:
            best = i
            ties = 1
        elif d == 0:
            ties += 1
    if ties == 1:
        return best
    pick = _below(rng, 1 + seat, ties)
    for i in range(n_sets):
        if (
            cand[C_POINTS, i] == cand[C_POINTS, best]
            and cand[C_JOKERS, i] == cand[C_JOKERS, best]
            and POPCOUNT[cand[C_MASK, i]] == POPCOUNT[cand[C_MASK, best]]
        ):
            if pick == 0:
                return i
            pick -= 1
    return best


@njit(inline="always")
def _choose_discard(pol, seat, rp, t, n_sets):
    """Choose ``seat``'s discard among the ``n_sets`` card sets in ``cand``.

    Lays it into ``piles[CUR]``, sets ``pst[PS_CUR_N]`` and
    ``pst[PS_CUR_KIND]``, and returns its slot mask.
    """
    hands, piles, pst, cand = t.hands, t.piles, t.pst, t.cand
    rng, lay, lay_len = t.rng, t.lay, t.lay_len
    jis = rp[R_JOKER_IN_SETS] != 0
    if HEURISTICS:  # noqa: SIM102  (a bare global test, so numba can drop the branch)
        if pol[seat, P_KIND] == KIND_HEURISTIC:
            return _heuristic_discard(pol, seat, rp, t, n_sets)
    if RANDOM_POLICY:  # noqa: SIM102  (a bare global test, so numba can drop the branch)
        if pol[seat, P_KIND] == KIND_RANDOM:
            rows = 0
            for i in range(n_sets):
                mask = cand[C_MASK, i]
                cand[C_POINTS, i] = rows  # reused: first laying row of card set i
                kind = _mask_kind(hands, seat, mask, jis)
                rows += _layings(
                    hands, seat, mask, kind, jis, rp[R_SET_DRAW_ENDS] != 0, lay, lay_len, rows
                )
            r = _below(rng, 1 + seat, rows)
            i = n_sets - 1
            while cand[C_POINTS, i] > r:
                i -= 1
            mask = cand[C_MASK, i]
            for p in range(lay_len[r]):
                piles[CUR, p] = lay[r, p]
            pst[PS_CUR_N] = lay_len[r]
            pst[PS_CUR_KIND] = lay[r, LAY_KIND]
            return mask
    mask = cand[C_MASK, _max_shed_pick(cand, n_sets, rng, seat)]
    kind = _mask_kind(hands, seat, mask, jis)
    pst[PS_CUR_N] = _lay(hands, seat, mask, kind, piles, CUR)
    pst[PS_CUR_KIND] = kind
    return mask


@njit(inline="always")
def _choose_draw(pol, seat, rp, t):
    """Where ``seat`` draws from: -1 for the stock, else a position in the previous discard."""
    pst, rng = t.pst, t.rng
    if HEURISTICS:  # noqa: SIM102  (a bare global test, so numba can drop the branch)
        if pol[seat, P_KIND] == KIND_HEURISTIC:
            return _heuristic_draw(pol, seat, rp, t)
    if RANDOM_POLICY:  # noqa: SIM102  (a bare global test, so numba can drop the branch)
        if pol[seat, P_KIND] == KIND_RANDOM:
            prev_n = pst[PS_PREV_N]
            if prev_n > 0 and _uniform(rng, 1 + seat) < pol[seat, P_PILE_PROB]:
                bits = _takeable_bits(prev_n, pst[PS_PREV_KIND], rp[R_SET_DRAW_ENDS] != 0)
                pick = _below(rng, 1 + seat, POPCOUNT[bits])
                for p in range(prev_n):
                    if (bits >> p) & 1:
                        if pick == 0:
                            return p
                        pick -= 1
    return -1
