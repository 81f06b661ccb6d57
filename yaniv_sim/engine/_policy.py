"""The policy kernel: one function per decision, reading each seat's policy record.

A table's policies reach the kernels as an array ``pol`` of policy records,
one per seat (:func:`policy_records`: a view of the ``float64[seats,
N_POLICY_PARAMS]`` policy matrix through :func:`~yaniv_sim.policies.record_type`);
``pol[seat].kind`` picks the rule family, the other fields are its
parameters (``pol[seat].call_at``). A policy sees only what its seat may
see: its own hand, the discard pile, how many cards each opponent holds and
which cards each opponent took from the pile (the ``taken`` flags), the turn
and the running totals. Its randomness is its own stream, ``1 + seat``.

A table where every seat plays max-shed, the family without parameters,
passes ``pol = None`` instead. numba compiles a kernel once per argument
type and drops a branch on ``pol is None`` before typing, so the kernels
compiled for such tables hold no code of the other families (which compile
slowly); kernels above the decisions need nothing for this, a ``None``
passed down selects their light copy by itself.

Every decision function takes ``(pol, seat, rules, t)``: the policy records
(or ``None``), the seat deciding, the
:data:`~yaniv_sim.engine._layout.RULES` record and the
:class:`~yaniv_sim.engine._table.Table`.

Families
--------
``KIND_MAX_SHED`` (``max-shed``)
    Call as soon as it is legal (and slap down whenever it may); otherwise
    discard the card set with the highest point total, ties broken toward
    fewer jokers, then more cards, then uniformly at random among the
    distinct card sets left (a card set that is both a set and a run is laid
    as a set); always draw from the stock. In a long round (``LONG_ROUND``
    turns a seat) it plays to end it (:mod:`~yaniv_sim.engine._long_round`).
``KIND_RANDOM`` (``random``)
    A test device: calls with probability ``call`` when it may, lays a
    uniformly random legal laying (of either reading, for a card set that is
    both a set and a run), and takes a uniformly random takeable card
    of the previous discard with probability ``pile``.
"""

from __future__ import annotations

import numpy as np

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
from yaniv_sim.engine._heuristic import _heuristic_call, _heuristic_discard, _heuristic_draw
from yaniv_sim.engine._layout import CUR, LAY_KIND, PS_CUR_KIND, PS_CUR_N, PS_PREV_KIND, PS_PREV_N
from yaniv_sim.engine._long_round import _long_round, _long_round_discard, _long_round_draw
from yaniv_sim.engine._rng import _below, _uniform
from yaniv_sim.policies import (
    HEURISTIC,
    LONG_ROUND,
    MAX_SHED,
    N_SLOTS,
    RANDOM,
    SEARCH,
    SLOT_KIND,
    record_type,
)

N_POLICY_PARAMS = N_SLOTS
P_KIND = SLOT_KIND

KIND_MAX_SHED = MAX_SHED.kind
KIND_RANDOM = RANDOM.kind
KIND_HEURISTIC = HEURISTIC.kind
KIND_SEARCH = SEARCH.kind

POLICY = record_type(frozenset({HEURISTIC.name, RANDOM.name, SEARCH.name}))  # a seat's record


def policy_records(pol: np.ndarray) -> np.ndarray | None:
    """The policy records of a policy matrix ``float64[..., N_POLICY_PARAMS]`` (a view).

    ``None`` when every seat plays max-shed (see the module's notes).
    """
    pol = np.ascontiguousarray(pol, dtype=np.float64)
    if pol.shape[-1] != N_POLICY_PARAMS:
        raise ValueError(f"a policy matrix has {N_POLICY_PARAMS} columns, not {pol.shape[-1]}")
    if (pol[..., P_KIND] == KIND_MAX_SHED).all():
        return None
    return pol.view(POLICY).reshape(pol.shape[:-1])


@njit(inline="always")
def _rotation(pols, q):
    """The policy records of rotation ``q`` of a stack (``None`` stays ``None``)."""
    if pols is None:
        return None
    return pols[q]


@njit(inline="always")
def _wants_call(pol, seat, rules, t):
    """Whether ``seat`` calls Yaniv now (asked only when the call is legal)."""
    if pol is None:
        return True
    policy = pol[seat]
    if policy.kind == KIND_RANDOM:
        return _uniform(t.rng, 1 + seat) < policy.call
    if policy.kind == KIND_HEURISTIC:
        view = (t.hands, t.taken, t.hand_n, t.piles, t.pst)
        return _heuristic_call(policy, seat, rules, t.totals, t.hand_val, view, t.cand)
    return True


@njit(inline="always")
def _wants_slapdown(pol, seat, rules, t):
    """Whether ``seat`` slaps down (asked only when it may)."""
    if pol is None:
        return True
    if pol[seat].kind == KIND_RANDOM:
        return _uniform(t.rng, 1 + seat) < pol[seat].call
    return True


