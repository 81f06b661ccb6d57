"""Game equity in the kernels: a seat's chance of winning the game after a round.

The same model as :class:`yaniv_sim.equity.Equity` (a full table for two
players still in, a conditional logit for three or more), in arrays a
kernel reads, for the search's ``objective=win``: a rollout is then worth
the searching seat's win chance once its round is settled, not its points.
The tables are the shipped ones (policy ``best``) of the preset the rules
equal; house rules have none.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from yaniv_sim._equity_file import KNOT_STEP, EquityError, knots, preset_of, read, shipped_path
from yaniv_sim._numba import njit
from yaniv_sim.engine._scoring import _next_starter, _settle

__all__ = ["EquityArrays", "equity_arrays", "no_equity"]


class EquityArrays(NamedTuple):
    """One equity table as the kernels read it (``P`` seats dealt, ``L`` the limit).

    ``two`` float64[2, L + 1, L + 1], ``tied`` float64[2]
        Two players still in: as :attr:`~yaniv_sim.equity.Equity.two` and ``tied``.
    ``curve`` float64[P + 1, n], ``gap`` float64[P + 1, m], ``places`` float64[P + 1, P]
        Row ``k``: the logit's weights for ``k`` players still in (zeros
        below 3), over ``knots`` float64[n] and ``gap_knots`` float64[m].
    ``work`` int64[2, P], ``flags`` int8[2, P]
        Scratch for settling a round: the totals and milestone-theft charges,
        the seats still in and the milestone landings.
    """

    two: np.ndarray
    tied: np.ndarray
    curve: np.ndarray
    gap: np.ndarray
    places: np.ndarray
    knots: np.ndarray
    gap_knots: np.ndarray
    work: np.ndarray
    flags: np.ndarray


def no_equity(players: int) -> EquityArrays:
    """The arrays of no table (every search values points): same types, nothing in them."""
    z1, z2 = np.zeros(1), np.zeros((1, 1))
    work, flags = np.zeros((2, players), np.int64), np.zeros((2, players), np.int8)
    return EquityArrays(np.zeros((2, 1, 1)), np.zeros(2), z2, z2, z2, z1, z1, work, flags)


def equity_arrays(rules, players: int) -> EquityArrays:
    """The shipped table of the preset ``rules`` equal, for ``players`` seats dealt."""
    name = preset_of(rules)
    if name is None:
        raise EquityError(
            "objective: 'win' needs an equity table, and tables ship for the standard and "
            "nordic presets only; use objective=points with house rules"
        )
    _, two, tied, logit = read(shipped_path(name, players))
    limit = rules.limit
    curve_knots, gap_knots = knots(limit), knots(2 * limit, 2 * KNOT_STEP)
    curve = np.zeros((players + 1, len(curve_knots)))
    gap = np.zeros((players + 1, len(gap_knots)))
    places = np.zeros((players + 1, players))
    for k, (c, g, p) in logit.items():
        curve[k], gap[k], places[k, :k] = c, g, p
    return EquityArrays(np.ascontiguousarray(two), np.asarray(tied, np.float64), curve, gap,
                        places, curve_knots, gap_knots, np.zeros((2, players), np.int64),
                        np.zeros((2, players), np.int8))  # fmt: skip


@njit(inline="always")
def _hat(knots, x, weights, row):
    """``x``'s value on the piecewise-linear curve ``weights[row]`` over ``knots``."""
    n = knots.shape[0]
    x = min(max(x, knots[0]), knots[n - 1])
    i = 0
    while i < n - 2 and knots[i + 1] <= x:
        i += 1
    w = (x - knots[i]) / (knots[i + 1] - knots[i])
    return (1.0 - w) * weights[row, i] + w * weights[row, i + 1]


@njit
def win_chance(eq, limit, totals, alive, starter, seat):
    """``seat``'s chance of winning the game from ``totals`` (``alive``: the seats in).

    ``starter`` starts the next round. As :meth:`~yaniv_sim.equity.Equity.win_chances`.
    """
    seats = totals.shape[0]
    k = 0
    first = -1
    second = -1
    for s in range(seats):
        if alive[s]:
            k += 1
            if first < 0:
                first = s
            elif second < 0:
                second = s
    if not alive[seat]:
        return 0.0
    if k == 1:
        return 1.0
    if k == 2:
        a, b = totals[first], totals[second]
        side = 0 if first == starter else 1
        if a > limit or b > limit:
            p = eq.tied[side]
        else:
            p = eq.two[side, a, b]
        return p if seat == first else 1.0 - p
    # each seat's weight is exp(u): the largest u first, so that no exp overflows
    top = -np.inf
    place = 0
    for step in range(seats):
        s = (starter + step) % seats
        if alive[s]:
            top = max(top, _utility(eq, limit, totals, alive, k, s, place))
            place += 1
    total = 0.0
    mine = 0.0
    place = 0
    for step in range(seats):
        s = (starter + step) % seats
        if alive[s]:
            w = np.exp(_utility(eq, limit, totals, alive, k, s, place) - top)
            total += w
            if s == seat:
                mine = w
            place += 1
    return mine / total


@njit(inline="always")
def _utility(eq, limit, totals, alive, k, s, place):
    """Seat ``s``'s logit ``u`` with ``k`` players in, ``place`` seats after the starter."""
    t = min(totals[s], limit)
    low = limit
    for o in range(totals.shape[0]):
        if o != s and alive[o]:
            low = min(low, min(totals[o], limit))
    u = _hat(eq.knots, np.float64(t), eq.curve, k)
    u += _hat(eq.gap_knots, np.float64(t - low + limit), eq.gap, k)
    return u + eq.places[k, place]


@njit
def value_after(eq, rules, totals, alive, scores, starter, winner, seat):
    """``seat``'s win chance once a round with ``scores`` is settled (1 or 0 if it ends the game).

    ``totals``, ``alive``: before the round (left as they are); ``starter``
    started it and ``winner`` won it (-1 for none). As
    :meth:`~yaniv_sim.equity.Equity.after_round`.
    """
    seats = totals.shape[0]
    new, charges = eq.work[0], eq.work[1]
    live, landed = eq.flags[0], eq.flags[1]
    for s in range(seats):
        new[s] = totals[s]
        live[s] = alive[s]
    game_winner = _settle(new, scores, live, rules, landed, charges)
    if game_winner >= 0:
        return 1.0 if game_winner == seat else 0.0
    nxt = _next_starter(rules, starter, winner, live)
    return win_chance(eq, rules.limit, new, live, nxt, seat)
