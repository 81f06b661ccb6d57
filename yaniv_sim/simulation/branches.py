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

from yaniv_sim._numba import njit
from yaniv_sim.engine import _variants
from yaniv_sim.engine._layout import (
    D_CALLED,
    D_SEAT,
    D_TURN,
    PS_FORCE,
    R_MAX_ROUNDS,
    S_WINNER,
)
from yaniv_sim.engine._play import _play_round
from yaniv_sim.engine._scoring import _next_starter, _settle
from yaniv_sim.engine._variants import clone
from yaniv_sim.simulation.kernels import _record_game

# columns of the branch outputs: the deciding seat's score if it calls and if it
# waits, then the sum of the other seats' scores if it calls and if it waits
CALL = 0
WAIT = 1
OTHERS = 2
NO_GAME_BRANCH = -1


@njit(inline="always")
def _others(scores, seat):
    total = 0
    for s in range(scores.shape[0]):
        if s != seat:
            total += scores[s]
    return total


@njit
def _finish_game(rp, milestones, pol, seed, game, first_round, starter, ws, scratch, totals,
                 alive, summary, values, scores, landed):  # fmt: skip
    """Play rounds ``first_round, ...`` of a game from ``totals``/``alive`` to its end.

    Uses row 0 of ``summary``, ``values``, ``scores`` and ``landed``.
    Returns the game's winner, or -1 if ``max_rounds`` is reached first.
    """
    hands, taken, hand_n, hand_val, piles, pst, cand, rng, lay, lay_len = ws
    charges, no_log, no_dec, dec_n = scratch
    # sliced views, typed like the batch kernels' row slices, so that numba
    # compiles _play_round and _settle once for both (a cold compile is slow)
    sm, va, sc, la = summary[0:], values[0:], scores[0:], landed[0:]
    for r in range(first_round, rp[R_MAX_ROUNDS]):
        _play_round(rp, pol, alive, starter, seed, game, r, totals, hands, taken, hand_n,
                    hand_val, piles, pst, cand, rng, lay, lay_len, sm, va, sc, 0, no_log,
                    no_dec, dec_n)  # fmt: skip
        winner = _settle(totals, sc[0], alive, rp, milestones, la[0], charges)
        if winner >= 0:
            return winner
        starter = _next_starter(rp, starter, sm[0, S_WINNER], alive)
    return -1


@njit
def _branch_round(rp, milestones, pol, seed, game, r, starter, totals0, alive0, seat, turn,
                  call, with_game, ws, scratch, totals, alive, summary, values, scores,
                  landed):  # fmt: skip
    """Play round ``r`` again with ``seat``'s decision at ``turn`` forced to ``call``.

    Returns (the seat's round score, the other seats' total round score, the
    seat's game result): the game result is 1 if the seat then wins the game,
    0 if not, and ``NO_GAME_BRANCH`` unless ``with_game``.
    """
    hands, taken, hand_n, hand_val, piles, pst, cand, rng, lay, lay_len = ws
    charges, no_log, no_dec, dec_n = scratch
    seats = totals.shape[0]
    for s in range(seats):
        totals[s] = totals0[s]
        alive[s] = alive0[s]
    sm, va, sc, la = summary[0:], values[0:], scores[0:], landed[0:]  # see _finish_game
    pst[PS_FORCE] = 1 + 2 * turn + call
    _play_round(rp, pol, alive, starter, seed, game, r, totals, hands, taken, hand_n, hand_val,
                piles, pst, cand, rng, lay, lay_len, sm, va, sc, 0, no_log, no_dec,
                dec_n)  # fmt: skip
    pst[PS_FORCE] = 0
    points = sc[0, seat]
    others = _others(sc[0], seat)
    if not with_game:
        return points, others, NO_GAME_BRANCH
    winner = _settle(totals, sc[0], alive, rp, milestones, la[0], charges)
    if winner < 0:
        nxt = _next_starter(rp, starter, sm[0, S_WINNER], alive)
        winner = _finish_game(rp, milestones, pol, seed, game, r + 1, nxt, ws, scratch, totals,
                              alive, summary, values, scores, landed)  # fmt: skip
    return points, others, 1 if winner == seat else 0


