"""Kernels that play whole rounds and whole games.

A table's state lives in preallocated arrays (see :func:`new_workspace`)
reused for every round of a batch, so a turn allocates nothing:

``hands`` int16[seats, MAX_HAND], ``taken`` int8[seats, MAX_HAND]
    Each hand sorted by card order; ``taken`` marks cards the seat took from
    the pile (which everyone saw).
``hand_n``, ``hand_val`` int64[seats]
    Cards in each hand and their value.
``piles`` int16[4, DECK_CAPACITY], ``pst`` int64[N_PILE_STATE]
    The stock, the dead pile, the previous and the current discard, and
    their lengths (see :mod:`yaniv_sim.engine._policy`).
``cand`` int64[3, MAX_CARD_SETS]; ``rng`` uint64[1 + seats];
``lay`` int16[MAX_LAYINGS, LAY_WIDTH], ``lay_len`` int64[MAX_LAYINGS]
    Scratch for card sets, the round's random streams, and layings (each
    laying row ends with the kind it is laid as, column ``LAY_KIND``).

``rp`` and ``milestones`` are the rule arrays of
:func:`~yaniv_sim.engine._layout.rule_params`; ``pol`` the policy matrix.
"""

from __future__ import annotations

import numpy as np

from yaniv_sim._numba import njit
from yaniv_sim.cards import JOKER_BASE, N_NATURAL, VALUE
from yaniv_sim.engine._discards import _card_sets, _insert_card, _mask_points, _remove_mask
from yaniv_sim.engine._layout import (
    ACTION_CALL,
    ACTION_SLAPDOWN,
    ACTION_TURN,
    CUR,
    D_CALLED,
    D_LOWEST,
    D_OPP_CARDS,
    D_OPP_KNOWN,
    D_OPP_KNOWN_VALUE,
    D_SEAT,
    D_TURN,
    D_VALUE,
    DEAD,
    DECISION_WIDTH,
    KIND_SINGLE,
    L_ACTION,
    L_DISCARD,
    L_DRAWN,
    L_HAND,
    L_HAND_N,
    L_KIND,
    L_NDISCARD,
    L_RESHUFFLED,
    L_SEAT,
    L_SOURCE,
    L_STOCK_LEFT,
    LAY_WIDTH,
    LOG_WIDTH,
    MAX_CARD_SETS,
    MAX_HAND,
    MAX_LAYINGS,
    MAX_SEATS,
    N_PILE_STATE,
    OUT_VOID,
    PREV,
    PS_CUR_KIND,
    PS_CUR_N,
    PS_DEAD_N,
    PS_FORCE,
    PS_PREV_KIND,
    PS_PREV_N,
    PS_STOCK_N,
    PS_TURN,
    R_DECK_SIZE,
    R_DECKS,
    R_EMPTY_STOCK_ENDS,
    R_HAND_SIZE,
    R_JOKER_IN_SETS,
    R_JOKERS,
    R_MAX_ROUNDS,
    R_MAX_TURNS,
    R_SLAPDOWN,
    R_THRESHOLD,
    S_CALLER,
    S_CALLER_VALUE,
    S_OUTCOME,
    S_RESHUFFLES,
    S_STARTER,
    S_TURNS,
    S_WINNER,
    STOCK,
)
from yaniv_sim.engine._policy import (
    _choose_discard,
    _choose_draw,
    _wants_call,
    _wants_slapdown,
)
from yaniv_sim.engine._rng import _seed_round_streams, _shuffle
from yaniv_sim.engine._scoring import _next_alive, _next_starter, _score_round, _settle

DECK_CAPACITY = 2 * N_NATURAL + 8


