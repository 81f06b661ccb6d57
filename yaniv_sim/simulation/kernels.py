"""Batch kernels: play one chunk of rounds or games and fill its tables.

A chunk is a run of consecutive work units (round indices, or game indices)
``first .. first + count - 1``. Every unit's randomness is keyed by the seed and
its own index, so a chunk's rows do not depend on where the chunk starts or
how work is split. ``pols`` has one policy matrix per seating rotation
(``pols[q, seat]``); unit ``u`` is played in rotation ``q`` (see
:mod:`yaniv_sim.simulation.request`).

Both kernels stop early, returning how many units they finished, when the
decision log would overflow (the caller grows it and goes on from there) or,
for games, when the round rows would not fit (the caller saves and goes on).
"""

from __future__ import annotations

from yaniv_sim._numba import njit
from yaniv_sim.engine import _variants
from yaniv_sim.engine._layout import R_MAX_ROUNDS
from yaniv_sim.engine._play import _play_game, _play_round
from yaniv_sim.engine._variants import clone


@njit
def _rounds_chunk(rp, pols, rotate, seed, first, count, ws, scratch, alive, totals, summaries,
                  values, scores, rotation, dec, dec_n, dec_unit):  # fmt: skip
    """Play rounds ``first + i`` (game 0) into row ``i`` of the outputs.

    Round ``u`` is started by seat ``u % seats`` and played in rotation
    ``(u // seats) % seats`` when ``rotate``; ``rotation[i]`` records it and
    ``dec_unit`` gives the row of each decision.
    """
    hands, taken, hand_n, hand_val, piles, pst, cand, rng, lay, lay_len = ws
    no_log = scratch[1]
    seats = alive.shape[0]
    for i in range(count):
        u = first + i
        q = (u // seats) % seats if rotate else 0
        d0 = dec_n[0]
        _play_round(rp, pols[q], alive, u % seats, seed, 0, u, totals, hands, taken, hand_n,
                    hand_val, piles, pst, cand, rng, lay, lay_len, summaries, values, scores, i,
                    no_log, dec, dec_n)  # fmt: skip
        if dec_n[0] > dec.shape[0]:
            dec_n[0] = d0
            return i
        for row in range(d0, dec_n[0]):
            dec_unit[row] = i
        rotation[i] = q
    return count


@njit(inline="always")
def _record_game(i, q, o, d0, rounds, winner, totals, landed, round_alive, round_unit, off,
                 game_rounds, game_winner, game_totals, game_landings, game_out, rotation, dec_n,
                 dec_unit):  # fmt: skip
    """Fill game row ``i`` (played in rotation ``q``; its rounds from row ``o``, its
    decisions from row ``d0``) and move the round offset past it."""
    for row in range(d0, dec_n[0]):
        dec_unit[row] = i
    for r in range(rounds):
        round_unit[o + r] = i
    off[0] = o + rounds
    game_rounds[i] = rounds
    game_winner[i] = winner
    rotation[i] = q
    for s in range(totals.shape[0]):
        game_totals[i, s] = totals[s]
        landings = 0
        out = -1
        for r in range(rounds):
            landings += landed[o + r, s]
            if out < 0 and round_alive[o + r, s] == 0:
                out = r
        game_landings[i, s] = landings
        game_out[i, s] = out


@njit
def _games_chunk(rp, milestones, pols, rotate, seed, first, count, ws, scratch, totals, alive,
                 summaries, values, scores, round_totals, round_alive, landed, round_unit, off,
                 game_rounds, game_winner, game_totals, game_landings, game_out, rotation,
                 dec, dec_n, dec_round, dec_unit):  # fmt: skip
    """Play games ``first + i`` into row ``i`` of the game outputs.

    Round rows are appended from ``off[0]``, each with its game's row in
    ``round_unit``. Game ``g`` is played in rotation ``g % seats`` when
    ``rotate``. ``game_out[i, s]`` is the round in which seat ``s`` went out
    (-1 if never).
    """
    seats = totals.shape[0]
    for i in range(count):
        g = first + i
        o = off[0]
        if o + rp[R_MAX_ROUNDS] > summaries.shape[0]:
            return i
        q = g % seats if rotate else 0
        d0 = dec_n[0]
        rounds, winner = _play_game(rp, milestones, pols[q], seed, g, ws, scratch, totals, alive,
                                    summaries[o:], values[o:], scores[o:], round_totals[o:],
                                    round_alive[o:], landed[o:], dec, dec_n,
                                    dec_round)  # fmt: skip
        if dec_n[0] > dec.shape[0]:
            dec_n[0] = d0
            return i
        _record_game(i, q, o, d0, rounds, winner, totals, landed, round_alive, round_unit, off,
                     game_rounds, game_winner, game_totals, game_landings, game_out, rotation,
                     dec_n, dec_unit)  # fmt: skip
    return count


# copies without the heuristic family (see yaniv_sim.engine._variants)
BASE = {
    _rounds_chunk: clone(_rounds_chunk, "_rounds_chunk_base", _play_round=_variants.play_round),
    _games_chunk: clone(_games_chunk, "_games_chunk_base", _play_game=_variants.play_game),
}
