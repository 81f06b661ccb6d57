"""Paired counterfactual play: what calling Yaniv would have done, and what waiting would.

Terminology
-----------
decision point
    A turn start at which the acting seat may call (its hand is at most the
    threshold); one row of the ``decisions`` table.
branch
    The round played again from its deal with that one call decision forced
    the other way (the policy decides everything else, as before). A deal's
    cards come from the seed, the game and the round alone, so both branches
    see the same cards: the stock is in the same order, and later rounds of
    the game are dealt the same. The branch that matches what the seat did is
    the recorded play itself, so each decision point costs one extra round,
    plus, for game branches, the rest of the game.
game branch
    For one game in every ``branch_games``, each branch is also played on to
    the end of the game, giving the seat's game result under both choices.
"""

from __future__ import annotations

import numpy as np

from yaniv_sim._numba import njit
from yaniv_sim.engine.kernel import (
    D_CALLED,
    D_SEAT,
    D_TURN,
    MAX_SEATS,
    S_WINNER,
    Table,
    game_plan,
    no_force,
    seating,
)
from yaniv_sim.engine.kernel import next_starter as _next_starter
from yaniv_sim.engine.kernel import play_game as _play_game
from yaniv_sim.simulation.kernels import _record_game

# columns of the branch outputs: the deciding seat's score if it calls and if it
# waits, then the sum of the other seats' scores if it calls and if it waits;
# then every seat's score if it calls (SEATS + CALL * MAX_SEATS + seat) and if it
# waits, then the round's winner if it calls and if it waits (ROUND_WINNER + CALL)
CALL = 0
WAIT = 1
OTHERS = 2
SEATS = 4
ROUND_WINNER = SEATS + 2 * MAX_SEATS
WIDTH = ROUND_WINNER + 2
NO_GAME_BRANCH = -1


@njit(inline="always")
def _others(scores, seat):
    total = 0
    for s in range(scores.shape[0]):
        if s != seat:
            total += scores[s]
    return total


@njit(inline="always")
def _branch_round(rules, pol, search, t, plan, start, branch):
    """Play a round again with one call decision forced, and maybe the game on from there.

    ``plan`` is the :class:`~yaniv_sim.engine.kernel.GamePlan` of ``play_game`` (round,
    starter, the forced ``(turn, call)``; ``last`` the round itself, or
    ``max_rounds`` to play the game on). ``start = (totals0, alive0)`` are
    the totals and seats before the round; ``branch`` as in
    :func:`_branch_games_chunk`. The round is played on a table that shares
    ``t``'s cards and scratch but has the branch's own totals and seats.

    Returns (every seat's round score, the winner: the game's, or -1 when
    the game was not played on); the round's own winner is in
    ``b_out.summary[0]``.
    """
    _, _, b_out, b_rounds, bt, ba, _, _, scratch = branch
    totals0, alive0 = start
    for s in range(bt.shape[0]):
        bt[s] = totals0[s]
        ba[s] = alive0[s]
    table = Table(t.hands, t.taken, t.hand_n, t.hand_val, t.piles, t.pst, t.rng, ba, bt, t.cand,
                  t.lay, t.lay_len)  # fmt: skip
    _, winner = _play_game(rules, pol, search, table, plan, (b_out, *b_rounds), scratch)
    return b_out.scores[0], winner


