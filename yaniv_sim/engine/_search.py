"""Search: a seat that decides by playing each choice on in sampled worlds.

Perfect-information Monte Carlo, as the expert Skat and Bridge programs
play. At a decision the searching seat deals ``worlds`` complete tables it
cannot tell from the real one (:func:`~yaniv_sim.engine._worlds._sample_world`:
the opponents' hidden cards and the stock dealt at random from the cards it
has not seen), plays every candidate on in every world with its ``base``
policy at every seat (its own later turns included), and takes the candidate
with the best mean outcome. All candidates of one world share the world and
its random streams (common random numbers), so their differences are
measured on the same cards.

The outcome of a rollout is the round's points relative to the table: the
mean score of the other seats still in, less the seat's own (higher is
better); with ``objective=win``, the seat's chance of winning the game once
the round is settled, from the shipped equity table
(:mod:`~yaniv_sim.engine._equity`): a round that ends the game is worth 1
to its winner and 0 to the others. Ties go to the first candidate in a
fixed order: calling before waiting; card sets in the order the engine
lists them, each laying in the order of ``legal_layings``; the stock before
the previous discard's cards.

What the search reads is what the seat may see: the worlds keep only that,
and the search's randomness is one draw from the seat's own stream per
decision (which seeds the sampler and, per world, the rollouts' streams).

The decisions, each called by the round loop for a seat of kind ``search``:

``search_call``
    Calling against waiting (every time the call is legal).
``search_discard``
    With ``decide`` >= 1, every laying of every card set, each played on with
    the base policy's draw; with ``decide`` = 2 also the draw (the stock or
    each takeable card of the previous discard) after the chosen discard,
    decided at once and kept in ``chosen`` for ``search_draw``. With
    ``decide`` = 0 the base policy discards.
``search_draw``
    The draw chosen with the discard, else the base policy's.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from yaniv_sim._numba import njit
from yaniv_sim.engine._discards import C_MASK, _layings, _mask_kind, _takeable_bits
from yaniv_sim.engine._equity import EquityArrays, equity_arrays, no_equity, value_after
from yaniv_sim.engine._layout import (
    CUR,
    LAY_KIND,
    LAY_WIDTH,
    MAX_LAYINGS,
    PS_CUR_KIND,
    PS_CUR_N,
    PS_PREV_KIND,
    PS_PREV_N,
    PS_STARTER,
    PS_TURN,
    S_WINNER,
    Force,
)
from yaniv_sim.engine._play import _play_out
from yaniv_sim.engine._policy import KIND_SEARCH, P_KIND, POLICY, _choose_discard, _choose_draw
from yaniv_sim.engine._rng import _mix64, _next_u64, _seed_round_streams
from yaniv_sim.engine._table import RoundOut, Table, new_round_out, new_table
from yaniv_sim.engine._worlds import _sample_world, _seed_sampler
from yaniv_sim.policies import SEARCH, SEARCH_BASES

MAX_WORLDS = 4096  # the declared upper bound of ``worlds``
NO_DRAW = -2  # in ``chosen``: no draw chosen yet (the base policy draws)

# columns of ``cands``: the forced call decision, card set, laying and draw of a candidate
K_CALL = 0
K_MASK = 1
K_LAYING = 2
K_DRAW = 3


class Search(NamedTuple):
    """The searching seats' workspace: what the search reads and works in.

    ``bases`` policy records[n_bases, seats]
        Row ``b``: the table of rollouts with base policy ``b`` (every seat
        plays ``SEARCH_BASES[b]``).
    ``world``, ``roll`` Table
        The sampled world, and a copy of it played on.
    ``out`` RoundOut
        One row, no logs: a rollout's result.
    ``rng`` uint64[1]
        The sampler's stream.
    ``lay`` int16[MAX_LAYINGS, LAY_WIDTH], ``lay_len`` int64[MAX_LAYINGS]
        The candidate layings of a discard search, as laid.
    ``cands`` int64[MAX_LAYINGS, 4]
        The candidates of the last search (``K_*`` columns).
    ``values`` float64[MAX_LAYINGS, worlds]
        ``values[c, w]``: candidate ``c``'s outcome in world ``w`` in the
        last search.
    ``info`` int64[3]
        The last search's candidates, worlds and chosen candidate.
    ``chosen`` int64[seats]
        The draw each seat chose with its discard (``NO_DRAW`` if none).
    ``equity`` EquityArrays
        The table that values a rollout under ``objective=win`` (an empty
        one when no seat searches for the win).
    """

    bases: np.ndarray
    world: Table
    roll: Table
    out: RoundOut
    rng: np.ndarray
    lay: np.ndarray
    lay_len: np.ndarray
    cands: np.ndarray
    values: np.ndarray
    info: np.ndarray
    chosen: np.ndarray
    equity: EquityArrays


def new_search(
    bases: np.ndarray, seats: int, worlds: int, equity: EquityArrays | None = None
) -> Search:
    """A search workspace for ``seats`` seats and up to ``worlds`` worlds per decision.

    ``equity``: the table for ``objective=win`` (default: none).
    """
    return Search(
        bases=bases,
        world=new_table(seats),
        roll=new_table(seats),
        out=new_round_out(seats),
        rng=np.zeros(1, np.uint64),
        lay=np.zeros((MAX_LAYINGS, LAY_WIDTH), np.int16),
        lay_len=np.zeros(MAX_LAYINGS, np.int64),
        cands=np.zeros((MAX_LAYINGS, 4), np.int64),
        values=np.zeros((MAX_LAYINGS, max(1, min(worlds, MAX_WORLDS))), np.float64),
        info=np.zeros(3, np.int64),
        chosen=np.full(seats, NO_DRAW, np.int64),
        equity=no_equity(seats) if equity is None else equity,
    )


@njit
def _rollout(rules, base, search, seat, force, key, objective):
    """Play the sampled world on with every seat at ``base``; ``seat``'s outcome.

    ``objective`` 0: its points relative to the table; 1: its game-win chance after the round.

    The world is copied into ``search.roll`` and its streams seeded from
    ``key``, so every candidate of one world is played on the same cards.
    """
    world, roll = search.world, search.roll
    for s in range(world.hands.shape[0]):
        for i in range(world.hand_n[s]):
            roll.hands[s, i] = world.hands[s, i]
            roll.taken[s, i] = world.taken[s, i]
        roll.hand_n[s] = world.hand_n[s]
        roll.hand_val[s] = world.hand_val[s]
        roll.alive[s] = world.alive[s]
        roll.totals[s] = world.totals[s]
    for r in range(world.piles.shape[0]):
        for p in range(world.piles.shape[1]):
            roll.piles[r, p] = world.piles[r, p]
    for k in range(world.pst.shape[0]):
        roll.pst[k] = world.pst[k]
    _seed_round_streams(roll.rng, key, seat, 0)
    _play_out(rules, base, roll, search.out, force)
    scores = search.out.scores[0]
    if objective == 1:
        winner = search.out.summary[0, S_WINNER]
        return value_after(search.equity, rules, world.totals, world.alive, scores,
                           world.pst[PS_STARTER], winner, seat)  # fmt: skip
    others = 0.0
    n = 0
    for s in range(scores.shape[0]):
        if s != seat and roll.alive[s]:
            others += scores[s]
            n += 1
    return (others / n if n > 0 else 0.0) - scores[seat]


@njit
def _evaluate(rules, policy, search, seat, t, n_cands, key):
    """Play candidates ``0 .. n_cands - 1`` of ``search.cands`` on in sampled worlds.

    Fills ``search.values`` and ``search.info``; returns the index of the
    candidate with the best mean (the first of equals).
    """
    base = search.bases[np.int64(policy.base)]
    worlds = min(np.int64(policy.worlds), search.values.shape[1])
    if policy.rollouts > 0:
        worlds = max(1, min(worlds, np.int64(policy.rollouts) // n_cands))
    turn = t.pst[PS_TURN]
    objective = np.int64(policy.objective)
    cands, values = search.cands, search.values
    _seed_sampler(search.rng, key)
    for w in range(worlds):
        _sample_world(t, seat, search.world, search.rng, policy.bias, policy.recall > 0.5)
        world_key = _world_key(key, w)
        for c in range(n_cands):
            force = Force(turn, cands[c, K_CALL], cands[c, K_MASK], cands[c, K_LAYING],
                          cands[c, K_DRAW])  # fmt: skip
            values[c, w] = _rollout(rules, base, search, seat, force, world_key, objective)
    best = 0
    best_sum = -np.inf
    for c in range(n_cands):
        total = 0.0
        for w in range(worlds):
            total += values[c, w]
        if total > best_sum:
            best_sum = total
            best = c
    search.info[0] = n_cands
    search.info[1] = worlds
    search.info[2] = best
    return best


@njit(inline="always")
def _world_key(key, w):
    """The key of world ``w``'s rollout streams in a search keyed ``key``."""
    return _mix64(key ^ (np.uint64(w + 1) * np.uint64(0x9E3779B97F4A7C15)))


