"""Kernels for hands, legal discards, layings and what the next player may take.

Terminology
-----------
hand
    ``hands[seat, :n]``: card codes (``int16``) kept sorted by
    :data:`~yaniv_sim.cards.ORDER` (rank-major, jokers last), so the cards of
    one rank and identical cards of two decks sit side by side.
card set
    Which cards of a hand are discarded, as a bit mask over hand slots.
    Identical cards (two jokers, two copies of ``8S``) are interchangeable, so
    only one mask per distinct multiset of faces is listed: the one using the
    leftmost copies.
laying
    The order a card set is put on the pile, and the kind it is laid as
    (its reading). A run is laid in rising rank order with each joker at the
    rank it stands for; a set in any order the discarder chooses. The laying
    fixes which cards the next player may take.

Where jokers may stand in sets, one natural card with two or more jokers
(``2C JK JK``) is both a set and a run; the discarder chooses the reading,
and with it what the next player may take. The card set is listed once;
its layings are those of both readings (see :func:`_layings`).

Kernels take the 2-d ``hands`` array and a seat index rather than a row view,
so the hot loop creates no array objects.
"""

from __future__ import annotations

import numpy as np

from yaniv_sim._numba import njit
from yaniv_sim.cards import FACE, IS_JOKER, ORDER, RANK, SUIT, VALUE
from yaniv_sim.engine._layout import KIND_RUN, KIND_SET, KIND_SINGLE, LAY_KIND

N_RANKS = 13
C_MASK = 0
C_POINTS = 1
C_JOKERS = 2


def _bit_tables():
    popcount = np.array([bin(m).count("1") for m in range(256)], np.int64)
    low = np.array([(m & -m).bit_length() - 1 if m else -1 for m in range(256)], np.int64)
    high = np.array([m.bit_length() - 1 for m in range(256)], np.int64)
    return popcount, low, high


POPCOUNT, LOW_BIT, HIGH_BIT = _bit_tables()


@njit
def _hand_value(hands, seat, n):
    total = 0
    for i in range(n):
        total += VALUE[hands[seat, i]]
    return total


@njit(inline="always")
def _insert_card(hands, taken, seat, n, card, flag):
    """Insert ``card`` into the sorted hand ``hands[seat, :n]``; return the new length."""
    key = ORDER[np.uint16(card)]  # card codes are never negative: no wraparound tests
    i = n
    while i > 0 and ORDER[np.uint16(hands[seat, i - 1])] > key:
        hands[seat, i] = hands[seat, i - 1]
        taken[seat, i] = taken[seat, i - 1]
        i -= 1
    hands[seat, i] = card
    taken[seat, i] = flag
    return n + 1


@njit(inline="always")
def _remove_mask(hands, taken, seat, n, mask):
    """Remove the slots in ``mask`` from ``hands[seat, :n]``, keeping order; new length."""
    k = 0
    for i in range(n):
        if not (mask >> i) & 1:
            hands[seat, k] = hands[seat, i]
            taken[seat, k] = taken[seat, i]
            k += 1
    return k


@njit(inline="always")
def _mask_points(hands, seat, mask):
    total = 0
    m = mask
    while m:
        total += VALUE[np.uint16(hands[seat, LOW_BIT[m & 0xFF]])]  # unsigned: no wraparound tests
        m &= m - 1
    return total


@njit(inline="always")
def _emit(cand, count, mask, points, jokers):
    at = np.uint64(count)  # never negative: no wraparound test
    cand[C_MASK, at] = mask
    cand[C_POINTS, at] = points
    cand[C_JOKERS, at] = jokers
    return count + 1


