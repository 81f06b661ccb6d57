"""The exact count behind :func:`yaniv_sim.odds.p_assaf`: P(no opponent is low).

Private: :func:`none_low` is the whole interface. See the comment below for
how the count works, and docs/performance.md for what it costs. Its float
count runs where :mod:`yaniv_sim._assaf_halves` (the float count of most
tables) gives way to it: opponents alike in groups, which this count gives
one state.
"""

from __future__ import annotations

import itertools
import math
import mmap
import os
from concurrent.futures import ThreadPoolExecutor
from fractions import Fraction
from functools import lru_cache
from math import comb, factorial

import numpy as np

from yaniv_sim._numba import njit

__all__ = ["MAX_NEED", "SLOTS", "CountTooLarge", "none_low"]


class CountTooLarge(MemoryError):
    """A count needs a block of memory larger than the system has available.

    Raised before the block is taken, so that a count far beyond any
    table (a library call, never the advisor's) stops with a message
    instead of driving the machine out of memory.
    """


def _available_bytes() -> int | None:
    """The memory the system can still give (``MemAvailable``), or None where it does not say."""
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


_CHECKED_FROM = 1 << 20  # bytes of a block from which the memory left is asked first


def _check_room(nbytes: int) -> None:
    """Raise :class:`CountTooLarge` if a block of ``nbytes`` would not fit in the memory left.

    Blocks under ``_CHECKED_FROM`` bytes are taken without asking.
    """
    if nbytes < _CHECKED_FROM:
        return
    free = _available_bytes()
    if free is not None and nbytes > free:
        raise CountTooLarge(
            f"this count needs a block of {nbytes / 2**30:.1f} GB but only "
            f"{free / 2**30:.1f} GB of memory is available; count fewer opponents, fewer "
            "unknown cards or a lower caller value"
        )


# -- the fast exact count ----------------------------------------------------
#
# P(no opponent is low) by inclusion and exclusion over the opponents, all
# terms in one count: a term is a set S of opponents that must all be low,
# with sign (-1)^|S|; the opponents not in S take their cards last, from
# whatever is left. The unseen cards are dealt one value class at a time,
# from the jokers up, card by card: each card goes to no one or to one of
# the opponents of S still in the count (a "member"). A member is described
# by the cards it still needs and the points it may still take, (n, r);
# only that pair matters for the rest of the deal, so a state of the count
# is the multiset of these pairs (members that are alike, or become alike,
# share a state). A member leaves the count as soon as it is decided: done
# (no card left to take), or sure to stay low whatever it takes ("free":
# its cards are then chosen from the cards still undealt that the members
# left in the count do not take, a binomial factor), or unable to stay low
# (the state is dropped). A state is dropped too when its members need
# more cards of the value being dealt, or of the values up to any value,
# than there are.
#
# Deals are counted as sets of cards per opponent. The counts are huge
# integers, counted modulo LANES primes below 2**31 at once (a state is one
# 64-byte row: its weights and its key), a second time modulo other primes
# when that is not enough, and put back together by the Chinese remainder
# theorem.
#
# Speed. Nearly all the time goes to adding a state's weights into the
# next step's table, a place in memory the processor must fetch: the
# additions are gathered in batches whose places are read first, so that
# the fetches overlap. A table is read once, and emptied as it is read.

SLOTS = 7  # opponents with unknown cards the kernels take (a table has at most 7)
MAX_NEED = 7  # unknown cards per opponent the kernels take (a hand holds at most 7)
_BITS = 9  # bits of a pair's code in a state's key: SLOTS * _BITS <= 63
_NONE = (1 << _BITS) - 1  # the code of an empty place (sorts last)
_EMPTY = 0  # what an unused place of a table holds (a state's key is held as ~key)
_FULL = sum(_NONE << (_BITS * p) for p in range(SLOTS))  # the key of the state of no member
LANES = 7  # primes counted at once (a state's weights and key make one 64-byte row)
_LOAD = 0.6  # most states per place of a table before it is made larger
_MARGIN = 1.2  # a step's table is sized for this many times the states it is expected to get


def _pair_codes():
    code = np.full((MAX_NEED + 1, 10 * MAX_NEED + 1), _NONE, np.int64)
    need = np.zeros(_NONE + 1, np.int64)
    room = np.zeros(_NONE + 1, np.int64)
    k = 0
    for n in range(1, MAX_NEED + 1):
        for r in range(10 * n + 1):
            code[n, r] = k
            need[k], room[k] = n, r
            k += 1
    assert k < _NONE
    return code, need, room


PAIR_CODE, CODE_NEED, CODE_ROOM = _pair_codes()
_IS_PAIR = np.arange(_NONE + 1) < int(PAIR_CODE[MAX_NEED, 10 * MAX_NEED]) + 1


def _primes(count: int, below: int = 2**31) -> np.ndarray:
    out = []
    n = below - 1
    while len(out) < count:
        if n % 2 and all(n % d for d in range(3, int(n**0.5) + 1, 2)):
            out.append(n)
        n -= 2
    return np.array(out, np.int64)


PRIMES = _primes(2 * LANES)  # one count takes LANES of them; a second count the others
_PRIME_PRODUCTS = list(itertools.accumulate((int(p) for p in PRIMES), lambda a, b: a * b))
_POOL = 128  # binomials C(pool, k) modulo the primes, for pool < _POOL (a deck has 112 cards)


def _moduli(primes: np.ndarray):
    """``(primes, their inverses as floats, C(pool, k) modulo each)``, as the kernels take them."""
    binom = [
        [[comb(a, k) % int(p) for k in range(MAX_NEED + 1)] for a in range(_POOL)] for p in primes
    ]
    return primes.copy(), 1.0 / primes.astype(np.float64), np.array(binom, np.int64)


_MODULI = [_moduli(PRIMES[:LANES]), _moduli(PRIMES[LANES:])]


