"""The round as steps, and the loops that play rounds and games from them.

The state of a round is one :class:`~yaniv_sim.engine._table.Table`; the
steps below change it in the rules' words: :func:`_deal`, :func:`_discard`,
:func:`_draw` (with the reshuffle and the stock-out house rule),
:func:`_pass_turn`, and :func:`_finish_round` (the score). The policies
decide (``_policy``); the steps carry out. :func:`_play_on` plays a round on
from whatever position the table holds, so a round can be cut at any turn
and played on from there; :func:`_play_round` deals and plays on from the
first turn. Rounds, games, call-or-wait branches and duplicate comparisons
all play through :func:`_play_on`.

``rules`` is the :data:`~yaniv_sim.engine._layout.RULES` record of
:func:`~yaniv_sim.engine._layout.rule_record`; ``pol`` the policy records
(one per seat) of :func:`~yaniv_sim.engine._policy.policy_records`; ``t`` a
:class:`~yaniv_sim.engine._table.Table`; ``out`` a
:class:`~yaniv_sim.engine._table.RoundOut` and ``row`` its row.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from yaniv_sim._numba import njit
from yaniv_sim.cards import JOKER_BASE, N_NATURAL, VALUE
from yaniv_sim.engine._discards import (
    _card_sets,
    _insert_card,
    _layings,
    _mask_kind,
    _mask_points,
    _remove_mask,
)
from yaniv_sim.engine._layout import (
    ACTION_CALL,
    ACTION_SLAPDOWN,
    ACTION_TURN,
    CUR,
    D_CALLED,
    D_HAND_CARDS,
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
    LAY_KIND,
    LOG_WIDTH,
    MAX_SEATS,
    OUT_VOID,
    PREV,
    PS_CUR_KIND,
    PS_CUR_N,
    PS_DEAD_N,
    PS_PILE_DRAWS,
    PS_PREV_KIND,
    PS_PREV_N,
    PS_REBUILT_N,
    PS_RESHUFFLES,
    PS_SEAT,
    PS_STARTER,
    PS_STOCK_N,
    PS_TURN,
    REBUILT,
    S_CALLER,
    S_CALLER_VALUE,
    S_OUTCOME,
    S_RESHUFFLES,
    S_STARTER,
    S_TURNS,
    S_WINNER,
    STOCK,
    Force,
)
from yaniv_sim.engine._policy import (
    KIND_SEARCH,
    _choose_discard,
    _choose_draw,
    _wants_call,
    _wants_slapdown,
)
from yaniv_sim.engine._rng import _seed_round_streams, _shuffle
from yaniv_sim.engine._scoring import _next_alive, _next_starter, _score_round, _settle
from yaniv_sim.engine._table import DECK_CAPACITY, RoundOut, Table, new_table

__all__ = ["DECK_CAPACITY", "RoundOut", "Table", "new_table"]

# what _play_on returns besides the number of log rows
REACHED = -1  # the round reached ``stop_turn``: the table holds that position


# Literal arguments. numba compiles a function once per argument types, and a
# constant such as 0 or (-1, 0) is typed as that literal value: every kernel
# call passes plain int64 values built by these helpers, so that the round
# loop (with the policies inlined, by far the largest thing to compile) is
# compiled once. The same holds for every compiled (not inlined) call inside
# the kernels, and numba types a call each time its argument types change
# while it infers the caller's types: a counter starting at ``0`` is first
# typed as the literal 0, and the callee it is passed to is compiled for the
# literal 0 as well as for int64. Counters passed to compiled calls
# therefore start as ``np.int64(0)``, and constants are passed as
# ``np.int64(...)`` (this once compiled the heuristic's discard twice and
# ``_log_step`` seven times).
@njit(inline="always")
def _no_force():
    """The ``force`` argument that forces nothing (:data:`NO_FORCE`), as plain int64s."""
    return Force(np.int64(-1), np.int64(0), np.int64(-1), np.int64(0), np.int64(-2))


@njit(inline="always")
def _force_call(turn, call):
    """A :class:`Force` of the call decision at ``turn`` only (``turn`` -1: nothing)."""
    return Force(np.int64(turn), np.int64(call), np.int64(-1), np.int64(0), np.int64(-2))


class GamePlan(NamedTuple):
    """What :func:`_play_game` plays: rounds of one game, where they write, what is forced."""

    seed: np.int64
    game: np.int64
    first: np.int64  # the first round to play (from 0: totals and seats reset)
    starter: np.int64  # who plays first in round ``first``
    last: np.int64  # the last round to play, at most
    force_turn: np.int64  # a call decision forced in round ``first`` (-1: none; see Force) ...
    force_call: np.int64  # ... to this (1 call, 0 wait)
    keep: np.int64  # 1: round r writes row base + r; 0: round first row 0, later ones row 1
    base: np.int64


@njit(inline="always")
def _plan(seed, game, first, starter, last, force, keep, base):
    """A :class:`GamePlan` of plain int64s; ``force = (turn, call)``, a forced call decision."""
    return GamePlan(np.int64(seed), np.int64(game), np.int64(first), np.int64(starter),
                    np.int64(last), np.int64(force[0]), np.int64(force[1]), np.int64(keep),
                    np.int64(base))  # fmt: skip


@njit
def _log_step(log, row, action, seat, t, drawn, source, reshuffled):
    """Write turn-log row ``row``: ``seat``'s step and its hand after it."""
    pst = t.pst
    log[row, L_SEAT] = seat
    log[row, L_ACTION] = action
    log[row, L_SOURCE] = source
    log[row, L_DRAWN] = drawn
    log[row, L_RESHUFFLED] = reshuffled
    log[row, L_STOCK_LEFT] = pst[PS_STOCK_N]
    if action == ACTION_TURN:
        log[row, L_KIND] = pst[PS_PREV_KIND]
        log[row, L_NDISCARD] = pst[PS_PREV_N]
        for p in range(pst[PS_PREV_N]):
            log[row, L_DISCARD + p] = t.piles[PREV, p]
    else:
        log[row, L_KIND] = -1
        log[row, L_NDISCARD] = 0
    log[row, L_HAND_N] = t.hand_n[seat]
    for p in range(t.hand_n[seat]):
        log[row, L_HAND + p] = t.hands[seat, p]