@njit
def _branch_games_chunk(rp, milestones, pols, rotate, seed, first, count, branch_games, ws,
                        scratch, totals, alive, summaries, values, scores, round_totals,
                        round_alive, landed, round_unit, off, game_rounds, game_winner,
                        game_totals, game_landings, game_out, rotation, dec, dec_n, dec_round,
                        dec_unit, br_points, br_win, bt, ba, b_summary, b_values, b_scores,
                        b_landed, totals0, alive0):  # fmt: skip
    """``_games_chunk`` (see :mod:`.kernels`) plus both branches of every decision point.

    ``br_points[row]`` gets the deciding seat's round score if it calls
    (``CALL``) and if it waits (``WAIT``), then the other seats' total score
    both ways (``OTHERS + CALL``, ``OTHERS + WAIT``); ``br_win[row]`` its game result
    under each (1 won, 0 lost), or ``NO_GAME_BRANCH`` outside the games
    chosen for game branches (game ``g`` with ``g % branch_games == 0``).
    ``bt`` ... ``alive0`` are scratch rows for the branches.
    """
    hands, taken, hand_n, hand_val, piles, pst, cand, rng, lay, lay_len = ws
    charges, no_log, _, _ = scratch
    seats = totals.shape[0]
    for i in range(count):
        g = first + i
        o = off[0]
        if o + rp[R_MAX_ROUNDS] > summaries.shape[0]:
            return i
        q = g % seats if rotate else 0
        pol = pols[q]
        d0 = dec_n[0]
        with_game = g % branch_games == 0
        for s in range(seats):
            totals[s] = 0
            alive[s] = 1
        starter = 0
        winner = -1
        rounds = 0
        for r in range(rp[R_MAX_ROUNDS]):
            first_dec = dec_n[0]
            for s in range(seats):
                totals0[s] = totals[s]
                alive0[s] = alive[s]
            _play_round(rp, pol, alive, starter, seed, g, r, totals, hands, taken, hand_n,
                        hand_val, piles, pst, cand, rng, lay, lay_len, summaries[o:],
                        values[o:], scores[o:], r, no_log, dec, dec_n)  # fmt: skip
            if dec_n[0] > dec.shape[0]:
                dec_n[0] = d0
                return i
            winner = _settle(totals, scores[o + r], alive, rp, milestones, landed[o + r],
                             charges)  # fmt: skip
            for row in range(first_dec, dec_n[0]):
                dec_round[row] = r
                seat = dec[row, D_SEAT]
                did = 1 if dec[row, D_CALLED] else 0
                other = 1 - did
                points, others, won = _branch_round(
                    rp, milestones, pol, seed, g, r, starter, totals0, alive0, seat,
                    dec[row, D_TURN], other, with_game, ws, scratch, bt, ba, b_summary, b_values,
                    b_scores, b_landed)  # fmt: skip
                # the recorded play is the branch the seat chose
                br_points[row, CALL if did else WAIT] = scores[o + r, seat]
                br_points[row, OTHERS + (CALL if did else WAIT)] = _others(scores[o + r], seat)
                br_points[row, CALL if other else WAIT] = points
                br_points[row, OTHERS + (CALL if other else WAIT)] = others
                br_win[row, CALL if other else WAIT] = won
                br_win[row, CALL if did else WAIT] = NO_GAME_BRANCH  # filled at the game's end
            for s in range(seats):
                round_totals[o + r, s] = totals[s]
                round_alive[o + r, s] = alive[s]
            rounds = r + 1
            if winner >= 0:
                break
            starter = _next_starter(rp, starter, summaries[o + r, S_WINNER], alive)
        if with_game:
            for row in range(d0, dec_n[0]):
                did = 1 if dec[row, D_CALLED] else 0
                br_win[row, CALL if did else WAIT] = 1 if winner == dec[row, D_SEAT] else 0
        _record_game(i, q, o, d0, rounds, winner, totals, landed, round_alive, round_unit, off,
                     game_rounds, game_winner, game_totals, game_landings, game_out, rotation,
                     dec_n, dec_unit)  # fmt: skip
    return count


_finish_game_base = clone(_finish_game, "_finish_game_base", _play_round=_variants.play_round)
_branch_round_base = clone(
    _branch_round,
    "_branch_round_base",
    _play_round=_variants.play_round,
    _finish_game=_finish_game_base,
)
BASE = {
    _branch_games_chunk: clone(
        _branch_games_chunk,
        "_branch_games_chunk_base",
        _play_round=_variants.play_round,
        _branch_round=_branch_round_base,
    )
}