@njit(inline="always")
def _place(key, size):
    """The first place to try for ``key`` in a table of ``size`` places (below 2**32).

    Fibonacci hashing (the top bits of the product depend on every bit of
    the key), scaled to the table by a multiplication rather than a mask,
    so that a table may have any size.
    """
    h = (np.uint64(key) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(32)
    return np.int64((h * np.uint64(size)) >> np.uint64(32))


@njit(inline="always")
def _mod(x, p, inverse):
    """``x % p`` for ``0 <= x < 2**53``, ``inverse`` being ``1 / p`` (no division)."""
    r = x - np.int64(np.float64(x) * inverse) * p
    if r < 0:
        r += p
    elif r >= p:
        r -= p
    return r


@njit(inline="always")
def _mulmod(a, b, p, inverse):
    """``a * b % p`` for ``0 <= a, b < p < 2**31`` (no division).

    The quotient from floating point is off by at most one: the product is
    below 2**62 and a double carries 53 bits.
    """
    r = a * b - np.int64(np.float64(a) * np.float64(b) * inverse) * p
    if r < 0:
        r += p
    elif r >= p:
        r -= p
    return r


@njit(inline="always")
def _reduce_row(rows, i, mod):
    """Reduce the weights of row ``i`` of ``rows`` modulo the primes of ``mod``, in place."""
    primes, inverse = mod[0], mod[1]
    for lane in range(LANES):
        rows[i, lane] = _mod(rows[i, lane], primes[lane], inverse[lane])


@njit(inline="always")
def _put(out, key, at, src, i, factor, n_out):
    """Add ``factor`` times the weights of row ``i`` of ``src`` to state ``key`` of ``out``.

    ``out`` is a table: one row per place, the weights then ``~key`` (lane
    ``LANES``; ``_EMPTY`` for an unused place, so that fresh zeroed memory
    is an empty table); the search starts at place ``at``. Returns the
    number of states in ``out``. ``factor`` is small and the weights of
    ``src`` far below 2**63 (see :func:`_deal`), and so are the sums.
    """
    size = out.shape[0]
    tag = ~key
    while True:
        k = out[at, LANES]
        if k == tag:
            for lane in range(LANES):
                out[at, lane] += src[i, lane] * factor
            return n_out
        if k == _EMPTY:
            out[at, LANES] = tag
            for lane in range(LANES):
                out[at, lane] = src[i, lane] * factor
            return n_out + 1
        at += 1
        if at == size:
            at = 0


@njit(inline="always")
def _without(key, p):
    """``key`` with the member at place ``p`` removed (the places above shift down)."""
    low = key & ((np.int64(1) << (_BITS * p)) - 1)
    high = (key >> (_BITS * (p + 1))) << (_BITS * p)
    return low | high | (np.int64(_NONE) << (_BITS * (SLOTS - 1)))


@njit(inline="always")
def _moved(key, codes, p, c2):
    """``key`` (whose codes are ``codes``) with code ``codes[p]`` become ``c2 < codes[p]``.

    The codes of a key are sorted: ``c2`` goes to its sorted place ``q <= p``.
    """
    q = 0
    while codes[q] < c2:
        q += 1
    low = key & ((np.int64(1) << (_BITS * q)) - 1)
    mid = (key & ((np.int64(1) << (_BITS * p)) - 1)) >> (_BITS * q)
    high = (key >> (_BITS * (p + 1))) << (_BITS * (p + 1))
    return low | (mid << (_BITS * (q + 1))) | (np.int64(c2) << (_BITS * q)) | high


@njit(inline="always")
def _member_moves(key, codes, step, short, left, scratch):
    """The states a card makes of state ``key`` by going to one of its members: their number.

    ``codes`` holds the key's codes and ``short`` their cards of this value
    still needed (see :func:`_deal`). Move ``t``: ``scratch[2, t]`` the new
    key, ``scratch[3, t]`` how many alike members could take the card (the
    factor), ``scratch[4, t]`` the cards the member still needs when it
    leaves as free (0 when it stays or is done).
    """
    succ, free, short_of = step
    n = 0
    p = 0
    while p < SLOTS:
        c = codes[p]
        if c == _NONE:
            break
        alike = 1
        while p + alike < SLOTS and codes[p + alike] == c:
            alike += 1
        c2 = succ[c]
        if c2 >= 0 and short - short_of[c] + short_of[c2] <= left:
            if c2 == _NONE:
                scratch[2, n] = _without(key, p)
                scratch[4, n] = free[c]
            else:
                scratch[2, n] = _moved(key, codes, p, c2)
                scratch[4, n] = 0
            scratch[3, n] = alike
            n += 1
        p += alike
    return n


_BATCH = 128  # additions gathered before they are made (their places are read first)
_MIN_PLACES = 512  # the smallest table: 0.6 * 512 + 128 states fit (see _Tables.take)


@njit(inline="always")
def _flush(inp, out, batch, n_batch, n_out):
    """Make the ``n_batch`` additions gathered in ``batch``; returns the number of states.

    ``batch`` is ``(keys, places, rows, factors, weights)``: an addition of
    factor ``f >= 0`` adds ``f`` times row ``rows[t]`` of ``inp``; one of
    factor -1 adds ``weights[t]`` (already multiplied and reduced). The
    places are all read first, so that the processor fetches them from
    memory together rather than one after the other.
    """
    b_keys, b_at, b_row, b_fac, b_w = batch
    touch = np.int64(0)
    for t in range(n_batch):
        touch += out[b_at[t], LANES]
    b_w[0, LANES] = touch  # kept, so that the reads above are made
    for t in range(n_batch):
        if b_fac[t] >= 0:
            n_out = _put(out, b_keys[t], b_at[t], inp, b_row[t], b_fac[t], n_out)
        else:
            n_out = _put(out, b_keys[t], b_at[t], b_w, t, 1, n_out)
    return n_out


@njit
def _deal(inp, out, step, prm, scratch, batch, mod):
    """Deal one card of a value to every state of table ``inp``, into table ``out``.

    The card goes to no one, or to one member: ``step`` holds, per member
    code, the code after it takes the card (``succ``: ``_NONE`` if it then
    leaves the count, -1 if it cannot take it), the cards a member leaving
    as free still needs (``free``), and the cards of this value a member
    must still get to stay low (``short``). ``prm``: cards left undealt
    after this one, cards of this value left after it, whether to reduce
    the weights read, the first row of ``inp`` to read, the states already
    in ``out``, and the most states ``out`` may take. A state is dropped
    when its members need more cards than are left, or more cards of this
    value than are left. Each state is read once and taken out of ``inp``.
    Returns the number of states in ``out``, the number of additions made,
    and the row to go on from when ``out`` holds too many states (-1 when
    done; the caller moves the states to a larger table, :func:`_grow`).
    ``scratch`` holds the codes of a state and its moves (:func:`_member_moves`); ``batch`` is for
    :func:`_flush`; ``mod`` is ``(primes, their inverses as floats,
    binomials modulo them)``.

    Overflow: a place gets at most 1 + 7 + 11 additions of up to 7 times a
    weight read (from the state itself, from one whose member took the
    card, from one whose member left done) and fewer than 2**9 of up to 7
    times a reduced product (from one whose member left free), so a step
    multiplies the largest weight by less than 2**7 and adds less than
    2**43. The weights are reduced when read every other step (the first
    of a value included): they are read below 2**41 and sums stay below
    2**49 (and below 2**53, as :func:`_mod` needs).
    """
    short_of = step[2]
    primes, inverse, binom = mod
    undealt, left, reduce, first, n_out, limit = prm[0], prm[1], prm[2], prm[3], prm[4], prm[5]
    codes = scratch[0]
    b_keys, b_at, b_row, b_fac, b_w = batch
    size = out.shape[0]
    n_batch = 0
    adds = 0
    for i in range(first, inp.shape[0]):
        tag = inp[i, LANES]
        if tag == _EMPTY:
            continue
        key = ~tag
        inp[i, LANES] = _EMPTY  # read once: the table is empty again afterwards
        if reduce:
            _reduce_row(inp, i, mod)
        need = 0
        short = 0
        for p in range(SLOTS):
            c = (key >> (_BITS * p)) & _NONE
            codes[p] = c
            need += CODE_NEED[c]
            short += short_of[c]
        if need <= undealt and short <= left:
            b_keys[n_batch] = key
            b_at[n_batch] = _place(key, size)
            b_row[n_batch] = i
            b_fac[n_batch] = 1
            n_batch += 1
        if need <= undealt + 1:
            for t in range(_member_moves(key, codes, step, short, left, scratch)):
                j2 = scratch[4, t]
                b_row[n_batch] = i
                b_fac[n_batch] = scratch[3, t]
                if j2 > 0:
                    # free: its cards come last, from the cards left
                    pool = undealt - (need - 1 - j2)
                    for lane in range(LANES):
                        p_, inv = primes[lane], inverse[lane]
                        x = _mod(inp[i, lane], p_, inv)
                        b_w[n_batch, lane] = scratch[3, t] * _mulmod(
                            x, binom[lane, pool, j2], p_, inv
                        )
                    b_fac[n_batch] = -1
                b_keys[n_batch] = scratch[2, t]
                b_at[n_batch] = _place(scratch[2, t], size)
                n_batch += 1
        if n_batch > _BATCH - SLOTS - 2:
            n_out = _flush(inp, out, batch, n_batch, n_out)
            adds += n_batch
            n_batch = 0
            if n_out > limit:
                return n_out, adds, i + 1
    n_out = _flush(inp, out, batch, n_batch, n_out)
    adds += n_batch
    return n_out, adds, -1


@njit(inline="always")
def _settled_need(key, codes, check, undealt):
    """The cards the members of ``key`` still need, or -1 if the state is dropped.

    Fills ``codes``. Dropped: a member that cannot be low any more, more
    cards needed than are undealt, or more cards of the values up to some
    value than there are (``check`` as :func:`_settle` takes it).
    """
    ok, _, need_upto, avail = check
    need = 0
    for p in range(SLOTS):
        c = (key >> (_BITS * p)) & _NONE
        codes[p] = c
        need += CODE_NEED[c]
        if not ok[c]:
            return -1
    if need > undealt:
        return -1
    for u in range(avail.shape[0]):
        cards = 0
        for p in range(SLOTS):
            cards += need_upto[codes[p], u]
        if cards > avail[u]:
            return -1
    return need


@njit(inline="always")
def _key_of(row, m):
    """The key of the members ``row[:m]`` (sorted codes)."""
    key = np.int64(0)
    for p in range(SLOTS):
        key |= np.int64(row[p] if p < m else _NONE) << (_BITS * p)
    return key


@njit
def _settle(inp, out, check, prm, scratch, mod):
    """Make the states of ``inp`` ready for the next value, into ``out``.

    ``check`` holds, per member code, whether the member can still be low
    with the cards of the values left (``ok``), whether it is sure to be
    (``free``: it leaves the count with a binomial factor), and, per value
    left (``need_upto`` columns), how many cards of that value or less it
    must get at least; a state whose members need more cards up to some
    value than there are (``avail``) is dropped. ``prm`` and the result as
    for :func:`_deal` (``prm[1:3]`` unused: the weights are always reduced;
    no additions counted); ``mod`` too.
    """
    free = check[1]
    primes, inverse, binom = mod
    undealt, first, n_out, limit = prm[0], prm[3], prm[4], prm[5]
    codes = scratch[0]
    row = scratch[1]
    size = out.shape[0]
    for i in range(first, inp.shape[0]):
        tag = inp[i, LANES]
        if tag == _EMPTY:
            continue
        key = ~tag
        inp[i, LANES] = _EMPTY
        need = _settled_need(key, codes, check, undealt)
        if need < 0:
            continue
        _reduce_row(inp, i, mod)
        m = 0
        for p in range(SLOTS):
            c = codes[p]
            if c == _NONE:
                break
            if free[c]:
                j = CODE_NEED[c]
                pool = undealt - (need - j)
                for lane in range(LANES):
                    x = binom[lane, pool, j]
                    inp[i, lane] = _mulmod(inp[i, lane], x, primes[lane], inverse[lane])
                need -= j
            else:
                row[m] = c
                m += 1
        key2 = _key_of(row, m)
        n_out = _put(out, key2, _place(key2, size), inp, i, 1, n_out)
        if n_out > limit:
            return n_out, 0, i + 1
    return n_out, 0, -1


@njit
def _grow(small, big):
    """Move every state of table ``small`` into the larger empty table ``big``; their number."""
    n = 0
    size = big.shape[0]
    for i in range(small.shape[0]):
        tag = small[i, LANES]
        if tag != _EMPTY:
            small[i, LANES] = _EMPTY
            n = _put(big, ~tag, _place(~tag, size), small, i, 1, n)
    return n


# -- the same count in floating point, by partitioned aggregation --------------
#
# The probability, not the integer count: a state's weight is one float64,
# the probability it stands for times its sign (a state is a 16-byte row
# of int64: ``rows[i, 0]`` its key, ``rows.view(np.float64)[i, 1]`` its
# weight). The factors are the same small integers and binomials, and
# no weight is reduced. Every term is a probability times a sign, and their
# absolute values add up to at most 2**7 (the expected 2 ** (number of low
# opponents)), so the rounding of the sum stays near 1e-14 at worst (tested
# against the exact fraction).
#
# A step does not add into one large table, where every addition waits for
# a fetch from memory. It writes its additions one after the other
# (:func:`_deal_f`, :func:`_settle_f`, counting them per bucket, the top
# bits of the key's hash), puts them in bucket order (:func:`_scatter`),
# and adds up each run of buckets in a small table that stays in the
# processor's cache (:func:`_aggregate`), writing the states out in a row.
# The work is cut in ``_PARTS`` parts (by the states read, then by buckets),
# run on as many threads as there are processors (one per part at most)
# when a step is large. The parts and the order of the additions are the
# same on one thread or many, on any machine, so the float is too.

_FINE_BITS = 9  # a key's bucket: the top bits of its hash
_FINE = 1 << _FINE_BITS
_GROUP = 1 << 12  # the most additions (but one bucket's) added up in one small table
_GOLD = np.uint64(0x9E3779B97F4A7C15)
_PARTS = 8  # a step's parts, the same on any machine (so is the float); one thread each at most
_BINOM_F = np.array([[float(comb(a, k)) for k in range(MAX_NEED + 1)] for a in range(_POOL)])
_THREADED = 1 << 15  # states read in a step from which its parts run on threads


@njit(inline="always")
def _bucket(key):
    """The bucket of ``key``: the top ``_FINE_BITS`` bits of its Fibonacci hash."""
    return np.int64((np.uint64(key) * _GOLD) >> np.uint64(64 - _FINE_BITS))


@njit(inline="always")
def _add_f(out, m, key, w, hist):
    """Write addition ``m`` (``w`` to state ``key``) into rows ``out`` and count its bucket."""
    out[m, 0] = key
    out.view(np.float64)[m, 1] = w
    hist[_bucket(key)] += 1
    return m + 1


@njit
def _deal_f(inp, part, step, prm, scratch, out, hist):
    """Deal one card of a value to the states ``inp`` rows ``part[0]:part[1]``: the additions.

    As :func:`_deal`, but the additions are written in a row into the rows
    ``out`` (room for ``1 + SLOTS`` per state) and
    counted per bucket in ``hist``; their number is returned. ``prm``:
    cards left undealt after this one, cards of this value left after it.
    ``scratch`` as for :func:`_deal`.
    """
    weights = inp.view(np.float64)
    short_of = step[2]
    undealt, left = prm[0], prm[1]
    codes = scratch[0]
    for b in range(_FINE):
        hist[b] = 0
    m = 0
    for i in range(part[0], part[1]):
        key = inp[i, 0]
        w = weights[i, 1]
        need = 0
        short = 0
        for p in range(SLOTS):
            c = (key >> (_BITS * p)) & _NONE
            codes[p] = c
            if c == _NONE:
                break  # the codes are sorted: the places left are empty too
            need += CODE_NEED[c]
            short += short_of[c]
        if need <= undealt and short <= left:
            m = _add_f(out, m, key, w, hist)
        if need <= undealt + 1:
            for t in range(_member_moves(key, codes, step, short, left, scratch)):
                factor = np.float64(scratch[3, t])
                j2 = scratch[4, t]
                if j2 > 0:  # free: its cards come last, from the cards left
                    factor *= _BINOM_F[undealt - (need - 1 - j2), j2]
                m = _add_f(out, m, scratch[2, t], w * factor, hist)
    return m


@njit
def _settle_f(inp, part, check, undealt, scratch, out, hist):
    """:func:`_settle` for the states ``inp`` rows ``part[0]:part[1]``: the additions.

    Written and counted as by :func:`_deal_f` (room for one per state).
    """
    weights = inp.view(np.float64)
    free = check[1]
    codes = scratch[0]
    row = scratch[1]
    for b in range(_FINE):
        hist[b] = 0
    m = 0
    for i in range(part[0], part[1]):
        key = inp[i, 0]
        need = _settled_need(key, codes, check, undealt)
        if need < 0:
            continue
        w = weights[i, 1]
        k = 0
        for p in range(SLOTS):
            c = codes[p]
            if c == _NONE:
                break
            if free[c]:
                j = CODE_NEED[c]
                w *= _BINOM_F[undealt - (need - j), j]
                need -= j
            else:
                row[k] = c
                k += 1
        m = _add_f(out, m, _key_of(row, k), w, hist)
    return m


@njit
def _offsets(hists, offsets, places, buckets):
    """Where each part's additions of each bucket go: the additions in all, and where to cut.

    ``hists``: (parts, buckets), each part's additions per bucket;
    ``offsets[b]``: the first place of bucket ``b`` (``offsets[_FINE]``
    all of them); ``places[k, b]``: the first place of part ``k``'s
    additions of bucket ``b`` (the parts in order within a bucket);
    ``buckets[k]``: the buckets part ``k`` adds up, about as many additions
    each, as :func:`_aggregate` takes them (first, end, and ``k``). Returns
    the number of additions and the most in a bucket.
    """
    parts = hists.shape[0]
    offsets[0] = 0
    most = 0
    for b in range(_FINE):
        at = offsets[b]
        for k in range(parts):
            places[k, b] = at
            at += hists[k, b]
        offsets[b + 1] = at
        most = max(most, at - offsets[b])
    m = offsets[_FINE]
    cut = 0
    for k in range(parts):
        buckets[k, 0], buckets[k, 2] = cut, k
        while cut < _FINE and parts * offsets[cut] < (k + 1) * m:
            cut += 1
        buckets[k, 1] = cut if k + 1 < parts else _FINE
    return m, most


@njit
def _scatter(adds, m, places, out):
    """Copy the ``m`` additions ``adds`` into ``out`` in bucket order, from ``places`` on."""
    for t in range(m):
        key = adds[t, 0]
        b = _bucket(key)
        j = places[b]
        places[b] = j + 1
        out[j, 0] = key
        out[j, 1] = adds[t, 1]  # the weight's bits


@njit
def _aggregate(adds, offsets, buckets, table, out):
    """Add up the additions ``adds`` of buckets ``buckets[0]:buckets[1]``, into states.

    ``adds`` is in bucket order (``offsets`` as :func:`_offsets` makes
    them). A run of buckets of at most ``_GROUP`` additions (or one bucket)
    is added up in the first places of ``table`` (``~key`` and weight; at
    least twice as many places as additions), each new state's place noted
    in ``out`` as it comes, and its states are then written in that order
    into ``out`` from the place of the first bucket plus ``buckets[2]``
    (the part's number); only the places used are read again and emptied,
    so the table is empty again afterwards. Returns the number of states
    written.
    """
    a_weights = adds.view(np.float64)
    t_weights = table.view(np.float64)
    o_weights = out.view(np.float64)
    first = offsets[buckets[0]] + buckets[2]
    n = first
    b = buckets[0]
    while b < buckets[1]:
        e = b + 1
        while e < buckets[1] and offsets[e + 1] - offsets[b] <= _GROUP:
            e += 1
        bits = 4
        while (1 << bits) < 2 * (offsets[e] - offsets[b]):
            bits += 1
        mask = (1 << bits) - 1
        run = n
        for t in range(offsets[b], offsets[e]):
            key = adds[t, 0]
            # the bits of the hash below the bucket's
            h = (np.uint64(key) * _GOLD) >> np.uint64(64 - _FINE_BITS - bits)
            at = np.int64(h) & mask
            tag = ~key
            while True:
                k = table[at, 0]
                if k == tag:
                    t_weights[at, 1] += a_weights[t, 1]
                    break
                if k == _EMPTY:
                    table[at, 0] = tag
                    t_weights[at, 1] = a_weights[t, 1]
                    out[n, 0] = at  # the new state's place, until its key is written
                    n += 1
                    break
                at = (at + 1) & mask
        for j in range(run, n):
            at = out[j, 0]
            out[j, 0] = ~table[at, 0]
            o_weights[j, 1] = t_weights[at, 1]
            table[at, 0] = _EMPTY
        b = e
    return n - first


@njit
def _serial_step(deal, state, parts, card, check, memory, counts):
    """A whole step on one thread, the parts in turn: one call, for the small steps.

    ``deal``: a card (:func:`_deal_f` with ``card = (step, prm)``) or the
    checks between values (:func:`_settle_f` with ``check = (check,
    undealt)``). ``memory``: as :meth:`_Steps.memory`. Fills ``counts``:
    row 0 each part's additions and, when done, row 1 each part's states.
    Returns whether the step is done (else the additions are made, and
    ``_offsets`` too, but there was not room for the rest: the caller makes
    room and goes on).
    """
    adds, bases, hists, offsets, places, sorted_, tables, spare, scratch, buckets = memory
    for k in range(_PARTS):
        out = adds[bases[k] :]
        if deal:
            counts[0, k] = _deal_f(state, parts[k], card[0], card[1], scratch[k], out, hists[k])
        else:
            counts[0, k] = _settle_f(state, parts[k], check[0], check[1], scratch[k], out, hists[k])
    m, most = _offsets(hists, offsets, places, buckets)
    room = min(sorted_.shape[0], spare.shape[0]) >= m + _PARTS
    if not room or tables.shape[1] < 2 * max(_GROUP, most):
        return False
    for k in range(_PARTS):
        _scatter(adds[bases[k] :], counts[0, k], places[k], sorted_)
    for k in range(_PARTS):
        counts[1, k] = _aggregate(sorted_, offsets, buckets[k], tables[k], spare)
    return True


@njit
def _bases(parts, per_state, bases):
    """Where each part's additions start (``bases``, and their end); returns the states."""
    states = 0
    for k in range(_PARTS):
        bases[k] = per_state * states
        states += parts[k, 1] - parts[k, 0]
    bases[_PARTS] = per_state * states
    return states


_pool: tuple[int, ThreadPoolExecutor] | None = None


def _cores() -> int:
    """The processors this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _run(jobs, threaded: bool) -> list:
    """Run ``jobs`` (``(kernel, arguments)``): on up to ``_PARTS`` threads if ``threaded``.

    As many threads as there are processors to run them, at most one per
    part; one processor, or ``threaded`` false: in turn, on this thread.
    The jobs and what each does are the same either way.
    """
    global _pool
    threads = min(_cores(), _PARTS) if threaded else 1
    if threads < 2:
        return [kernel(*args) for kernel, args in jobs]
    if _pool is None or _pool[0] != os.getpid():  # a forked process makes its own threads
        _pool = (os.getpid(), ThreadPoolExecutor(threads))
    return [f.result() for f in [_pool[1].submit(kernel, *args) for kernel, args in jobs]]


def _rows(rows: np.ndarray, size: int) -> np.ndarray:
    """``rows``, or a larger block of rows if it has fewer than ``size`` (contents not kept).

    A large block is mapped for at least ``_RESERVE`` rows: the system gives
    it pages only as they are first written, so a count that grows writes
    each page once instead of once per doubling of the block.
    """
    if rows.shape[0] >= size:
        return rows
    _check_room(16 * size)  # the rows it will write, not the addresses it reserves
    size = max(size, 2 * rows.shape[0])
    if size < _LARGE or not hasattr(mmap, "MAP_PRIVATE"):
        return np.zeros((size, 2), np.int64)
    size = max(size, _RESERVE)
    area = mmap.mmap(-1, 16 * size, flags=mmap.MAP_PRIVATE)  # private: a fork copies it
    return np.frombuffer(area, np.int64).reshape(size, 2)


# Fresh memory costs: the system clears every page a count writes for the
# first time (in the slowest advisor count, blocks doubled as it grew: 1.0
# to 1.3 s of system time in a 2.5 to 2.8 s first call; mapped once at a
# generous size, 0.4 s). The large blocks of a finished float count are
# kept for the next one, whose pages are then written without being
# cleared again. Kept, they are marked free (``MADV_FREE``): the system may
# take their pages back when memory runs short, and gives fresh ones if it
# did.
_LARGE = 1 << 16  # rows from which a block is mapped memory, kept after the count
_RESERVE = 1 << 25  # rows a large block is mapped for at first (512 MB of addresses)
_KEPT: list[np.ndarray] = []  # large blocks of finished counts (a count takes them out)


def _keep(blocks) -> None:
    """Keep the large ``blocks`` of a finished count for the next one (four at most).

    A block that grew past its first size (a count far beyond the
    advisor's) goes back to the system.
    """
    for block in blocks:
        area = block.base
        while area is not None and not isinstance(area, mmap.mmap):
            area = area.obj if isinstance(area, memoryview) else area.base
        if area is None or len(_KEPT) >= 4 or block.shape[0] > _RESERVE:
            continue
        if hasattr(mmap, "MADV_FREE"):
            area.madvise(mmap.MADV_FREE)
        _KEPT.append(block)


def _kept(default: np.ndarray) -> np.ndarray:
    """A kept large block (see :func:`_keep`), or ``default`` if none is left."""
    try:
        return _KEPT.pop()  # one call: two counts on two threads never take the same block
    except IndexError:
        return default


class _Steps:
    """The memory of a float count and its steps: states, additions, small tables.

    Every block is int64 rows of two (a key, then a weight's bits). The
    large ones come from earlier counts where kept (:func:`_keep`); the
    caller gives them back with :meth:`keep` once the count is done.
    """

    def __init__(self, rows: dict, card, check):
        self.state = _kept(np.zeros((64, 2), np.int64))
        self.state = _rows(self.state, len(rows))
        for i, (key, weight) in enumerate(rows.items()):
            self.state[i, 0] = key
            self.state.view(np.float64)[i, 1] = weight
        ends = [len(rows) * k // _PARTS for k in range(_PARTS + 1)]
        self.parts = np.array([[ends[k], ends[k + 1]] for k in range(_PARTS)])
        # each part's additions, in a row: part k's from row bases[k] of the one block
        self.adds = _kept(np.zeros((64, 2), np.int64))
        self.bases = np.zeros(_PARTS + 1, np.int64)
        self.tables = np.zeros((_PARTS, 2 * _GROUP, 2), np.int64)  # a small table a part
        # a part's scratch (5 rows of SLOTS used), rows padded so that no two parts
        # share a cache line (threads writing next to each other slow each other down)
        self.scratch = np.zeros((_PARTS, 5, 16), np.int64)
        self.hists = np.zeros((_PARTS, _FINE), np.int64)
        self.offsets = np.zeros(_FINE + 1, np.int64)
        self.places = np.zeros((_PARTS, _FINE), np.int64)
        self.buckets = np.zeros((_PARTS, 3), np.int64)
        self.counts = np.zeros((2, _PARTS), np.int64)  # each part's additions and states
        self.sorted = _kept(np.zeros((64, 2), np.int64))
        self.spare = _kept(np.zeros((64, 2), np.int64))
        self.card, self.check = card, check  # the last of each (the serial step takes both)
        self.classes = np.zeros(64, np.int64)  # each state's class of bound (drop_least)
        self.polys = [np.zeros((2, _POLY)) for _ in range(_PARTS)]

    def memory(self):
        """The blocks :func:`_serial_step` takes."""
        return (
            self.adds,
            self.bases,
            self.hists,
            self.offsets,
            self.places,
            self.sorted,
            self.tables,
            self.spare,
            self.scratch,
            self.buckets,
        )

    def keep(self) -> None:
        """Give the large blocks back for the next count (:func:`_keep`)."""
        _keep([self.state, self.spare, self.sorted, self.adds])

    def size(self) -> int:
        """The number of states."""
        return int((self.parts[:, 1] - self.parts[:, 0]).sum())

    def drop_least(self, completions, allowed: float) -> tuple[float, float]:
        """Leave out the states of the smallest bounds, for an error of at most ``allowed``.

        ``completions`` as :func:`_completions` gives them. The states left
        out are replaced by the middle of what they can add (half their
        signed bounds), so their bounds may add up to twice ``allowed``.
        Nothing is left out unless a tenth of the states or more would go
        (a check that buys little spends no budget). Returns ``(estimate,
        error)``: what the states left out are taken to add, and the most
        that can be off by (half the sum of their bounds).
        """
        size = self.size()
        if self.classes.shape[0] < self.state.shape[0]:
            self.classes = np.zeros(self.state.shape[0], np.int64)
        sums = np.zeros((_PARTS, 3, _CLASSES))
        jobs = [
            (_bound_sums, (self.state, self.parts[k], completions, self.classes, sums[k], poly))
            for k, poly in enumerate(self.polys)
        ]
        _run(jobs, size >= _THREADED)
        bounds, states, signed = sums.sum(axis=0)
        cut = int(np.searchsorted(np.cumsum(bounds), 2.0 * allowed, side="right"))
        if states[:cut].sum() < 0.1 * size:
            return 0.0, 0.0
        jobs = [
            (_drop_below, (self.state, self.parts[k], self.classes, cut)) for k in range(_PARTS)
        ]
        self.parts[:, 1] = _run(jobs, size >= _THREADED)
        return 0.5 * float(signed[:cut].sum()), 0.5 * float(bounds[:cut].sum())

    def deal(self, card) -> None:
        """Deal a card: ``card`` is ``(step, prm)`` as :func:`_deal_f` takes them."""
        self.card = card
        self._step(True, 1 + SLOTS)

    def settle(self, check) -> None:
        """The checks between values: ``check`` is ``(check, undealt)`` (:func:`_settle_f`)."""
        self.check = check
        self._step(False, 1)

    def _step(self, deal: bool, per_state: int) -> None:
        size = _bases(self.parts, per_state, self.bases)
        self.adds = _rows(self.adds, per_state * size)
        threaded = size >= _THREADED
        if not threaded:
            done = _serial_step(
                deal, self.state, self.parts, self.card, self.check, self.memory(), self.counts
            )
            if done:
                self._turn(self.counts[1])
                return
            adds = list(self.counts[0])
        else:
            kernel, extra = (_deal_f, self.card) if deal else (_settle_f, self.check)
            jobs = []
            for k in range(_PARTS):
                memory = (self.scratch[k], self.adds[self.bases[k] :], self.hists[k])
                jobs.append((kernel, (self.state, self.parts[k], *extra, *memory)))
            adds = _run(jobs, threaded)
        m, most = _offsets(self.hists, self.offsets, self.places, self.buckets)
        self.sorted = _rows(self.sorted, m + _PARTS)
        self.spare = _rows(self.spare, m + _PARTS)
        places = 1 << (2 * max(_GROUP, most) - 1).bit_length()
        if self.tables.shape[1] < places:
            _check_room(16 * _PARTS * places)
            self.tables = np.zeros((_PARTS, max(places, 2 * self.tables.shape[1]), 2), np.int64)
        jobs = [
            (_scatter, (self.adds[self.bases[k] :], adds[k], self.places[k], self.sorted))
            for k in range(_PARTS)
        ]
        _run(jobs, threaded)
        jobs = [
            (_aggregate, (self.sorted, self.offsets, self.buckets[k], self.tables[k], self.spare))
            for k in range(_PARTS)
        ]
        self._turn(_run(jobs, threaded))

    def _turn(self, states) -> None:
        """The states written into ``spare`` (so many per part) become the states."""
        starts = self.offsets[self.buckets[:, 0]] + self.buckets[:, 2]
        self.parts[:, 0] = starts
        self.parts[:, 1] = starts + np.asarray(states)
        self.state, self.spare = self.spare, self.state

    def read(self) -> float:
        """The weight of the state of no member (zero if none is left)."""
        for a, b in self.parts:
            at = np.flatnonzero(self.state[a:b, 0] == _FULL)
            if len(at):
                return float(self.state.view(np.float64)[a + at[0], 1])
        return 0.0


def _steps(counts: tuple[int, ...], total: int, top: int):
    """The steps of a count, in order: ``(deal, tables, undealt, left, k)``.

    The checks before the first value and after each (``deal`` false,
    ``tables`` as :func:`_settle_tables` makes them), and between them the
    cards of each value, card ``k`` of it (``deal`` true, ``tables`` as
    :func:`_step_tables` makes them); ``undealt``: the cards left undealt
    after the step, ``left``: the cards of the value left after it. No
    member takes a card above ``top`` points, so the values above are not
    dealt (they stay among the cards left).
    """
    hi = max(v for v in range(11) if int(counts[v]))
    values = tuple(v for v in range(min(top, 10) + 1) if int(counts[v]))
    undealt = total
    yield False, _settle_tables(values, counts, hi), undealt, 0, 0
    for at, v in enumerate(values):
        after = values[at + 1] if at + 1 < len(values) else None
        # what a card does, but the last of the value; the last one (after it
        # the cheapest card is worth ``after``, or more than any member takes)
        deals = _step_tables(v, v, hi, after)
        last = _step_tables(v, after or 11, hi, after)
        for k in range(int(counts[v])):
            undealt -= 1
            left = int(counts[v]) - k - 1
            yield True, deals if left else last, undealt, left, k
        yield False, _settle_tables(values[at + 1 :], counts, hi), undealt, 0, 0


def _count_float(rows: dict, counts: tuple[int, ...], total: int, top: int) -> tuple[float, float]:
    """:func:`_count` in floating point (float weights in ``rows``), by partitioned steps.

    At the checks of a large count, the states that can change the result
    least are left out and replaced by the middle of what they can add, for
    an error of at most ``DROP_BUDGET`` in all (see below). Returns the
    float and that error's bound (half the sum of the bounds of the states
    left out).
    """
    left_out = 0.0
    estimate = 0.0
    schedule = _steps(counts, total, top)
    _, check, undealt, _, _ = next(schedule)
    # the serial step takes a card's tables even to settle: any will do until the first card
    steps = _Steps(rows, (_step_tables(0, 0, 10, None), np.zeros(2, np.int64)), (check, undealt))
    try:
        steps.settle((check, undealt))
        for deal, tables, after, left, k in schedule:
            if deal:
                steps.deal((tables, np.array([after, left])))
                # a check halfway through a value's cards too, where the states are very many
                dealt, cards = k + 1, k + 1 + left
                halfway = left and dealt == (cards + 1) // 2
                check_now = halfway and steps.size() >= _HALFWAY_FROM
            else:
                # a check once a value's cards are dealt
                check_now = steps.size() >= _DROP_FROM
            if check_now:
                allowed = (DROP_BUDGET - left_out) * _DROP_SHARE
                added, error = steps.drop_least(_completions(counts, after, top), allowed)
                estimate += added
                left_out += error
            if not deal:
                steps.settle((tables, after))
        return steps.read() + estimate, left_out
    finally:
        steps.keep()


# -- leaving out the states that matter least (the float count only) ----------
#
# A state's share of the result is its weight times the number of ways its
# members can still all be low: disjoint sets of their cards from the cards
# undealt. A bound on that number: the cards of the lowest value undealt
# are handed out for real (``t`` of them to the members, each member's
# share counted, ``a! / (a - t)!`` ways), and the members' other cards,
# among the ``U`` higher cards, are bounded by negative association. For
# a given share of the lowest cards, the members' higher cards are a
# uniformly random choice of disjoint sets (a random permutation of the
# higher cards cut into blocks), and "every member of a block is low" is a
# decreasing event of the values in that block; the values of a random
# permutation are negatively associated (Joag-Dev and Proschan, 1983), so
# the chance that every block is low is at most the product of each
# block's own chance. The blocks are pairs of members next to each other in
# the state's order (alike members, who want the same cards), each pair
# counted exactly as two disjoint hands, and the last member alone when
# their number is odd. In ways: ``(U)_M`` (``M`` higher cards in all, a
# falling factorial) times, per block, its ways to be low over ``(U)_m``
# (``m`` its higher cards), summed over every way to share the lowest cards.
# The lowest cards are the ones low hands fight over most, and the pairs
# catch the fight for the next ones between the members most alike. So
# what a state adds to the result (its descendants included) lies between
# nothing and ``weight * bound``: the ways are never negative, and the
# weight has the sign of its term. A state left out is replaced by the
# middle, ``weight * bound / 2``, off by at most half of ``|weight| *
# bound`` (which halves the error of leaving it out with nothing in its
# place, and so doubles what the budget buys). Once a value's cards are
# dealt, and halfway through them as well where the states are over a
# million (the bound holds at any card: the value's cards still undealt
# are the lowest, handed out for real), a count of many states puts them
# in classes by that bound (a quarter of a power of two each) and leaves
# out the classes of the smallest bounds while the halves of their bounds
# add up to at most half the budget still unspent, unless fewer than a
# tenth of the states would go (then it leaves out none and spends
# nothing): the result is off by at most ``DROP_BUDGET`` in all. Which
# states go, and the middle put in their place, depend on the states only,
# never on the threads, so the float is the same either way. It pays where
# the terms of many opponents are tiny (docs/performance.md, "Exact Assaf
# odds").

DROP_BUDGET = 4e-14  # the most the states left out (their middles put in) can move a float count
_DROP_SHARE = 0.5  # of the budget unspent, the most a check may use
_DROP_FROM = 1 << 14  # the fewest states at a check from which any are left out
_HALFWAY_FROM = 1 << 20  # the fewest states from which a value's cards are checked halfway too
_POLY = 33  # the longest polynomial of a bound: a value has at most 32 cards (two decks of tens)
_CLASSES = 4 * 2100  # classes of the bound: a quarter of a power of two each, from 2**-1075


def _undealt_counts(counts: tuple[int, ...], undealt: int) -> np.ndarray:
    """The cards of each value among the ``undealt`` highest of ``counts``."""
    rest = np.array(counts, np.int64)
    gone = int(rest.sum()) - undealt
    for v in range(len(rest)):
        take = min(int(rest[v]), gone)
        rest[v] -= take
        gone -= take
    return rest


def _two_hands(above: np.ndarray, top: int) -> np.ndarray:
    """``w[m1, r1, m2, r2]``: disjoint sets of ``m1`` and ``m2`` of the cards ``above``.

    ``above`` counts the cards of each value; the first set is worth at most
    ``r1`` points and the second at most ``r2`` (up to ``top`` each); as
    floats. One set alone is ``w[m, r, 0, 0]``.
    """
    size = MAX_NEED + 1
    ways = np.zeros((size, top + 1, size, top + 1))
    ways[0, 0, 0, 0] = 1.0
    for v, c in enumerate(int(x) for x in above):
        if not c:
            continue
        grown = np.zeros_like(ways)
        for j1 in range(min(c, MAX_NEED) + 1):
            if v * j1 > top:
                break
            for j2 in range(min(c - j1, MAX_NEED) + 1):
                if v * j2 > top:
                    break
                grown[j1:, v * j1 :, j2:, v * j2 :] += (
                    comb(c, j1)
                    * comb(c - j1, j2)
                    * ways[: size - j1, : top + 1 - v * j1, : size - j2, : top + 1 - v * j2]
                )
        ways = grown
    return np.cumsum(np.cumsum(ways, axis=1), axis=3)


def _completions(counts: tuple[int, ...], undealt: int, top: int):
    """What :func:`_bound_class` needs to bound the states once ``undealt`` cards are left.

    The undealt cards are the ``undealt`` highest of ``counts`` (the cards
    are dealt from the lowest value up); the ``a`` of the lowest value are
    handed out for real, and the ``U`` higher ones bounded by blocks of two
    members (see above). Member codes have rooms up to ``top``; ``place[c]``
    is code ``c``'s place in the block table (0 for no member), and
    ``blocks[i1, i2, t]`` is, for the members at places ``i1`` and ``i2``
    taking ``t`` of the lowest cards between them, the sum over their
    shares ``j1 + j2 = t`` of their disjoint sets of higher cards within
    their points, over ``j1! j2! (U)_m`` (``m`` their higher cards).
    ``falling[t]`` is ``a! / (a - t)!``, the ways to hand ``t`` lowest cards
    out, and ``fall_u[k]`` is ``(U)_k``. Returns ``(place, blocks, falling,
    fall_u)``.
    """
    rest = _undealt_counts(counts, undealt)
    low = next((v for v in range(len(rest)) if rest[v]), 0)
    a = int(rest[low])
    above = rest.copy()
    above[low] = 0
    top = min(int(top), 10 * MAX_NEED)
    within = _two_hands(above, top)
    u = int(above.sum())
    fall_u = np.array([float(_falling(u, k)) for k in range(SLOTS * MAX_NEED + 1)])
    # the block table's places: 0 for no member, then every code of room up to top
    codes = np.flatnonzero(_IS_PAIR & (top >= CODE_ROOM))
    place = np.zeros(_NONE + 1, np.int64)
    place[codes] = np.arange(1, len(codes) + 1)
    need = np.concatenate(([0], CODE_NEED[codes]))
    room = np.concatenate(([0], CODE_ROOM[codes]))
    inverse = np.array([1.0 / factorial(j) for j in range(MAX_NEED + 1)])
    blocks = np.zeros((len(need), len(need), a + 1))
    n1, r1, n2, r2 = need[:, None], room[:, None], need[None, :], room[None, :]
    for j1 in range(min(a, MAX_NEED) + 1):
        for j2 in range(min(a - j1, MAX_NEED) + 1):
            ok = (n1 >= j1) & (r1 >= low * j1) & (n2 >= j2) & (r2 >= low * j2)
            m1, m2 = np.where(ok, n1 - j1, 0), np.where(ok, n2 - j2, 0)
            s1, s2 = np.where(ok, r1 - low * j1, 0), np.where(ok, r2 - low * j2, 0)
            scale = fall_u[m1 + m2]  # zero when fewer than m1 + m2 higher cards are left
            ways = within[m1, s1, m2, s2] * inverse[j1] * inverse[j2]
            fits = ok & (scale > 0)
            blocks[:, :, j1 + j2] += np.where(fits, ways / np.where(fits, scale, 1.0), 0.0)
    falling = np.array([float(_falling(a, t)) for t in range(a + 1)])
    return place, blocks, falling, fall_u


@njit(inline="always")
def _bound_class(key, weight, completions, poly):
    """The class of a state's bound (:func:`_completions`); -1 for a bound of zero.

    ``poly``: scratch, two rows of at least ``a + 1`` floats.
    """
    place, blocks, falling, fall_u = completions
    a = falling.shape[0] - 1
    poly[0, 0] = 1.0
    for t in range(1, a + 1):
        poly[0, t] = 0.0
    need = 0
    for p in range(0, SLOTS, 2):
        c = (key >> (_BITS * p)) & _NONE
        if c == _NONE:
            break
        c2 = (key >> (_BITS * (p + 1))) & _NONE if p + 1 < SLOTS else _NONE
        need += CODE_NEED[c] + CODE_NEED[c2]
        i1, i2 = place[c], place[c2]
        for t in range(a + 1):
            x = 0.0
            for j in range(t + 1):
                x += poly[0, t - j] * blocks[i1, i2, j]
            poly[1, t] = x
        for t in range(a + 1):
            poly[0, t] = poly[1, t]
    bound = 0.0
    for t in range(min(a, need) + 1):
        bound += falling[t] * poly[0, t] * fall_u[need - t]
    bound *= abs(weight)
    if bound == 0.0:
        return -1, 0.0
    fraction, exponent = math.frexp(bound)  # bound = fraction * 2**exponent, fraction in [0.5, 1)
    at = 4 * (exponent + 1075) + np.int64(8.0 * fraction) - 4
    return min(max(at, 0), _CLASSES - 1), bound


@njit
def _bound_sums(state, part, completions, classes, sums, poly):
    """Each state's class (into ``classes``), and each class's bounds and states, of one part.

    ``part``: the rows ``part[0]:part[1]`` of ``state``; ``classes`` has a
    place per row; ``sums``: three rows a class (zeroed here), the sum of
    the bounds, the number of states, and the sum of the bounds signed as
    the weights are. ``poly``: scratch, as :func:`_bound_class` takes it.
    """
    sums[:] = 0.0
    weights = state.view(np.float64)
    for i in range(part[0], part[1]):
        at, bound = _bound_class(state[i, 0], weights[i, 1], completions, poly)
        classes[i] = at
        if at >= 0:
            sums[0, at] += bound
            sums[1, at] += 1.0
            sums[2, at] += bound if weights[i, 1] > 0.0 else -bound


@njit
def _drop_below(state, part, classes, cut):
    """Leave out the states of one part whose class is below ``cut``, in place (in order).

    Returns the part's new end.
    """
    n = part[0]
    for i in range(part[0], part[1]):
        if classes[i] >= cut:
            state[n, 0] = state[i, 0]
            state[n, 1] = state[i, 1]
            n += 1
    return n


def _falling(n: int, k: int) -> int:
    out = 1
    for i in range(k):
        out *= n - i
    return out


def _block(rows: int, width: int) -> np.ndarray:
    """Zeroed memory for ``rows`` rows of ``width`` int64 of a table, from a 64-byte boundary.

    A modular table's row (``width = LANES + 1``) is one 64-byte cache
    line, a float table's (``width = 2``) a quarter of one. A large block
    is mapped memory (on huge pages where the system gives them: the tables
    are read and written at random, and huge pages spare the processor most
    page-table walks); it is only touched when used.
    """
    size = rows * width * 8
    _check_room(size)  # a table is written all over
    if size < 1 << 24 or not hasattr(mmap, "MADV_HUGEPAGE"):
        flat = np.zeros(rows * width + 8, np.int64)
        skip = (-flat.ctypes.data % 64) // 8  # the first row on a 64-byte boundary
        return flat[skip : skip + rows * width].reshape(rows, width)
    area = mmap.mmap(-1, size)
    area.madvise(mmap.MADV_HUGEPAGE)
    return np.frombuffer(area, np.int64).reshape(rows, width)


class _Tables:
    """Empty tables of states (see :func:`_put`), their memory used again by later steps.

    A table is a view of the first places of a block of memory: new zeroed
    memory (empty), or one whose states have all been read (reading empties
    it). Memory is touched at first use only, and that costs (the page
    faults of the system): blocks are kept and a table is cut from the
    smallest block that holds it.
    """

    def __init__(self, width: int = LANES + 1):
        self.width = width
        self.blocks: list[np.ndarray] = []
        self.lent: dict[int, np.ndarray] = {}  # the block of each table handed out

    def take(self, states: float) -> np.ndarray:
        """An empty table for ``states`` states (at most ``_LOAD`` of its places)."""
        # a step checks the fill only between batches, so a table keeps room for one more
        # batch above ``_LOAD`` of its places: more than ``_BATCH / (1 - _LOAD)`` places
        size = max(_MIN_PLACES, int(states / _LOAD) + 1)
        fits = [i for i, b in enumerate(self.blocks) if b.shape[0] >= size]
        if fits:
            block = self.blocks.pop(min(fits, key=lambda i: self.blocks[i].shape[0]))
        else:
            block = _block(2 * size, self.width)
        table = block[:size]
        self.lent[id(table)] = block
        return table

    def give(self, table: np.ndarray) -> None:
        """Take back an empty table (every state read)."""
        self.blocks.append(self.lent.pop(id(table)))


@lru_cache(maxsize=4096)
def _step_tables(v: int, lowest: int, highest: int, after: int | None):
    """Per member code, what one card of value ``v`` does (see :func:`_deal`).

    Cached: the arrays are only read.

    The values left after this card range from ``lowest`` to ``highest``;
    ``after`` is the next value with cards above ``v`` (None if none).
    """
    need, room = CODE_NEED, CODE_ROOM
    succ = np.full(_NONE + 1, -1, np.int64)
    free = np.zeros(_NONE + 1, np.int64)
    short = np.zeros(_NONE + 1, np.int64)
    n2, r2 = need - 1, room - v
    take = _IS_PAIR & (room >= v)
    done = take & (n2 == 0)
    succ[done] = _NONE
    stay = take & (n2 > 0) & (n2 * lowest <= r2)
    loose = stay & (n2 * highest <= r2)
    succ[loose] = _NONE
    free[loose] = n2[loose]
    kept = stay & ~loose
    succ[kept] = PAIR_CODE[n2[kept], np.minimum(r2[kept], 10 * MAX_NEED)]
    # cards of value v a member needs before the next value: n * after - r over (after - v)
    if after is None:
        short[_IS_PAIR] = need[_IS_PAIR]
    else:
        gap = need * after - room
        short[_IS_PAIR] = np.maximum(0, -(-gap[_IS_PAIR] // (after - v)))
    return succ, free, short


@lru_cache(maxsize=4096)
def _settle_tables(values: tuple[int, ...], counts: tuple[int, ...], hi: int):
    """Per member code, the checks before dealing ``values`` (ascending; see :func:`_settle`).

    ``hi`` is the highest value of the cards undealt. Cached: the arrays are only read.
    """
    need, room = CODE_NEED, CODE_ROOM
    ok = np.ones(_NONE + 1, np.bool_)
    free = np.zeros(_NONE + 1, np.bool_)
    if values:
        lo = values[0]
        ok[_IS_PAIR] = (need * lo <= room)[_IS_PAIR]
        free[_IS_PAIR] = (need * hi <= room)[_IS_PAIR]
    else:
        ok[_IS_PAIR] = False
    # cards of value <= u a member needs: k * lo + (n - k) * (u + 1) <= r
    need_upto = np.zeros((_NONE + 1, max(1, len(values))), np.int64)
    avail = np.zeros(max(1, len(values)), np.int64)
    total = 0
    for col, u in enumerate(values):
        total += int(counts[u])
        avail[col] = total
        nxt = values[col + 1] if col + 1 < len(values) else None
        if nxt is None:
            need_upto[_IS_PAIR, col] = need[_IS_PAIR]
        else:
            gap = need * nxt - room
            need_upto[_IS_PAIR, col] = np.maximum(0, -(-gap[_IS_PAIR] // (nxt - values[0])))
    if not values:
        avail[0] = 1 << 40
    return ok, free, need_upto, avail


class _Modular:
    """The count modulo the ``LANES`` primes of ``mod``: tables of 64-byte rows."""

    width = LANES + 1

    def __init__(self, mod):
        self.mod = mod
        self.primes = [int(p) for p in mod[0]]
        self.batch = (
            np.zeros(_BATCH, np.int64),
            np.zeros(_BATCH, np.int64),
            np.zeros(_BATCH, np.int64),
            np.zeros(_BATCH, np.int64),
            np.zeros((_BATCH, LANES + 1), np.int64),
        )

    def view(self, table):
        return table

    def deal(self, inp, out, step, prm, scratch):
        return _deal(inp, out, step, prm, scratch, self.batch, self.mod)

    def settle(self, inp, out, check, prm, scratch):
        return _settle(inp, out, check, prm, scratch, self.mod)

    def grow(self, small, big):
        return _grow(small, big)

    def fill(self, table, rows):
        for i, (key, weight) in enumerate(rows.items()):
            table[i, LANES] = ~key
            table[i, :LANES] = [weight % p for p in self.primes]

    def read(self, table):
        """The residues of the state of no member (zero if none is left)."""
        at = np.flatnonzero(table[:, LANES] == ~_FULL)
        if not len(at):
            return [0] * LANES
        return [int(x) % p for x, p in zip(table[at[0], :LANES], self.primes, strict=True)]


def _count(rows: dict, counts: tuple[int, ...], total: int, top: int, kind):
    """The count of :func:`none_low` from the first states ``rows``, as ``kind`` counts.

    ``kind`` is :class:`_Modular` (residues modulo its primes; ``rows``
    maps a state's key to an integer weight; the float count is
    :func:`_count_float`). ``counts``: the unseen cards of each value, a tuple
    (the cached tables are keyed on it); ``top`` as :func:`_steps` takes it.
    """
    tables = _Tables(kind.width)
    scratch = np.zeros((5, SLOTS), np.int64)

    def run(deal, table, extra, prm, estimate):
        """One step from ``table`` into a new table sized for ``estimate`` states (and a margin).

        ``prm`` ends with 3 places for the kernel's first row, states so
        far and most states. When the new table fills up, its states move
        to one twice as large and the step goes on.
        """
        out = tables.take(_MARGIN * estimate)
        prm[-3:] = 0, 0, int(_LOAD * out.shape[0])
        while True:
            step = kind.deal if deal else kind.settle
            got, _, more = step(kind.view(table), kind.view(out), extra, prm, scratch)
            if more < 0:
                break
            big = tables.take(2 * _LOAD * out.shape[0])
            prm[-3:] = more, kind.grow(kind.view(out), kind.view(big)), int(_LOAD * big.shape[0])
            tables.give(out)
            out = big
        tables.give(table)
        return out, got

    start = tables.take(len(rows))
    kind.fill(kind.view(start), rows)
    table, n = start, len(rows)
    growth = 2.0  # the states a card makes of each, as the card before it made (a value's first: 2)
    for deal, tables_, undealt, left, k in _steps(counts, total, top):
        if not deal:
            table, n = run(False, table, tables_, np.array([undealt, 0, 1, 0, 0, 0]), n)
            continue
        if k == 0:
            growth = 2.0
        prm = np.array([undealt, left, k % 2 == 0, 0, 0, 0])
        table, got = run(True, table, tables_, prm, n * growth + 256)
        growth = got / max(n, 1)
        n = got
    return kind.read(kind.view(table))


def none_low(members, counts, total, exact: bool = True) -> Fraction | float:
    """P(no opponent ``(unknown cards, budget)`` in ``members`` is low), exactly (see above).

    At most ``SLOTS`` members of at most ``MAX_NEED`` unknown cards each.
    ``exact``: the ``Fraction`` (the count modulo primes); otherwise the
    same count in floating point, a float.
    """
    alike: dict[tuple[int, int], int] = {}
    for n, b in members:
        pair = (n, min(b, 10 * n))
        alike[pair] = alike.get(pair, 0) + 1
    groups = sorted(alike.items())
    everyone = sum(n * k for (n, _), k in groups)
    # the deals of every opponent's unknown cards, as sets of cards per opponent
    scale = _falling(total, everyone)
    for (n, _), k in groups:
        scale //= factorial(n) ** k
    # one state per choice of how many opponents of each group are in S; the
    # opponents not in S take their cards last, from whatever is left
    rows: dict[int, int] = {}
    for chosen in itertools.product(*(range(k + 1) for _, k in groups)):
        codes = []
        weight = 1
        used = 0
        for ((n, r), k), a in zip(groups, chosen, strict=True):
            codes += [int(PAIR_CODE[n, r])] * a
            weight *= comb(k, a) * (-1) ** a
            used += n * a
        rest = _falling(total - used, everyone - used)
        for ((n, _), k), a in zip(groups, chosen, strict=True):
            rest //= factorial(n) ** (k - a)
        codes = sorted(codes) + [_NONE] * (SLOTS - len(codes))
        key = sum(c << (_BITS * p) for p, c in enumerate(codes))
        rows[key] = rows.get(key, 0) + weight * rest
    top = max(r for (_, r), _ in groups)
    if not exact:
        start = {key: float(Fraction(weight, scale)) for key, weight in rows.items()}
        # a chance: the states left out may not take it past 0 or 1 (which only brings it closer)
        return min(max(_count_float(start, counts, total, top)[0], 0.0), 1.0)
    # the count is in [0, scale]: enough primes for their product to exceed it
    n_primes = next(i for i, product in enumerate(_PRIME_PRODUCTS, 1) if product > scale)
    residues = []
    for mod in _MODULI[: -(-n_primes // LANES)]:
        residues += _count(rows, counts, total, top, _Modular(mod))
    # Chinese remainders
    value, modulus = 0, 1
    for r, p in zip(residues[:n_primes], (int(p) for p in PRIMES[:n_primes]), strict=True):
        t = ((r - value) * pow(modulus, -1, p)) % p
        value += modulus * t
        modulus *= p
    return Fraction(value, scale)