@njit
def _branch_games_chunk(rules, pols, search, run, t, rounds, games, branch):
    """``_games_chunk`` (see :mod:`.kernels`) plus both branches of every decision point.

    ``run = (rotate, seed, first, count, branch_games)``; ``rounds`` and
    ``games`` as in ``_games_chunk``. ``branch = (br_points, br_win, b_out,
    b_rounds, bt, ba, totals0, alive0, scratch)``: ``br_points[row]`` gets the deciding
    seat's round score if it calls (``CALL``) and if it waits (``WAIT``),
    then the other seats' total score both ways (``OTHERS + CALL``,
    ``OTHERS + WAIT``), every seat's score both ways (``SEATS + CALL *
    MAX_SEATS + seat``, ``SEATS + WAIT * MAX_SEATS + seat``) and the round's
    winner both ways (``ROUND_WINNER + CALL``, ``ROUND_WINNER + WAIT``, -1
    for none); ``br_win[row]`` its game result under each (1 won, 0
    lost), or ``NO_GAME_BRANCH`` outside the games chosen for game branches
    (game ``g`` with ``g % branch_games == 0``). ``b_out`` (a two-row
    ``RoundOut`` without logs), ``b_rounds = (round_totals, round_alive,
    landed, dec_round)`` (two rows each), ``bt``, ``ba``, ``totals0`` and
    ``alive0`` (per seat) are the branches' scratch; ``scratch`` that of
    ``new_game_scratch``.
    """
    rotate, seed, first, count, branch_games = run
    br_points, br_win, _, _, _, _, totals0, alive0, scratch = branch
    out, round_totals, round_alive, landed, _, off, dec_round, _ = rounds
    dec, dec_n = out.dec, out.dec_n
    seats = t.totals.shape[0]
    max_rounds = rules.max_rounds
    for i in range(count):
        g = first + i
        o = off[0]
        if o + max_rounds > out.summary.shape[0]:
            return i
        q = g % seats if rotate else 0
        pol = seating(pols, q)
        d0 = dec_n[0]
        with_game = g % branch_games == 0
        game_out = (out, round_totals, round_alive, landed, dec_round)
        starter = np.int64(0)
        winner = -1
        n_rounds = 0
        for r in range(max_rounds):
            first_dec = dec_n[0]
            for s in range(seats):
                totals0[s] = t.totals[s] if r > 0 else 0
                alive0[s] = t.alive[s] if r > 0 else 1
            plan = game_plan(seed, g, r, starter, r, no_force(), 1, o)  # round r as played, kept
            n_rounds, winner = _play_game(rules, pol, search, t, plan, game_out, scratch)
            if dec_n[0] > dec.shape[0]:
                dec_n[0] = d0
                return i
            scores = out.scores[o + r]
            for row in range(first_dec, dec_n[0]):
                seat = dec[row, D_SEAT]
                did = 1 if dec[row, D_CALLED] else 0
                other = 1 - did
                last = max_rounds if with_game else r
                plan = game_plan(seed, g, r, starter, last, (dec[row, D_TURN], other), 0, 0)
                b_scores, b_winner = _branch_round(rules, pol, search, t, plan, (totals0, alive0),
                                                   branch)  # fmt: skip
                # the recorded play is the branch the seat chose
                br_points[row, CALL if did else WAIT] = scores[seat]
                br_points[row, OTHERS + (CALL if did else WAIT)] = _others(scores, seat)
                br_points[row, CALL if other else WAIT] = b_scores[seat]
                br_points[row, OTHERS + (CALL if other else WAIT)] = _others(b_scores, seat)
                chose, other_way = CALL if did else WAIT, CALL if other else WAIT
                for s in range(seats):
                    br_points[row, SEATS + chose * MAX_SEATS + s] = scores[s]
                    br_points[row, SEATS + other_way * MAX_SEATS + s] = b_scores[s]
                br_points[row, ROUND_WINNER + chose] = out.summary[o + r, S_WINNER]
                br_points[row, ROUND_WINNER + other_way] = branch[2].summary[0, S_WINNER]
                won = (1 if b_winner == seat else 0) if with_game else NO_GAME_BRANCH
                br_win[row, CALL if other else WAIT] = won
                br_win[row, CALL if did else WAIT] = NO_GAME_BRANCH  # filled at the game's end
            if winner >= 0:
                break
            starter = _next_starter(rules, starter, out.summary[o + r, S_WINNER], t.alive)
        if with_game:
            for row in range(d0, dec_n[0]):
                did = 1 if dec[row, D_CALLED] else 0
                br_win[row, CALL if did else WAIT] = 1 if winner == dec[row, D_SEAT] else 0
        _record_game(i, q, o, d0, (n_rounds, winner), t, rounds, games)
    return count
