"""Worlds: complete tables one seat cannot tell apart from the real one.

A search player at a decision does not know the opponents' hidden cards or
the order of the stock. :func:`_sample_world` deals one complete table (a
"world") consistent with everything the searching seat can know, with the
hidden cards dealt uniformly at random; playing candidate actions on in many
such worlds is perfect-information Monte Carlo.

What a seat knows, and a world keeps as it is: its own hand (with its taken
marks), the cards under the pile (``DEAD``), the previous discard as laid and
its kind, every seat's card count and whether it is in, each opponent's
cards marked taken (taken from the pile in view of all, and still held), the
size of the stock, the pile state (``pst``) and the totals. Hidden, and dealt
afresh: the opponents' other cards and the stock's cards and order.

The hidden cards are gathered by card code, not from where they lie, so a
world depends only on their multiset (which the seat can work out: the deck
less what it sees) and the sampler's stream, never on the hidden deal.
"""

from __future__ import annotations

import numpy as np

from yaniv_sim._numba import njit
from yaniv_sim.cards import N_CODES, ORDER, VALUE
from yaniv_sim.engine._layout import (
    CUR,
    DEAD,
    MAX_CARD_SETS,
    PREV,
    PS_DEAD_N,
    PS_PILE_DRAWS,
    PS_PREV_N,
    PS_REBUILT_N,
    PS_STARTER,
    PS_STOCK_N,
    PS_TURN,
    REBUILT,
    STOCK,
)
from yaniv_sim.engine._rng import _mix64, _shuffle, _uniform

# the presence map of hidden cards lives in a row of the world's ``cand`` scratch
assert N_CODES <= MAX_CARD_SETS

_WORLD_SALT = np.uint64(0x5DEECE66DA3B1F27)  # keeps sampler streams apart from round streams


@njit
def _seed_sampler(rng, seed):
    """Seed the sampler's one stream ``rng`` (uint64[1]) from ``seed`` (int, 0 to 2**63 - 1).

    The state differs from every round stream of the same seed, so a world
    never repeats the shuffle that dealt the round.
    """
    rng[0] = _mix64(_mix64(np.uint64(seed) ^ _WORLD_SALT) + _WORLD_SALT)


@njit(inline="always")
def _insert_canonical(hands, taken, seat, n, card, flag):
    """Insert ``card`` into ``hands[seat, :n]`` sorted by (card order, code); new length.

    Card order alone leaves the two decks' copies of a card (and jokers) tied;
    breaking the tie by code makes a world's hand independent of the order
    its cards were dealt in. A hand so sorted is sorted by card order, as the
    engine keeps hands.
    """
    key = ORDER[card] * N_CODES + card
    i = n
    while i > 0 and ORDER[hands[seat, i - 1]] * N_CODES + hands[seat, i - 1] > key:
        hands[seat, i] = hands[seat, i - 1]
        taken[seat, i] = taken[seat, i - 1]
        i -= 1
    hands[seat, i] = card
    taken[seat, i] = flag
    return n + 1


@njit(inline="always")
def _copy_row(src, dst, row, n):
    """``dst[row, :n] = src[row, :n]`` and zeros after (int16[5, DECK_CAPACITY] piles)."""
    for k in range(n):
        dst[row, k] = src[row, k]
    for k in range(n, dst.shape[1]):
        dst[row, k] = 0


@njit(inline="always")
def _turns_played(t, o):
    """Turns seat ``o`` has played this round (public: the turn, the starter, who is in)."""
    seats = t.alive.shape[0]
    n_alive = 0
    order = -1
    s = t.pst[PS_STARTER]
    for _ in range(seats):
        if t.alive[s]:
            if s == o:
                order = n_alive
            n_alive += 1
        s = s + 1 if s + 1 < seats else 0
    turn = t.pst[PS_TURN]
    if order < 0 or turn <= order:
        return 0
    return (turn - order + n_alive - 1) // n_alive


@njit(inline="always")
def _pick_low(hidden, top, lam, rng):
    """Move a card of ``hidden[:top]``, drawn with weight ``exp(-lam * value)``, to ``top - 1``."""
    total = 0.0
    for k in range(top):
        total += np.exp(-lam * VALUE[hidden[k]])
    u = _uniform(rng, 0) * total
    j = top - 1
    for k in range(top):
        u -= np.exp(-lam * VALUE[hidden[k]])
        if u < 0.0:
            j = k
            break
    card = hidden[j]
    hidden[j] = hidden[top - 1]
    hidden[top - 1] = card


@njit(inline="always")
def _drew_stock(t, o):
    """Whether seat ``o`` has drawn this round and its latest draw was from the stock (public)."""
    return _turns_played(t, o) >= 1 and (t.pst[PS_PILE_DRAWS] >> o) & 1 == 0


@njit(inline="always")
def _unknown_slots(t, o):
    """``(unknown, fresh)``: seat ``o``'s cards not taken from the pile, and 1 if one of them
    is its latest draw, from the stock (else 0)."""
    unknown = 0
    for i in range(t.hand_n[o]):
        if t.taken[o, i] == 0:
            unknown += 1
    return unknown, 1 if unknown > 0 and _drew_stock(t, o) else 0