@njit(inline="always")
def _log_end(log, row, action, seat, t):
    """Write turn-log row ``row``: ``seat`` called, slapped down or ended the round (no draw)."""
    _log_step(log, row, np.int64(action), seat, t, np.int64(-1), np.int64(-1), np.int64(0))


@njit(inline="always")
def _deal(rules, t, starter, keys):
    """Seed the round's streams from ``keys = (seed, game, round)``, shuffle, deal, turn up.

    Every seat in (``t.alive``) gets ``hand_size`` cards, one at a time from
    ``starter`` on; the next card is turned up as the first discard.
    """
    _seed_round_streams(t.rng, keys[0], keys[1], keys[2])
    piles, pst = t.piles, t.pst
    naturals = rules.decks * N_NATURAL
    size = rules.deck_size
    for i in range(naturals):
        piles[STOCK, i] = i
    for j in range(rules.jokers):
        piles[STOCK, naturals + j] = JOKER_BASE + j
    _shuffle(piles[STOCK], size, t.rng, 0)
    seats = t.alive.shape[0]
    players = 0
    for s in range(seats):
        players += 1 if t.alive[s] else 0
    hand_size = rules.hand_size
    # Dealt one card at a time from the top, ``starter`` first: the seat that is
    # ``r``-th in from the starter gets the cards ``players`` apart from the ``r``-th
    # from the top. Each hand is filled in one go, sorted as the cards come.
    s = starter
    r = 0
    for _k in range(seats):
        if t.alive[s]:
            value = 0
            for k in range(hand_size):
                # a place is never negative: unsigned, without numba's wraparound test
                c = piles[STOCK, np.uint64(size - 1 - k * players - r)]
                _insert_card(t.hands, t.taken, s, k, c, 0)
                value += VALUE[np.uint16(c)]
            t.hand_n[s] = hand_size
            t.hand_val[s] = value
            r += 1
        else:
            t.hand_n[s] = 0
            t.hand_val[s] = 0
        s = s + 1 if s + 1 < seats else 0
    top = size - hand_size * players - 1
    piles[PREV, 0] = piles[STOCK, top]
    pst[PS_STOCK_N] = top
    pst[PS_DEAD_N] = 0
    pst[PS_PREV_N] = 1
    pst[PS_PREV_KIND] = KIND_SINGLE
    pst[PS_CUR_N] = 0
    pst[PS_TURN] = 0
    pst[PS_SEAT] = starter
    pst[PS_RESHUFFLES] = 0
    pst[PS_STARTER] = starter
    pst[PS_REBUILT_N] = 0
    pst[PS_PILE_DRAWS] = 0


