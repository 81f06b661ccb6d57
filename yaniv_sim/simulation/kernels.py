"""Batch kernels: play one chunk of rounds or games and fill its tables.

A chunk is a run of consecutive work units (round indices, or game indices)
``first .. first + count - 1``. Every unit's randomness is keyed by the seed and
its own index, so a chunk's rows do not depend on where the chunk starts or
how work is split. ``rules`` is the engine's rules record; ``pols`` holds
the policy records of each seating rotation (``pols[q, seat]``); unit ``u``
is played in rotation ``q`` (see
:mod:`yaniv_sim.simulation.request`).

Both kernels stop early, returning how many units they finished, when the
decision log would overflow (the caller grows it and goes on from there) or,
for games, when the round rows would not fit (the caller saves and goes on).
"""

from __future__ import annotations

import numpy as np

from yaniv_sim._numba import njit
from yaniv_sim.engine.kernel import game_plan, no_force, seating
from yaniv_sim.engine.kernel import play_game as _play_game
from yaniv_sim.engine.kernel import play_round as _play_round


@njit
def _rounds_chunk(rules, pols, search, run, t, out, rotation, dec_unit):
    """Play rounds ``first + i`` (game 0) into row ``i`` of ``out``.

    ``run = (rotate, seed, first, count)``. Round ``u`` is started by seat
    ``u % seats`` and played in rotation ``(u // seats) % seats`` when
    ``rotate``; ``rotation[i]`` records it and ``dec_unit`` gives the row of
    each decision of ``out``'s decision log.
    """
    rotate, seed, first, count = run
    dec, dec_n = out.dec, out.dec_n
    seats = t.alive.shape[0]
    for i in range(count):
        u = first + i
        q = (u // seats) % seats if rotate else 0
        d0 = dec_n[0]
        pol = seating(pols, q)
        _play_round(rules, pol, search, t, (seed, np.int64(0), u, u % seats), out, i, no_force())
        if dec_n[0] > dec.shape[0]:
            dec_n[0] = d0
            return i
        for row in range(d0, dec_n[0]):
            dec_unit[row] = i
        rotation[i] = q
    return count


@njit(inline="always")
def _record_game(i, q, o, d0, played, t, rounds, games):
    """Fill game row ``i`` (played in rotation ``q``; its rounds from row ``o``, its
    decisions from row ``d0``) and move the round offset past it.

    ``played = (rounds, winner)``; ``rounds`` and ``games`` as in :func:`_games_chunk`.
    """
    n_rounds, winner = played
    out, _, round_alive, landed, round_unit, off, _, dec_unit = rounds
    game_rounds, game_winner, game_totals, game_landings, game_out, rotation = games
    for row in range(d0, out.dec_n[0]):
        dec_unit[row] = i
    for r in range(n_rounds):
        round_unit[o + r] = i
    off[0] = o + n_rounds
    game_rounds[i] = n_rounds
    game_winner[i] = winner
    rotation[i] = q
    for s in range(t.totals.shape[0]):
        game_totals[i, s] = t.totals[s]
        landings = 0
        went_out = -1
        for r in range(n_rounds):
            landings += landed[o + r, s]
            if went_out < 0 and round_alive[o + r, s] == 0:
                went_out = r
        game_landings[i, s] = landings
        game_out[i, s] = went_out


@njit
def _games_chunk(rules, pols, search, run, t, rounds, games, scratch):
    """Play games ``first + i`` into row ``i`` of the game outputs.

    ``run = (rotate, seed, first, count)``. ``rounds = (out, round_totals,
    round_alive, landed, round_unit, off, dec_round, dec_unit)``: round rows
    are appended to ``out`` (a ``RoundOut``) and the per-round arrays from
    ``off[0]``, each with its game's row in ``round_unit``; decision rows get
    their round in ``dec_round`` and their game's row in ``dec_unit``.
    ``games = (game_rounds, game_winner, game_totals, game_landings,
    game_out, rotation)``, one row per game: ``game_out[i, s]`` is the round
    in which seat ``s`` went out (-1 if never). Game ``g`` is played in
    rotation ``g % seats`` when ``rotate``.
    """
    rotate, seed, first, count = run
    out, round_totals, round_alive, landed, _, off, dec_round, _ = rounds
    dec, dec_n = out.dec, out.dec_n
    seats = t.totals.shape[0]
    for i in range(count):
        g = first + i
        o = off[0]
        if o + rules.max_rounds > out.summary.shape[0]:
            return i
        q = g % seats if rotate else 0
        d0 = dec_n[0]
        game_out = (out, round_totals, round_alive, landed, dec_round)
        plan = game_plan(seed, g, 0, 0, rules.max_rounds, no_force(), 1, o)  # whole game, row o on
        played = _play_game(rules, seating(pols, q), search, t, plan, game_out, scratch)
        if dec_n[0] > dec.shape[0]:
            dec_n[0] = d0
            return i
        _record_game(i, q, o, d0, played, t, rounds, games)
    return count