@njit(inline="always")
def _shed_rank(cand, i):
    """How max-shed ranks card set ``i``: most points, then fewest jokers, then most cards.

    One integer, larger for the better set (a set has at most 8 cards and
    jokers, so the three parts never overlap).
    """
    return (cand[C_POINTS, i] << 16) - (cand[C_JOKERS, i] << 8) + POPCOUNT[cand[C_MASK, i] & 0xFF]


@njit(inline="always")
def _max_shed_pick(cand, n_sets, rng, seat):
    """Index of max-shed's card set among the ``n_sets`` listed in ``cand``."""
    best = 0
    best_rank = _shed_rank(cand, 0)
    ties = np.int64(1)  # not a literal (see _play's notes on literal arguments)
    for i in range(1, n_sets):
        rank = _shed_rank(cand, i)
        if rank > best_rank:
            best = i
            best_rank = rank
            ties = 1
        elif rank == best_rank:
            ties += 1
    if ties == 1:
        return best
    pick = _below(rng, 1 + seat, ties)
    for i in range(n_sets):
        if _shed_rank(cand, i) == best_rank:
            if pick == 0:
                return i
            pick -= 1
    return best


@njit(inline="always")
def _random_discard(seat, rules, t, n_sets):
    """The random device's discard: a uniformly random laying of any card set."""
    hands, piles, pst, cand = t.hands, t.piles, t.pst, t.cand
    lay, lay_len = t.lay, t.lay_len
    jis = rules.joker_in_sets != 0
    reading = (jis, rules.set_draw_ends != 0)
    rows = np.int64(0)
    for i in range(n_sets):
        mask = cand[C_MASK, i]
        cand[C_POINTS, i] = rows  # reused: first laying row of card set i
        kind = _mask_kind(hands, seat, mask, jis)
        rows += _layings(hands, seat, mask, kind, reading, lay, lay_len, rows)
    r = _below(t.rng, 1 + seat, rows)
    i = n_sets - 1
    while cand[C_POINTS, i] > r:
        i -= 1
    mask = cand[C_MASK, i]
    for p in range(lay_len[r]):
        piles[CUR, p] = lay[r, p]
    pst[PS_CUR_N] = lay_len[r]
    pst[PS_CUR_KIND] = lay[r, LAY_KIND]
    return mask


@njit(inline="always")
def _choose_discard(pol, seat, rules, t, n_sets):
    """Choose ``seat``'s discard among the ``n_sets`` card sets in ``t.cand``.

    Lays it into ``piles[CUR]``, sets ``pst[PS_CUR_N]`` and
    ``pst[PS_CUR_KIND]``, and returns its slot mask.
    """
    if pol is not None:
        if pol[seat].kind == KIND_HEURISTIC:
            return _heuristic_discard(pol[seat], seat, rules, t, n_sets)
        if pol[seat].kind == KIND_RANDOM:
            return _random_discard(seat, rules, t, n_sets)
    hands, piles, pst, cand = t.hands, t.piles, t.pst, t.cand
    if _long_round(LONG_ROUND, t.hand_n, pst):
        mask = cand[C_MASK, _long_round_discard(seat, rules, t, n_sets)]
    else:
        mask = cand[C_MASK, _max_shed_pick(cand, n_sets, t.rng, seat)]
    kind = _mask_kind(hands, seat, mask, rules.joker_in_sets != 0)
    pst[PS_CUR_N] = _lay(hands, seat, mask, kind, piles, CUR)
    pst[PS_CUR_KIND] = kind
    return mask


@njit(inline="always")
def _random_draw(policy, seat, rules, t):
    """The random device's draw: a takeable card with probability ``pile``, else the stock."""
    pst, rng = t.pst, t.rng
    prev_n = pst[PS_PREV_N]
    if prev_n > 0 and _uniform(rng, 1 + seat) < policy.pile:
        bits = _takeable_bits(prev_n, pst[PS_PREV_KIND], rules.set_draw_ends != 0)
        pick = _below(rng, 1 + seat, POPCOUNT[bits])
        for p in range(prev_n):
            if (bits >> p) & 1:
                if pick == 0:
                    return p
                pick -= 1
    return -1


@njit(inline="always")
def _choose_draw(pol, seat, rules, t):
    """Where ``seat`` draws from: -1 for the stock, else a position in the previous discard."""
    if pol is not None:
        if pol[seat].kind == KIND_HEURISTIC:
            return _heuristic_draw(pol[seat], seat, rules, t)
        if pol[seat].kind == KIND_RANDOM:
            return _random_draw(pol[seat], seat, rules, t)
    if _long_round(LONG_ROUND, t.hand_n, t.pst):
        return _long_round_draw(seat, rules, t)
    return -1