@njit
def _log_decision(out, seat, called, t):
    """Append a decision row: ``seat`` could call at the start of this turn.

    Past the end of ``out.dec`` only the count grows, so the caller sees the
    overflow and can play the work again with more room.
    """
    dec, dec_n = out.dec, out.dec_n
    row = dec_n[0]
    dec_n[0] = row + 1
    if row >= dec.shape[0]:
        return
    alive, hands, taken, hand_n, hand_val = t.alive, t.hands, t.taken, t.hand_n, t.hand_val
    seats = alive.shape[0]
    dec[row, D_SEAT] = seat
    dec[row, D_TURN] = t.pst[PS_TURN]
    dec[row, D_VALUE] = hand_val[seat]
    dec[row, D_HAND_CARDS] = hand_n[seat]
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


@njit(inline="always")
def _discard(t, seat, mask):
    """Take the cards of slot mask ``mask`` out of ``seat``'s hand (already laid in CUR)."""
    t.hand_val[seat] -= _mask_points(t.hands, seat, mask)
    t.hand_n[seat] = _remove_mask(t.hands, t.taken, seat, t.hand_n[seat], mask)


@njit(inline="always")
def _draw(rules, t, seat, source):
    """``seat`` draws: from the stock (``source`` -1) or card ``source`` of the previous discard.

    An empty stock is rebuilt from every card under the discard just laid
    (the dead pile and what is left of the previous discard), shuffled with
    stream 0 (the cards are also kept, unordered, in the ``REBUILT`` row);
    under ``empty_stock = "end_round"`` the round ends instead.
    Returns ``(card, reshuffled)``; ``card`` is -1 when the stock ran out
    and the round ends. The card taken leaves the previous discard, which
    must then be passed on with :func:`_pass_turn`.
    """
    piles, pst = t.piles, t.pst
    reshuffled = 0
    if source < 0:
        if pst[PS_STOCK_N] == 0:
            if rules.empty_stock_ends:
                return -1, 0
            dead_n = pst[PS_DEAD_N]
            prev_n = pst[PS_PREV_N]
            for k in range(dead_n):
                piles[STOCK, k] = piles[DEAD, k]
            for k in range(prev_n):
                piles[STOCK, dead_n + k] = piles[PREV, k]
            pst[PS_STOCK_N] = dead_n + prev_n
            for k in range(dead_n + prev_n):
                piles[REBUILT, k] = piles[STOCK, k]
            pst[PS_REBUILT_N] = dead_n + prev_n
            pst[PS_DEAD_N] = 0
            pst[PS_PREV_N] = 0
            _shuffle(piles[STOCK], pst[PS_STOCK_N], t.rng, 0)
            pst[PS_RESHUFFLES] += 1
            reshuffled = 1
        pst[PS_STOCK_N] -= 1
        card = piles[STOCK, np.uint64(pst[PS_STOCK_N])]
        flag = 0
    else:
        card = piles[PREV, source]
        prev_n = pst[PS_PREV_N]
        for k in range(source, prev_n - 1):
            piles[PREV, k] = piles[PREV, k + 1]
        pst[PS_PREV_N] = prev_n - 1
        flag = 1
    t.hand_n[seat] = _insert_card(t.hands, t.taken, seat, t.hand_n[seat], card, flag)
    t.hand_val[seat] += VALUE[card]
    # the seat's draw-source bit, written only when it changes (a write at every draw
    # cost 2-3% of max-shed self-play, docs/performance.md)
    if (pst[PS_PILE_DRAWS] >> seat) & 1 != flag:
        pst[PS_PILE_DRAWS] ^= np.int64(1) << seat
    return card, reshuffled