@njit
def nth_world(t, seat, search, w, bias, recall):
    """Put into ``search.roll`` world ``w`` of the next search at ``seat``, as it is played on.

    Its streams are the rollouts'. The table's streams are left as they
    were (the key is drawn from a copy), so the search itself still sees them.
    """
    state = t.rng[1 + seat]
    key = _next_u64(t.rng, 1 + seat)
    t.rng[1 + seat] = state
    _seed_sampler(search.rng, key)
    for _ in range(w + 1):
        _sample_world(t, seat, search.roll, search.rng, bias, recall)
    _seed_round_streams(search.roll.rng, _world_key(key, w), seat, 0)


@njit(inline="always")
def _set_candidate(cands, c, call, mask, laying, draw):
    cands[c, K_CALL] = call
    cands[c, K_MASK] = mask
    cands[c, K_LAYING] = laying
    cands[c, K_DRAW] = draw


@njit
def search_call(policy, search, seat, rules, t):
    """Whether the searching ``seat`` calls now: calling against waiting, in sampled worlds."""
    key = _next_u64(t.rng, 1 + seat)
    _set_candidate(search.cands, 0, 1, -1, 0, NO_DRAW)
    _set_candidate(search.cands, 1, 0, -1, 0, NO_DRAW)
    return _evaluate(rules, policy, search, seat, t, 2, key) == 0