def new_workspace(seats: int):
    """Fresh table arrays for ``seats`` seats, in kernel argument order."""
    return (
        np.zeros((seats, MAX_HAND), np.int16),  # hands
        np.zeros((seats, MAX_HAND), np.int8),  # taken
        np.zeros(seats, np.int64),  # hand_n
        np.zeros(seats, np.int64),  # hand_val
        np.zeros((4, DECK_CAPACITY), np.int16),  # piles
        np.zeros(N_PILE_STATE, np.int64),  # pst
        np.zeros((3, MAX_CARD_SETS), np.int64),  # cand
        np.zeros(1 + seats, np.uint64),  # rng
        np.zeros((MAX_LAYINGS, LAY_WIDTH), np.int16),  # lay
        np.zeros(MAX_LAYINGS, np.int64),  # lay_len
    )


@njit
def _log_step(log, row, action, seat, hands, hand_n, piles, pst, drawn, source, reshuffled):
    log[row, L_SEAT] = seat
    log[row, L_ACTION] = action
    log[row, L_SOURCE] = source
    log[row, L_DRAWN] = drawn
    log[row, L_RESHUFFLED] = reshuffled
    log[row, L_STOCK_LEFT] = pst[PS_STOCK_N]
    if action == ACTION_TURN:
        log[row, L_KIND] = pst[PS_CUR_KIND]
        log[row, L_NDISCARD] = pst[PS_CUR_N]
        for p in range(pst[PS_CUR_N]):
            log[row, L_DISCARD + p] = piles[CUR, p]
    else:
        log[row, L_KIND] = -1
        log[row, L_NDISCARD] = 0
    log[row, L_HAND_N] = hand_n[seat]
    for p in range(hand_n[seat]):
        log[row, L_HAND + p] = hands[seat, p]


@njit
def _deal(rp, alive, starter, seed, game, rnd, hands, taken, hand_n, hand_val, piles, pst, rng):
    """Seed the round's streams, shuffle the deck (stream 0), deal, turn up a card."""
    _seed_round_streams(rng, seed, game, rnd)
    naturals = rp[R_DECKS] * N_NATURAL
    size = rp[R_DECK_SIZE]
    for i in range(naturals):
        piles[STOCK, i] = i
    for j in range(rp[R_JOKERS]):
        piles[STOCK, naturals + j] = JOKER_BASE + j
    _shuffle(piles[STOCK], size, rng, 0)
    top = size
    seats = alive.shape[0]
    for s in range(seats):
        hand_n[s] = 0
        hand_val[s] = 0
    for _ in range(rp[R_HAND_SIZE]):
        s = starter
        for _k in range(seats):
            if alive[s]:
                top -= 1
                c = piles[STOCK, top]
                hand_n[s] = _insert_card(hands, taken, s, hand_n[s], c, 0)
                hand_val[s] += VALUE[c]
            s = s + 1 if s + 1 < seats else 0
    top -= 1
    piles[PREV, 0] = piles[STOCK, top]
    pst[PS_STOCK_N] = top
    pst[PS_DEAD_N] = 0
    pst[PS_PREV_N] = 1
    pst[PS_PREV_KIND] = KIND_SINGLE
    pst[PS_CUR_N] = 0
    pst[PS_TURN] = 0


@njit
def _log_decision(dec, dec_n, seat, turn, called, alive, hands, taken, hand_n, hand_val):
    """Append a decision row: ``seat`` could call at the start of ``turn``.

    Past the end of ``dec`` only the count grows, so the caller sees the
    overflow and can play the work again with more room.
    """
    row = dec_n[0]
    dec_n[0] = row + 1
    if row >= dec.shape[0]:
        return
    seats = alive.shape[0]
    dec[row, D_SEAT] = seat
    dec[row, D_TURN] = turn
    dec[row, D_VALUE] = hand_val[seat]
    dec[row, D_CALLED] = called
    lowest = 1 << 14
    o = seat
    for k in range(MAX_SEATS - 1):
        if k < seats - 1:
            o = o + 1 if o + 1 < seats else 0
        if k >= seats - 1 or not alive[o]:
            dec[row, D_OPP_CARDS + k] = -1
            dec[row, D_OPP_KNOWN + k] = -1
            dec[row, D_OPP_KNOWN_VALUE + k] = -1
            continue
        lowest = min(lowest, hand_val[o])
        known = 0
        known_value = 0
        for i in range(hand_n[o]):
            if taken[o, i]:
                known += 1
                known_value += VALUE[hands[o, i]]
        dec[row, D_OPP_CARDS + k] = hand_n[o]
        dec[row, D_OPP_KNOWN + k] = known
        dec[row, D_OPP_KNOWN_VALUE + k] = known_value
    dec[row, D_LOWEST] = lowest