@njit(inline="always")
def _pass_turn(t):
    """End the turn: the rest of the previous discard goes dead, this one becomes takeable."""
    piles, pst = t.piles, t.pst
    dead_n = pst[PS_DEAD_N]
    prev_n = pst[PS_PREV_N]
    for k in range(prev_n):  # places are never negative: unsigned, no wraparound tests
        piles[DEAD, np.uint64(dead_n + k)] = piles[PREV, np.uint64(k)]
    pst[PS_DEAD_N] = dead_n + prev_n
    for k in range(pst[PS_CUR_N]):
        piles[PREV, np.uint64(k)] = piles[CUR, np.uint64(k)]
    pst[PS_PREV_N] = pst[PS_CUR_N]
    pst[PS_PREV_KIND] = pst[PS_CUR_KIND]
    pst[PS_CUR_N] = 0
    pst[PS_TURN] += 1


@njit(inline="always")
def _finish_round(rules, t, caller, slapped, void, out, row):
    """Score the round into row ``row`` of ``out`` (summary, final hand values, scores)."""
    alive = t.alive
    seats = alive.shape[0]
    values, scores, summary = out.values, out.scores, out.summary
    for s in range(seats):
        values[row, s] = t.hand_val[s] if alive[s] else 0
    if void:
        for s in range(seats):
            scores[row, s] = 0
        outcome = OUT_VOID
        winner = -1
    else:
        outcome, winner = _score_round(values[row], alive, caller, slapped, rules, scores[row])
    summary[row, S_OUTCOME] = outcome
    summary[row, S_CALLER] = caller
    summary[row, S_CALLER_VALUE] = values[row, caller] if caller >= 0 else -1
    summary[row, S_TURNS] = t.pst[PS_TURN]
    summary[row, S_RESHUFFLES] = t.pst[PS_RESHUFFLES]
    summary[row, S_WINNER] = winner
    summary[row, S_STARTER] = t.pst[PS_STARTER]


@njit(inline="always")
def _lay_forced(rules, t, seat, mask, laying):
    """Lay card set ``mask`` of ``seat``'s hand as its ``laying``-th laying; return ``mask``."""
    jis = rules.joker_in_sets != 0
    kind = _mask_kind(t.hands, seat, mask, jis)
    reading = (jis, rules.set_draw_ends != 0)
    _layings(t.hands, seat, mask, kind, reading, t.lay, t.lay_len, np.int64(0))
    for p in range(t.lay_len[laying]):
        t.piles[CUR, p] = t.lay[laying, p]
    t.pst[PS_CUR_N] = t.lay_len[laying]
    t.pst[PS_CUR_KIND] = t.lay[laying, LAY_KIND]
    return mask


# A searching seat (policy kind ``search``, with a search workspace) decides
# through :mod:`yaniv_sim.engine._search`; every other seat through its policy.
# With ``search`` None the search's branches are dropped at compile time, so
# the rollouts a search plays (``search=None``) never compile the search.


@njit(inline="always")
def _decide_call(pol, search, seat, rules, t):
    if search is not None:  # noqa: SIM102  (a bare None test, so numba can drop the branch)
        if pol[seat].kind == KIND_SEARCH:
            return _search.search_call(pol[seat], search, seat, rules, t)
    return _wants_call(pol, seat, rules, t)


@njit(inline="always")
def _searched_discard(pol, search, seat, rules, t, n_sets):
    """A searching seat's discard (its slot mask, laid), or 0 when ``seat`` does not search."""
    if search is not None:  # noqa: SIM102
        if pol[seat].kind == KIND_SEARCH:
            return _search.search_discard(pol[seat], search, seat, rules, t, n_sets)
    return np.int64(0)


@njit(inline="always")
def _searched_draw(pol, search, seat, rules, t):
    """A searching seat's draw (as :func:`_choose_draw`), or -2 when ``seat`` does not search."""
    if search is not None:  # noqa: SIM102
        if pol[seat].kind == KIND_SEARCH:
            return _search.search_draw(pol[seat], search, seat, rules, t)
    return np.int64(-2)