@njit(inline="always")
def _take_any(pool, top, rng):
    """Move a card of ``pool[:top]``, drawn uniformly, to ``top - 1``."""
    j = min(np.int64(_uniform(rng, 0) * top), top - 1)
    card = pool[j]
    pool[j] = pool[top - 1]
    pool[top - 1] = card


@njit
def _deal_recalled(t, seat, world, rng, bias, hidden, h):
    """Deal the opponents' unknown slots of ``world`` as a seat that remembers every card shown.

    Two things such a seat knows that uniform dealing forgets. After a
    reshuffle the stock was rebuilt only from cards everyone saw (the
    ``REBUILT`` row), so every hidden card not among them is in an
    opponent's hand. And an opponent whose latest draw was from the stock
    holds one card that came from there after its last discard; it is dealt
    last, uniformly from what is left (the stock is short of the low cards
    hands keep), while the other unknown slots get the cards that must be in
    hands first (with ``bias``, as in :func:`_sample_world`) and the others
    uniformly. ``hidden[:h]`` holds the hidden cards, shuffled; on return it
    holds the stock, in random order, and the opponents' hands and values
    are written. Scratch: ``world.cand[1]`` and ``world.cand[2]`` (left
    zeroed).
    """
    seats = t.alive.shape[0]
    pst = t.pst
    # cards that must be in hands to ``never[:n_never]``; the rebuilt ones stay in ``hidden``
    shown = world.cand[2]
    for c in range(N_CODES):
        shown[c] = 0
    for k in range(pst[PS_REBUILT_N]):  # 0 before the first reshuffle
        shown[t.piles[REBUILT, k]] = 1
    never = world.cand[1]
    n_never = 0
    n_shown = 0
    for k in range(h):
        card = hidden[k]
        if shown[card]:
            hidden[n_shown] = card
            n_shown += 1
        else:
            never[n_never] = card
            n_never += 1
    for c in range(N_CODES):
        shown[c] = 0
    # slots still to fill: the older unknown cards of every opponent, then the newest ones
    older = 0
    newest = 0
    for o in range(seats):
        if o != seat and t.alive[o]:
            unknown, fresh = _unknown_slots(t, o)
            older += unknown - fresh
            newest += fresh
    for phase in range(2):
        for o in range(seats):
            if o == seat or not t.alive[o]:
                continue
            n = t.hand_n[o]
            unknown, fresh = _unknown_slots(t, o)
            played = _turns_played(t, o)
            lam = bias * (1.0 - np.exp(-played / 3.0)) if bias > 0.0 else 0.0
            if phase == 0:
                value = 0
                filled = 0
                for i in range(n):
                    if t.taken[o, i] != 0:
                        filled = _insert_canonical(world.hands, world.taken, o, filled,
                                                   t.hands[o, i], 1)  # fmt: skip
                        value += VALUE[t.hands[o, i]]
                count = unknown - fresh
            else:
                filled = n - fresh
                value = world.hand_val[o]
                count = fresh
            for _ in range(count):
                slots = older if phase == 0 else newest
                # a card not in the rebuilt stock must land in a hand: chance n_never / slots
                if n_never > 0 and (n_shown == 0 or _uniform(rng, 0) * slots < n_never):
                    if phase == 0 and bias > 0.0:
                        _pick_low(never, n_never, lam, rng)
                    else:
                        _take_any(never, n_never, rng)
                    n_never -= 1
                    card = never[n_never]
                else:
                    _take_any(hidden, n_shown, rng)
                    n_shown -= 1
                    card = hidden[n_shown]
                filled = _insert_canonical(world.hands, world.taken, o, filled, card, 0)
                value += VALUE[card]
                if phase == 0:
                    older -= 1
                else:
                    newest -= 1
            world.hand_n[o] = n
            world.hand_val[o] = value
    # the stock: the rebuilt cards left and any others left (before a reshuffle, all)
    for k in range(n_never):
        hidden[n_shown + k] = never[k]
    stock_n = n_shown + n_never
    if n_shown > 0 and n_never > 0:
        _shuffle(hidden, stock_n, rng, 0)
    for k in range(stock_n, hidden.shape[0]):
        hidden[k] = 0
    for c in range(N_CODES):
        never[c] = 0