@njit
def search_discard(policy, search, seat, rules, t, n_sets):
    """The searching ``seat``'s discard among the ``n_sets`` card sets in ``t.cand``.

    Lays it into ``piles[CUR]`` as :func:`~yaniv_sim.engine._policy._choose_discard`
    does; with ``decide`` = 2 also chooses the draw (kept in ``search.chosen``).
    """
    search.chosen[seat] = NO_DRAW
    if policy.decide < 1:
        return _choose_discard(search.bases[np.int64(policy.base)], seat, rules, t, n_sets)
    jis = rules.joker_in_sets != 0
    reading = (jis, rules.set_draw_ends != 0)
    cands = search.cands
    rows = 0
    for i in range(n_sets):
        mask = t.cand[C_MASK, i]
        kind = _mask_kind(t.hands, seat, mask, jis)
        n = _layings(t.hands, seat, mask, kind, reading, search.lay, search.lay_len, rows)
        for j in range(n):
            _set_candidate(cands, rows + j, 0, mask, j, NO_DRAW)
        rows += n
    key = _next_u64(t.rng, 1 + seat)
    best = _evaluate(rules, policy, search, seat, t, rows, key) if rows > 1 else 0
    mask = cands[best, K_MASK]
    laying = cands[best, K_LAYING]
    piles, pst = t.piles, t.pst
    for p in range(search.lay_len[best]):
        piles[CUR, p] = search.lay[best, p]
    pst[PS_CUR_N] = search.lay_len[best]
    pst[PS_CUR_KIND] = search.lay[best, LAY_KIND]
    if policy.decide >= 2:
        prev_n = pst[PS_PREV_N]
        _set_candidate(cands, 0, 0, mask, laying, -1)
        n = 1
        if prev_n > 0:
            bits = _takeable_bits(prev_n, pst[PS_PREV_KIND], reading[1])
            for p in range(prev_n):
                if (bits >> p) & 1:
                    _set_candidate(cands, n, 0, mask, laying, p)
                    n += 1
        if n > 1:
            # in the same worlds as the discard's (the same key), from the turn's start
            pst[PS_CUR_N] = 0
            best_draw = _evaluate(rules, policy, search, seat, t, n, key)
            pst[PS_CUR_N] = search.lay_len[best]
            search.chosen[seat] = cands[best_draw, K_DRAW]
    return mask


@njit
def search_draw(policy, search, seat, rules, t):
    """The searching ``seat``'s draw: the one chosen with its discard, else its base policy's."""
    chosen = search.chosen[seat]
    search.chosen[seat] = NO_DRAW
    if chosen != NO_DRAW:
        return chosen
    return _choose_draw(search.bases[np.int64(policy.base)], seat, rules, t)


def search_workspace(matrix: np.ndarray, players: int, rules) -> Search | None:
    """The workspace for a policy matrix (or a stack of them) under ``rules``.

    None when no seat searches. A seat searching for the win
    (``objective=win``) needs the shipped equity table of the preset
    ``rules`` equal (an error names the parameter otherwise).
    """
    from yaniv_sim.engine.specs import policy_matrix

    searching = matrix[..., P_KIND] == KIND_SEARCH
    if not searching.any():
        return None
    worlds = int(matrix[..., SEARCH.slot("worlds")][searching].max())
    bases = np.stack([policy_matrix(name, players) for name in SEARCH_BASES])
    win = (matrix[..., SEARCH.slot("objective")][searching] == 1).any()
    equity = equity_arrays(rules, players) if win else None
    return new_search(bases.view(POLICY).reshape(len(SEARCH_BASES), players), players, worlds,
                      equity)  # fmt: skip