def _round_loop(rules, pol, search, t, out, row, stop_turn, force):
    """Play the round on from the position the table holds, to its end.

    Parameters
    ----------
    rules : RULES record
    pol : policy records[seats], or None when every seat plays max-shed
    search : Search or None
        The searching seats' workspace (:mod:`yaniv_sim.engine._search`), or
        None when no seat searches.
    t : Table
        The position: whose turn (``pst[PS_SEAT]``), the turn, every hand,
        pile and stream. Changed in place as the round is played.
    out : RoundOut
        Row ``row`` of its summary, values and scores gets the round's
        result; its turn log gets a row per step (when it has rows) and its
        decision log a row per turn start at which a call was legal.
    stop_turn : int
        ``-1`` to play to the end; otherwise stop at the start of turn
        ``stop_turn`` (before the call decision) and leave that position in
        ``t``.
    force : Force
        Actions forced at one turn (see :class:`~yaniv_sim.engine._layout.Force`).

    Returns
    -------
    int
        Turn-log rows written, or ``REACHED`` when ``stop_turn`` was reached.
    """
    pst = t.pst
    log = out.log
    record = log.shape[0] > 0
    decisions = out.dec.shape[0] > 0
    rows = np.int64(0)
    threshold = rules.threshold
    jis = rules.joker_in_sets != 0
    max_turns = rules.max_turns
    seat = pst[PS_SEAT]
    caller = -1
    slapped = False
    void = False
    while True:
        if pst[PS_TURN] == stop_turn:
            pst[PS_SEAT] = seat
            return REACHED
        pst[PS_SEAT] = seat
        forced = pst[PS_TURN] == force.turn
        calls = False
        if t.hand_val[seat] <= threshold:
            calls = _decide_call(pol, search, seat, rules, t)
            if forced:
                calls = force.call == 1
            if decisions:
                _log_decision(out, seat, calls, t)
        if calls:
            caller = seat
            if record:
                _log_end(log, rows, ACTION_CALL, seat, t)
                rows += 1
            break
        if forced and force.discard >= 0:
            mask = _lay_forced(rules, t, seat, force.discard, force.laying)
        else:
            n_sets = _card_sets(t.hands, seat, t.hand_n[seat], jis, t.cand)
            # the policies' discard is inlined here, not inside another inlined function:
            # numba copies an inlined function's code again at every level of nesting
            mask = _searched_discard(pol, search, seat, rules, t, n_sets)
            if mask == 0:
                mask = _choose_discard(pol, seat, rules, t, n_sets)
        _discard(t, seat, mask)
        if forced and force.draw >= -1:
            source = force.draw
        else:
            source = _searched_draw(pol, search, seat, rules, t)
            if source == -2:
                source = _choose_draw(pol, seat, rules, t)
        card, reshuffled = _draw(rules, t, seat, source)
        if card < 0:  # the stock ran out and the rules end the round
            _pass_turn(t)
            if record:
                _log_end(log, rows, ACTION_TURN, seat, t)
                rows += 1
            break
        _pass_turn(t)
        if record:
            taken = np.int64(1 if source >= 0 else 0)
            drawn = np.int64(card)
            _log_step(log, rows, np.int64(ACTION_TURN), seat, t, drawn, taken, np.int64(reshuffled))
            rows += 1
        if rules.slapdown and t.hand_val[seat] == 0 and _wants_slapdown(pol, seat, rules, t):
            caller = seat
            slapped = True
            if record:
                _log_end(log, rows, ACTION_SLAPDOWN, seat, t)
                rows += 1
            break
        if pst[PS_TURN] >= max_turns:
            void = True
            break
        seat = _next_alive(t.alive, seat)
    _finish_round(rules, t, caller, slapped, void, out, row)
    return rows


# The round loop is compiled twice, from the same source: as the kernel
# ``_play_on`` itself, which every round but a search's rollouts plays through,
# and inlined into ``_play_out`` for the rollouts (a kernel calling another
# compiled copy of itself is not cached soundly by numba). numba inlines a
# function by deep-copying its IR, at a cost that grows with the square of
# its size: inlining the whole loop into ``_play_on`` as well once took two
# thirds of the report's compile time.
_play_on = njit(_round_loop)
_inlined_round_loop = njit(inline="always")(_round_loop)


@njit
def _play_out(rules, pol, t, out, force):
    """Play the round on to its end with no seat searching, into row 0 of ``out``.

    The search's rollouts play through this copy of the round loop (see above).
    """
    return _inlined_round_loop(rules, pol, None, t, out, np.int64(0), np.int64(-1), force)