@njit(inline="always")
def _card_sets(hands, seat, n, joker_in_sets, cand):
    """List every distinct legal card set of the hand ``hands[seat, :n]``.

    Parameters
    ----------
    hands : int16[seats, MAX_HAND], each hand sorted by ``ORDER``
    seat, n : int
        The hand's row and length (at most 7).
    joker_in_sets : bool
    cand : int64[3, >= 128]
        Row ``C_MASK`` gets each card set's slot mask, ``C_POINTS`` its
        point total, ``C_JOKERS`` its joker count.

    Returns
    -------
    int
        How many card sets were written.
    """
    njk = 0
    dup = 0  # bit i: slot i shows the same face as slot i - 1
    same_rank = 0  # bit i: slot i has the rank of slot i - 1
    by_suit = 0  # 8 bits a suit: the slots of each suit
    prev_face = -1
    prev_rank = -1
    packed = 0  # 8 bits a slot: its rank (low 4 bits) and value (high 4 bits), for the runs
    count = np.int64(0)  # not the literal 0 (see _play's notes on literal arguments)
    # singles, one per distinct face; and what the hand holds
    for i in range(n):
        c = np.uint16(hands[seat, i])  # a card code is never negative: no wraparound tests
        face = FACE[c]
        if face == prev_face:
            dup |= 1 << i
        else:
            count = _emit(cand, count, 1 << i, VALUE[c], IS_JOKER[c])
        rank = RANK[c]
        packed |= (rank | (VALUE[c] << 4)) << (8 * i)
        if rank == prev_rank:
            same_rank |= 1 << i
        prev_face = face
        prev_rank = rank
        if IS_JOKER[c]:
            njk += 1
        else:
            by_suit |= (1 << i) << (8 * SUIT[c])
    nnat = n - njk
    # sets: naturals of one rank (side by side), with jokers where allowed
    jmax = njk if joker_in_sets else 0
    if jmax > 0 or (same_rank & ((1 << nnat) - 1)) != 0:
        i = 0
        while i < nnat:
            e = i + 1
            while e < nnat and (same_rank >> e) & 1:
                e += 1
            if e - i + jmax >= 2:
                same = ((1 << e) - 1) ^ ((1 << i) - 1)
                v = VALUE[hands[seat, i]]
                s = same
                while s:
                    if (s & dup & ~(s << 1)) == 0:
                        k = POPCOUNT[s]
                        for j in range(max(0, 2 - k), jmax + 1):
                            count = _emit(cand, count, s | (((1 << j) - 1) << nnat), k * v, j)
                    s = (s - 1) & same
            i = e
    # runs: naturals of one suit at distinct ranks, gaps and ends filled by jokers
    if n < 3:
        return count
    firsts_all = by_suit & ~(dup * 0x01010101)
    for suit in range(4):
        firsts = (firsts_all >> (8 * suit)) & 0xFF
        if POPCOUNT[firsts] + njk < 3:
            continue
        s = firsts
        while s:
            k = POPCOUNT[s]
            if not (joker_in_sets and k == 1):
                lo = (packed >> (8 * LOW_BIT[s])) & 15
                hi = (packed >> (8 * HIGH_BIT[s])) & 15
                jmin = max(hi - lo + 1 - k, 3 - k)
                if jmin <= njk:
                    points = 0
                    m = s
                    while m:
                        points += (packed >> (8 * LOW_BIT[m] + 4)) & 15
                        m &= m - 1
                    for j in range(jmin, njk + 1):
                        if k + j > N_RANKS:
                            break
                        count = _emit(cand, count, s | (((1 << j) - 1) << nnat), points, j)
            s = (s - 1) & firsts
    return count


@njit(inline="always")
def _mask_kind(hands, seat, mask, joker_in_sets):
    """Kind of a legal card set: single, set or run.

    A card set that is both a set and a run (one natural card with jokers,
    where jokers may stand in sets) gets ``KIND_SET``, its default reading;
    :func:`_layings` lists the layings of both readings.
    """
    if POPCOUNT[mask & 0xFF] == 1:  # masks and cards are never negative: no wraparound tests
        return KIND_SINGLE
    rank = -1
    jokers = 0
    one_rank = True
    m = mask
    while m:
        c = np.uint16(hands[seat, LOW_BIT[m & 0xFF]])
        m &= m - 1
        if IS_JOKER[c]:
            jokers += 1
        elif rank < 0:
            rank = RANK[c]
        elif RANK[c] != rank:
            one_rank = False
    if one_rank and (jokers == 0 or joker_in_sets):
        return KIND_SET
    return KIND_RUN


@njit(inline="always")
def _run_span(hands, seat, mask):
    """(lowest rank, highest rank) of the natural cards of a run mask."""
    lo = N_RANKS
    hi = -1
    m = mask
    while m:
        c = hands[seat, LOW_BIT[m]]
        m &= m - 1
        if not IS_JOKER[c]:
            lo = min(lo, RANK[c])
            hi = max(hi, RANK[c])
    return lo, hi


@njit(inline="always")
def _lay_run(hands, seat, mask, start, out, row):
    """Lay the run ``mask`` from rank ``start`` upward into ``out[row]``; its length.

    The natural cards of a run are one suit, so in the rank-sorted hand they
    come in rising rank order; jokers fill every rank without one.
    """
    length = POPCOUNT[mask]
    naturals = 0
    jokers = 0
    m = mask
    while m:
        i = LOW_BIT[m]
        m &= m - 1
        if IS_JOKER[hands[seat, i]]:
            jokers |= 1 << i
        else:
            naturals |= 1 << i
    for p in range(length):
        if naturals and RANK[hands[seat, LOW_BIT[naturals]]] == start + p:
            out[row, p] = hands[seat, LOW_BIT[naturals]]
            naturals &= naturals - 1
        else:
            out[row, p] = hands[seat, LOW_BIT[jokers]]
            jokers &= jokers - 1
    return length


@njit(inline="always")
def _lay(hands, seat, mask, kind, out, row):
    """The default laying of a card set into ``out[row]``; returns its length.

    Sets are laid in hand order. Runs put spare jokers above the highest
    natural card while they fit below the king, the rest below the lowest.
    """
    if kind != KIND_RUN:
        k = 0
        m = mask
        while m:
            out[row, k] = hands[seat, LOW_BIT[m & 0xFF]]
            m &= m - 1
            k += 1
        return k
    lo, _ = _run_span(hands, seat, mask)
    length = POPCOUNT[mask]
    start = lo if lo + length <= N_RANKS else N_RANKS - length
    return _lay_run(hands, seat, mask, start, out, row)