@njit
def _play_round(
    rp,
    pol,
    alive,
    starter,
    seed,
    game,
    rnd,
    totals,
    hands,
    taken,
    hand_n,
    hand_val,
    piles,
    pst,
    cand,
    rng,
    lay,
    lay_len,
    summary,
    values,
    scores,
    out,
    log,
    dec,
    dec_n,
):
    """Play one round from the deal to its end.

    Parameters
    ----------
    rp : int64 rule vector
    pol : float64[seats, N_POLICY_PARAMS]
    alive : int8[seats], seats in the game
    starter : int, seat that plays first
    seed, game, rnd : int
        Keys of the round's random streams.
    totals : int64[seats], running totals before the round (policies may read them)
    hands ... lay_len : the table arrays (module docstring)
    summary : int64[rows, N_SUMMARY]; values, scores : int64[rows, seats]
        Row ``out`` is written: the ``S_*`` fields, final hand values and
        round scores.
    log : int16[rows, LOG_WIDTH]
        Turn log, one row per turn, call or slapdown: give it
        ``max_turns + 2`` rows to record, or zero rows not to.
    dec : int16[rows, DECISION_WIDTH], dec_n : int64[1]
        Decision log: a row (``D_*`` fields) for every turn start at which
        the acting seat could call, appended at ``dec_n[0]``; give it room
        for ``max_turns + 1`` more rows, or zero rows not to log.

    A nonzero ``pst[PS_FORCE]`` forces one call decision (see
    :mod:`~yaniv_sim.engine._layout`): the policy is still asked, so its
    random streams advance as usual, but its answer is replaced.

    Returns
    -------
    int
        Number of log rows written.
    """
    record = log.shape[0] > 0
    decisions = dec.shape[0] > 0
    rows = 0
    forced_turn = (pst[PS_FORCE] - 1) >> 1 if pst[PS_FORCE] > 0 else -1
    forced_call = (pst[PS_FORCE] - 1) & 1 == 1
    _deal(rp, alive, starter, seed, game, rnd, hands, taken, hand_n, hand_val, piles, pst, rng)
    threshold = rp[R_THRESHOLD]
    jis = rp[R_JOKER_IN_SETS] != 0
    max_turns = rp[R_MAX_TURNS]
    seat = starter
    turn = 0
    reshuffles = 0
    caller = -1
    slapped = False
    ended_void = False
    while True:
        pst[PS_TURN] = turn
        calls = False
        if hand_val[seat] <= threshold:
            calls = _wants_call(pol, seat, rp, totals, hands, taken, hand_n, hand_val, piles, pst,
                                cand, rng, lay, lay_len)  # fmt: skip
            if turn == forced_turn:
                calls = forced_call
            if decisions:
                _log_decision(dec, dec_n, seat, turn, calls, alive, hands, taken, hand_n, hand_val)
        if calls:
            caller = seat
            if record:
                _log_step(log, rows, ACTION_CALL, seat, hands, hand_n, piles, pst, -1, -1, 0)
                rows += 1
            break
        n = hand_n[seat]
        n_sets = _card_sets(hands, seat, n, jis, cand)
        mask = _choose_discard(
            pol,
            seat,
            rp,
            totals,
            hands,
            taken,
            hand_n,
            hand_val,
            piles,
            pst,
            cand,
            rng,
            lay,
            lay_len,
            n_sets,
        )
        hand_val[seat] -= _mask_points(hands, seat, mask)
        hand_n[seat] = _remove_mask(hands, taken, seat, n, mask)
        source = _choose_draw(
            pol,
            seat,
            rp,
            totals,
            hands,
            taken,
            hand_n,
            hand_val,
            piles,
            pst,
            cand,
            rng,
            lay,
            lay_len,
        )
        reshuffled = 0
        prev_n = pst[PS_PREV_N]
        if source < 0:
            if pst[PS_STOCK_N] == 0:
                if rp[R_EMPTY_STOCK_ENDS]:
                    turn += 1
                    if record:
                        _log_step(
                            log, rows, ACTION_TURN, seat, hands, hand_n, piles, pst, -1, -1, 0
                        )
                        rows += 1
                    break
                # every card under the discard just laid becomes the new stock
                dead_n = pst[PS_DEAD_N]
                for k in range(dead_n):
                    piles[STOCK, k] = piles[DEAD, k]
                for k in range(prev_n):
                    piles[STOCK, dead_n + k] = piles[PREV, k]
                pst[PS_STOCK_N] = dead_n + prev_n
                pst[PS_DEAD_N] = 0
                prev_n = 0
                _shuffle(piles[STOCK], pst[PS_STOCK_N], rng, 0)
                reshuffles += 1
                reshuffled = 1
            pst[PS_STOCK_N] -= 1
            card = piles[STOCK, pst[PS_STOCK_N]]
            flag = 0
        else:
            card = piles[PREV, source]
            for k in range(source, prev_n - 1):
                piles[PREV, k] = piles[PREV, k + 1]
            prev_n -= 1
            flag = 1
        hand_n[seat] = _insert_card(hands, taken, seat, hand_n[seat], card, flag)
        hand_val[seat] += VALUE[card]
        dead_n = pst[PS_DEAD_N]
        for k in range(prev_n):
            piles[DEAD, dead_n + k] = piles[PREV, k]
        pst[PS_DEAD_N] = dead_n + prev_n
        for k in range(pst[PS_CUR_N]):
            piles[PREV, k] = piles[CUR, k]
        pst[PS_PREV_N] = pst[PS_CUR_N]
        pst[PS_PREV_KIND] = pst[PS_CUR_KIND]
        pst[PS_CUR_N] = 0
        turn += 1
        if record:
            pst[PS_CUR_N] = pst[PS_PREV_N]  # log the discard just laid
            _log_step(
                log,
                rows,
                ACTION_TURN,
                seat,
                hands,
                hand_n,
                piles,
                pst,
                card,
                1 if source >= 0 else 0,
                reshuffled,
            )
            pst[PS_CUR_N] = 0
            rows += 1
        if (
            rp[R_SLAPDOWN]
            and hand_val[seat] == 0
            and _wants_slapdown(
                pol,
                seat,
                rp,
                totals,
                hands,
                taken,
                hand_n,
                hand_val,
                piles,
                pst,
                cand,
                rng,
                lay,
                lay_len,
            )
        ):
            caller = seat
            slapped = True
            if record:
                _log_step(log, rows, ACTION_SLAPDOWN, seat, hands, hand_n, piles, pst, -1, -1, 0)
                rows += 1
            break
        if turn >= max_turns:
            ended_void = True
            break
        seat = _next_alive(alive, seat)
    seats = alive.shape[0]
    for s in range(seats):
        values[out, s] = hand_val[s] if alive[s] else 0
    if ended_void:
        for s in range(seats):
            scores[out, s] = 0
        outcome = OUT_VOID
        winner = -1
    else:
        outcome, winner = _score_round(values[out], alive, caller, slapped, rp, scores[out])
    summary[out, S_OUTCOME] = outcome
    summary[out, S_CALLER] = caller
    summary[out, S_CALLER_VALUE] = values[out, caller] if caller >= 0 else -1
    summary[out, S_TURNS] = turn
    summary[out, S_RESHUFFLES] = reshuffles
    summary[out, S_WINNER] = winner
    summary[out, S_STARTER] = starter
    return rows