@njit(inline="always")
def _play_round(rules, pol, search, t, deal, out, row, force):
    """Deal round ``deal = (seed, game, round, starter)``, ``starter`` first, and play it out.

    ``t.alive`` and ``t.totals`` say who is in and their totals before the
    round (policies may read them). See :func:`_play_on` for the rest.
    """
    _deal(rules, t, deal[3], (deal[0], deal[1], deal[2]))
    return _play_on(rules, pol, search, t, out, row, np.int64(-1), force)


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
def _play_game(rules, pol, search, t, plan, game_out, scratch):
    """Play a game's rounds ``first .. last`` (or until it has a winner): the one game loop.

    Parameters
    ----------
    plan : GamePlan
        Round ``first`` is dealt with ``starter`` to play first; from round 0
        the totals and seats are reset, else ``t.totals`` and ``t.alive``
        carry on. ``(force_turn, force_call)`` forces a call decision in
        round ``first`` (see :func:`_play_on`; ``force_turn`` -1 forces
        none). With ``keep`` round ``r`` writes row ``base + r`` of every
        output; without, round ``first`` writes row 0 and every later round
        row 1. (Rows are offsets rather than slices so that every caller
        passes the same array types and numba compiles the loop once.)
    game_out : (out, round_totals, round_alive, landed, dec_round)
        ``out`` a :class:`RoundOut` (its decision log gets the decision rows
        and ``dec_round`` the round of each); ``round_totals``,
        ``round_alive`` (after the round) and ``landed`` (1 where a seat
        landed exactly on a milestone), one row per round.
    scratch : the tuple of :func:`new_game_scratch`

    Returns
    -------
    (rounds, winner) : (int, int)
        Rounds played from round 0 (the index of the last one, plus one), and
        the winner, or -1 if the game has none yet (``last`` reached) or
        ``max_rounds`` rounds were played without one.
    """
    seed, game, first, starter, last, force_turn, force_call, keep, base = plan
    out, round_totals, round_alive, landed, dec_round = game_out
    charges = scratch[0]
    totals, alive = t.totals, t.alive
    seats = totals.shape[0]
    if first == 0:
        for s in range(seats):
            totals[s] = 0
            alive[s] = 1
    winner = -1
    rounds = first
    dec_n = out.dec_n
    for r in range(first, min(last + 1, rules.max_rounds)):
        row = base + r if keep else (0 if r == first else 1)
        force = _force_call(force_turn if r == first else -1, force_call)
        first_dec = dec_n[0]
        _play_round(rules, pol, search, t, (seed, game, r, starter), out, row, force)
        for d in range(first_dec, min(dec_n[0], dec_round.shape[0])):
            dec_round[d] = r
        winner = _settle(totals, out.scores[row], alive, rules, landed[row], charges)
        for s in range(seats):
            round_totals[row, s] = totals[s]
            round_alive[row, s] = alive[s]
        rounds = r + 1
        if winner >= 0:
            break
        starter = _next_starter(rules, starter, out.summary[row, S_WINNER], alive)
    return rounds, winner


def whole_game(seed: int, game: int, max_rounds: int):
    """The plan of :func:`_play_game` for a whole game, every round kept (from Python)."""
    return _plan.py_func(seed, game, 0, 0, max_rounds, (-1, 0), 1, 0)


@njit
def _play_rounds(rules, pol, search, seed, first, count, t, out):
    """Play ``count`` independent rounds ``first .. first + count - 1`` of game 0.

    The seats in ``t.alive`` play, with running totals ``t.totals``; round
    ``r`` starts at seat ``r % seats``, or the next seat in after it. Row
    ``i`` of ``out`` is round ``first + i``.
    """
    seats = t.alive.shape[0]
    for i in range(count):
        r = first + i
        starter = r % seats
        if not t.alive[starter]:
            starter = _next_alive(t.alive, starter)
        _play_round(rules, pol, search, t, (seed, np.int64(0), r, starter), out, i, _no_force())
    return count


# the search plays rollouts with the kernels above, which call it back for
# searching seats: imported last, read as a module attribute at compile time
from yaniv_sim.engine import _search  # noqa: E402