@njit
def _layings(hands, seat, mask, kind, reading, out, out_len, row):
    """Write every distinct laying of a card set into ``out[row:]``; rows written.

    ``reading = (joker_in_sets, set_draw_ends)``: the two rules that decide
    how a card set may be laid.

    Each row holds the cards as laid and, in column ``LAY_KIND``, the kind
    it is laid as. A run gets one laying per placement of its spare jokers;
    a set of three or more cards under ``set_draw = ends`` gets one laying
    per distinct pair of end cards (by face); any other single or set has a
    single laying. A card set that is both a set and a run gets the run
    layings, then the set layings: under ``set_draw = ends`` a set with the
    same two end cards as a run laying (in either order) offers the same
    cards, so it is listed once, as the run.
    """
    joker_in_sets, set_draw_ends = reading
    length = POPCOUNT[mask]
    written = 0
    # a set and a run: three or more cards with one natural, where jokers may stand in
    # sets; the hand sorts jokers last, so it is when the set's second card is a joker
    both = (
        joker_in_sets
        and kind == KIND_SET
        and length >= 3
        and IS_JOKER[hands[seat, LOW_BIT[mask & (mask - 1)]]]
    )
    if kind == KIND_RUN or both:
        lo, hi = _run_span(hands, seat, mask)
        for start in range(max(0, hi - length + 1), min(lo, N_RANKS - length) + 1):
            r = row + written
            out_len[r] = _lay_run(hands, seat, mask, start, out, r)
            out[r, LAY_KIND] = KIND_RUN
            written += 1
        if kind == KIND_RUN:
            return written
    if kind == KIND_SINGLE or not set_draw_ends or length <= 2:
        r = row + written
        out_len[r] = _lay(hands, seat, mask, kind, out, r)
        out[r, LAY_KIND] = kind
        return written + 1
    ma = mask
    while ma:
        a = LOW_BIT[ma]
        ma &= ma - 1
        mb = ma
        while mb:
            b = LOW_BIT[mb]
            mb &= mb - 1
            fa = FACE[hands[seat, a]]
            fb = FACE[hands[seat, b]]
            seen = False
            for w in range(written):  # the set's layings so far, and any run layings
                ea = FACE[out[row + w, 0]]
                eb = FACE[out[row + w, length - 1]]
                if (ea == fa and eb == fb) or (ea == fb and eb == fa):
                    seen = True
                    break
            if seen:
                continue
            r = row + written
            out[r, 0] = hands[seat, a]
            p = 1
            m = mask & ~(1 << a) & ~(1 << b)
            while m:
                out[r, p] = hands[seat, LOW_BIT[m]]
                m &= m - 1
                p += 1
            out[r, length - 1] = hands[seat, b]
            out_len[r] = length
            out[r, LAY_KIND] = KIND_SET
            written += 1
    return written


@njit
def _takeable_bits(length, kind, set_draw_ends):
    """Positions of a laid discard the next player may take, as a bit mask."""
    if length == 1:
        return 1
    if kind == KIND_SET and not set_draw_ends:
        return (1 << length) - 1
    return 1 | (1 << (length - 1))


@njit
def _laid_readings(cards, length, joker_in_sets):
    """Readings of a laid discard ``cards[:length]``: bit ``1 << kind`` for each kind.

    0 when it is not legal. A run may be laid in rising or falling rank order;
    one natural card with two or more jokers, where jokers may stand in sets,
    reads as a set and, if its ranks fit, as a run.
    """
    if length == 1:
        return 1 << KIND_SINGLE
    naturals = 0
    rank = -1
    one_rank = True
    suit = -1
    one_suit = True
    for p in range(length):
        c = cards[p]
        if IS_JOKER[c]:
            continue
        naturals += 1
        if rank < 0:
            rank = RANK[c]
            suit = SUIT[c]
        else:
            if RANK[c] != rank:
                one_rank = False
            if SUIT[c] != suit:
                one_suit = False
    if naturals == 0:
        return 0
    readings = 0
    if one_rank and (naturals == length or joker_in_sets):
        readings |= 1 << KIND_SET
    if length < 3 or not one_suit or (one_rank and naturals > 1):
        return readings
    for direction in (1, -1):
        base = -1000
        ok = True
        for p in range(length):
            c = cards[p]
            if IS_JOKER[c]:
                continue
            b = RANK[c] - direction * p
            if base == -1000:
                base = b
            elif b != base:
                ok = False
                break
        if ok:
            last = base + direction * (length - 1)
            if min(base, last) >= 0 and max(base, last) < N_RANKS:
                return readings | (1 << KIND_RUN)
    return readings