def new_game_scratch(seats: int):
    """Arrays the batch kernels work in besides the table.

    Theft charges, an empty turn log, an empty decision log and its counter.
    """
    return (
        np.zeros(seats, np.int64),
        np.zeros((0, LOG_WIDTH), np.int16),
        np.zeros((0, DECISION_WIDTH), np.int16),
        np.zeros(1, np.int64),
    )


@njit
def _play_game(rp, milestones, pol, seed, game, ws, scratch, totals, alive, summaries, values,
               scores, round_totals, round_alive, landed, dec, dec_n, dec_round):  # fmt: skip
    """Play one game from the first deal until one player is left.

    ``totals`` and ``alive`` (int64 / int8, per seat) are reset and updated in
    place. Per round ``r`` it writes ``summaries[r]`` (``S_*`` fields),
    ``values[r]``, ``scores[r]``, ``round_totals[r]`` and ``round_alive[r]``
    (after the round) and ``landed[r]`` (1 where a seat landed on a
    milestone). Arrays have ``max_rounds`` rows; ``ws`` is the table tuple of
    :func:`new_workspace`, ``scratch`` that of :func:`new_game_scratch`.
    Decisions are logged as in :func:`_play_round` (``dec`` with zero rows
    logs none), and ``dec_round`` gets the round of each decision row.

    Returns
    -------
    (rounds, winner) : (int, int)
        ``winner`` is -1 when ``max_rounds`` rounds were played without one.
    """
    hands, taken, hand_n, hand_val, piles, pst, cand, rng, lay, lay_len = ws
    charges, no_log, _, _ = scratch
    seats = totals.shape[0]
    for s in range(seats):
        totals[s] = 0
        alive[s] = 1
    starter = 0
    winner = -1
    rounds = 0
    for r in range(rp[R_MAX_ROUNDS]):
        first_dec = dec_n[0]
        _play_round(rp, pol, alive, starter, seed, game, r, totals, hands, taken, hand_n,
                    hand_val, piles, pst, cand, rng, lay, lay_len, summaries, values, scores, r,
                    no_log, dec, dec_n)  # fmt: skip
        for row in range(first_dec, min(dec_n[0], dec.shape[0])):
            dec_round[row] = r
        winner = _settle(totals, scores[r], alive, rp, milestones, landed[r], charges)
        for s in range(seats):
            round_totals[r, s] = totals[s]
            round_alive[r, s] = alive[s]
        rounds = r + 1
        if winner >= 0:
            break
        starter = _next_starter(rp, starter, summaries[r, S_WINNER], alive)
    return rounds, winner


@njit
def _play_rounds(rp, pol, seed, first, count, ws, scratch, alive, totals, summaries, values,
                 scores):  # fmt: skip
    """Play ``count`` independent rounds ``first .. first + count - 1`` of game 0.

    The seats in ``alive`` play, with running totals ``totals``; round ``r``
    starts at seat ``r % seats``, or the next seat in after it. Row ``i`` of
    the outputs is round ``first + i``.
    """
    hands, taken, hand_n, hand_val, piles, pst, cand, rng, lay, lay_len = ws
    _, no_log, no_dec, dec_n = scratch
    seats = alive.shape[0]
    for i in range(count):
        r = first + i
        starter = r % seats
        if not alive[starter]:
            starter = _next_alive(alive, starter)
        _play_round(rp, pol, alive, starter, seed, 0, r, totals, hands, taken, hand_n, hand_val,
                    piles, pst, cand, rng, lay, lay_len, summaries, values, scores, i,
                    no_log, no_dec, dec_n)  # fmt: skip
    return count