@njit
def _sample_world(t, seat, world, rng, bias, recall=False):
    """Deal into ``world`` a table that ``seat`` cannot tell from ``t``.

    Parameters
    ----------
    t : Table
        The real table at a turn's start (``pst[PS_CUR_N]`` 0), ``seats``
        seats: ``hands`` int16[seats, MAX_HAND], ``taken`` int8[seats,
        MAX_HAND], ``hand_n`` / ``hand_val`` int64[seats], ``piles``
        int16[5, DECK_CAPACITY], ``pst`` int64[N_PILE_STATE], ``rng``
        uint64[1 + seats], ``alive`` int8[seats], ``totals`` int64[seats].
        Read only.
    seat : int
        The seat whose knowledge the world keeps.
    world : Table
        Preallocated, the same number of seats; overwritten. Every field but
        the scratch ``cand`` / ``lay`` / ``lay_len`` is written in full
        (unused hand slots and pile tails set to 0), so nothing of what it
        held before shows. ``cand[0, :N_CODES]`` serves as the presence map
        of the hidden cards and is left zeroed; nothing is allocated.
    rng : uint64[1]
        The sampler's own stream (see :func:`_seed_sampler`); advanced.
    bias : float
        0 deals the hidden cards uniformly. Above 0, each of an opponent's
        unknown cards is drawn from the hidden cards left with weight
        ``exp(-lam * value)``, ``lam = bias * (1 - exp(-k / 3))`` for an
        opponent that has played ``k`` turns this round: players keep low
        cards and shed high ones, so the longer an opponent has played, the
        lower its unknown cards tend to be (see docs/policies.md, "The search
        player", for how the default was fitted).
    recall : bool
        Deal as a seat that remembers every card shown (the search's
        ``recall``, see :func:`_deal_recalled`): after a reshuffle the
        hidden cards not in the rebuilt stock go to the opponents, and an
        opponent whose latest draw was from the stock gets one card dealt
        last, as that draw. False deals every hidden card alike, as above.

    The world gets ``t``'s pile state (without ``recall``, its ``REBUILT``
    row emptied), totals, seats in, dead cards,
    previous discard, and ``t.rng`` copied as they are (a caller that plays
    on in the world reseeds the streams: ``t.rng`` decides the real round's
    reshuffles and the opponents' random choices). ``seat``'s hand is copied
    as it is; each opponent keeps its taken cards and gets its other slots
    from the hidden cards (opponents' untaken cards and the stock) sorted
    by code and shuffled with ``rng``; the rest, in that shuffled order, is
    the stock. Opponents' hands are re-sorted by (card order, code), taken
    marks kept with their cards, and their values recomputed.
    """
    seats = t.alive.shape[0]
    pst = t.pst
    for k in range(pst.shape[0]):
        world.pst[k] = pst[k]
    for k in range(t.rng.shape[0]):
        world.rng[k] = t.rng[k]
    for s in range(seats):
        world.alive[s] = t.alive[s]
        world.totals[s] = t.totals[s]
    _copy_row(t.piles, world.piles, DEAD, pst[PS_DEAD_N])
    _copy_row(t.piles, world.piles, PREV, pst[PS_PREV_N])
    _copy_row(t.piles, world.piles, CUR, 0)
    _copy_row(t.piles, world.piles, REBUILT, pst[PS_REBUILT_N])

    # the hidden cards, in code order, at the start of the world's stock row
    mark = world.cand[0]
    for c in range(N_CODES):
        mark[c] = 0
    for o in range(seats):
        if o != seat:
            for i in range(t.hand_n[o]):
                if t.taken[o, i] == 0:
                    mark[t.hands[o, i]] = 1
    for k in range(pst[PS_STOCK_N]):
        mark[t.piles[STOCK, k]] = 1
    hidden = world.piles[STOCK]
    h = 0
    for c in range(N_CODES):
        if mark[c]:
            hidden[h] = c
            h += 1
            mark[c] = 0
    for k in range(h, hidden.shape[0]):
        hidden[k] = 0
    _shuffle(hidden, h, rng, 0)

    hand_width = t.hands.shape[1]
    if recall:
        _deal_recalled(t, seat, world, rng, bias, hidden, h)
        for o in range(seats):
            n = t.hand_n[o]
            if o == seat or not t.alive[o]:
                for i in range(n):
                    world.hands[o, i] = t.hands[o, i]
                    world.taken[o, i] = t.taken[o, i]
                world.hand_val[o] = t.hand_val[o]
            for i in range(n, hand_width):
                world.hands[o, i] = 0
                world.taken[o, i] = 0
            world.hand_n[o] = n
        return
    # a world dealt without that memory may put any hidden card in the stock: it keeps no
    # rebuilt row, which would not hold its stock
    world.pst[PS_REBUILT_N] = 0

    # opponents' untaken slots from the top of the shuffled cards; the rest stays the stock
    top = h
    for o in range(seats):
        n = t.hand_n[o]
        if o == seat:
            for i in range(n):
                world.hands[o, i] = t.hands[o, i]
                world.taken[o, i] = t.taken[o, i]
            value = t.hand_val[o]
        else:
            value = 0
            lam = bias * (1.0 - np.exp(-_turns_played(t, o) / 3.0)) if bias > 0.0 else 0.0
            for i in range(n):
                if t.taken[o, i] != 0:
                    card = t.hands[o, i]
                    flag = 1
                else:
                    if bias > 0.0:
                        _pick_low(hidden, top, lam, rng)
                    top -= 1
                    card = hidden[top]
                    flag = 0
                _insert_canonical(world.hands, world.taken, o, i, card, flag)
                value += VALUE[card]
        for i in range(n, hand_width):
            world.hands[o, i] = 0
            world.taken[o, i] = 0
        world.hand_n[o] = n
        world.hand_val[o] = value
    for k in range(top, h):  # dealt to the opponents: no longer in the stock
        hidden[k] = 0
