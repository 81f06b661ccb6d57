"""The exact count behind :func:`yaniv_sim.odds.p_assaf`: P(no opponent is low).

Private: :func:`none_low` is the whole interface. See the comment below for
how the count works, and docs/performance.md for what it costs.
"""

from __future__ import annotations

import itertools
import mmap
from fractions import Fraction
from functools import lru_cache
from math import comb, factorial

import numpy as np

from yaniv_sim._numba import njit

__all__ = ["MAX_NEED", "SLOTS", "none_low"]


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


# -- the same count in floating point ------------------------------------------
#
# The probability, not the integer count: a state's weight is one float64
# (a state is a 16-byte row, its weight and its key, four to a cache line),
# the factors are the same small integers and binomials, and no weight is
# reduced. Every term is a probability times a sign, and their absolute
# values add up to at most 2**7 (the expected 2 ** (number of low opponents)),
# so the rounding of the sum stays near 1e-14 at worst (tested against the
# exact fraction). Rows: ``tags[i, 1]`` is ``~key`` (``_EMPTY`` unused) and
# ``weights[i, 0]`` the weight, two views of the same memory.


@njit(inline="always")
def _put_f(tags, weights, key, at, w, n_out):
    """Add ``w`` to state ``key`` of the float table ``(tags, weights)``; the number of states."""
    size = tags.shape[0]
    tag = ~key
    while True:
        k = tags[at, 1]
        if k == tag:
            weights[at, 0] += w
            return n_out
        if k == _EMPTY:
            tags[at, 1] = tag
            weights[at, 0] = w
            return n_out + 1
        at += 1
        if at == size:
            at = 0


@njit(inline="always")
def _flush_f(out, batch, n_batch, n_out):
    """The float :func:`_flush`: ``batch`` is ``(keys, places, weights)``."""
    tags, weights = out
    b_keys, b_at, b_w = batch
    touch = np.int64(0)
    for t in range(n_batch):
        touch += tags[b_at[t], 1]
    b_at[_BATCH] = touch  # kept, so that the reads above are made
    for t in range(n_batch):
        n_out = _put_f(tags, weights, b_keys[t], b_at[t], b_w[t], n_out)
    return n_out


@njit
def _deal_f(inp, out, step, prm, scratch, batch, binom):
    """:func:`_deal` in floating point: tables ``(tags, weights)``, ``binom[pool, k]`` floats.

    ``prm[2]`` is unused (no weight is reduced).
    """
    short_of = step[2]
    i_tags, i_weights = inp
    undealt, left, first, n_out, limit = prm[0], prm[1], prm[3], prm[4], prm[5]
    codes = scratch[0]
    b_keys, b_at, b_w = batch
    size = out[0].shape[0]
    n_batch = 0
    adds = 0
    for i in range(first, i_tags.shape[0]):
        tag = i_tags[i, 1]
        if tag == _EMPTY:
            continue
        key = ~tag
        i_tags[i, 1] = _EMPTY
        w = i_weights[i, 0]
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
            b_keys[n_batch] = key
            b_at[n_batch] = _place(key, size)
            b_w[n_batch] = w
            n_batch += 1
        if need <= undealt + 1:
            for t in range(_member_moves(key, codes, step, short, left, scratch)):
                factor = np.float64(scratch[3, t])
                j2 = scratch[4, t]
                if j2 > 0:
                    factor *= binom[undealt - (need - 1 - j2), j2]
                b_keys[n_batch] = scratch[2, t]
                b_at[n_batch] = _place(scratch[2, t], size)
                b_w[n_batch] = w * factor
                n_batch += 1
        if n_batch > _BATCH - SLOTS - 2:
            n_out = _flush_f(out, batch, n_batch, n_out)
            adds += n_batch
            n_batch = 0
            if n_out > limit:
                return n_out, adds, i + 1
    n_out = _flush_f(out, batch, n_batch, n_out)
    adds += n_batch
    return n_out, adds, -1


@njit
def _settle_f(inp, out, check, prm, scratch, binom):
    """:func:`_settle` in floating point (tables and ``binom`` as for :func:`_deal_f`)."""
    free = check[1]
    i_tags, i_weights = inp
    o_tags, o_weights = out
    undealt, first, n_out, limit = prm[0], prm[3], prm[4], prm[5]
    codes = scratch[0]
    row = scratch[1]
    size = o_tags.shape[0]
    for i in range(first, i_tags.shape[0]):
        tag = i_tags[i, 1]
        if tag == _EMPTY:
            continue
        key = ~tag
        i_tags[i, 1] = _EMPTY
        need = _settled_need(key, codes, check, undealt)
        if need < 0:
            continue
        w = i_weights[i, 0]
        m = 0
        for p in range(SLOTS):
            c = codes[p]
            if c == _NONE:
                break
            if free[c]:
                j = CODE_NEED[c]
                w *= binom[undealt - (need - j), j]
                need -= j
            else:
                row[m] = c
                m += 1
        key2 = _key_of(row, m)
        n_out = _put_f(o_tags, o_weights, key2, _place(key2, size), w, n_out)
        if n_out > limit:
            return n_out, 0, i + 1
    return n_out, 0, -1


@njit
def _grow_f(small, big):
    """:func:`_grow` for float tables."""
    s_tags, s_weights = small
    b_tags, b_weights = big
    n = 0
    size = b_tags.shape[0]
    for i in range(s_tags.shape[0]):
        tag = s_tags[i, 1]
        if tag != _EMPTY:
            s_tags[i, 1] = _EMPTY
            n = _put_f(b_tags, b_weights, ~tag, _place(~tag, size), s_weights[i, 0], n)
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


_BINOM_F = np.array([[float(comb(a, k)) for k in range(MAX_NEED + 1)] for a in range(_POOL)])


class _Float:
    """The count in floating point: tables of 16-byte rows (weight, ``~key``)."""

    width = 2

    def __init__(self):
        self.batch = (
            np.zeros(_BATCH, np.int64),
            np.zeros(_BATCH + 1, np.int64),
            np.zeros(_BATCH, np.float64),
        )

    def view(self, table):
        return table, table.view(np.float64)

    def deal(self, inp, out, step, prm, scratch):
        return _deal_f(inp, out, step, prm, scratch, self.batch, _BINOM_F)

    def settle(self, inp, out, check, prm, scratch):
        return _settle_f(inp, out, check, prm, scratch, _BINOM_F)

    def grow(self, small, big):
        return _grow_f(small, big)

    def fill(self, table, rows):
        tags, weights = table
        for i, (key, weight) in enumerate(rows.items()):
            tags[i, 1] = ~key
            weights[i, 0] = weight

    def read(self, table):
        """The weight of the state of no member (zero if none is left)."""
        tags, weights = table
        at = np.flatnonzero(tags[:, 1] == ~_FULL)
        return float(weights[at[0], 0]) if len(at) else 0.0


def _count(rows: dict, counts: tuple[int, ...], total: int, top: int, kind):
    """The count of :func:`none_low` from the first states ``rows``, as ``kind`` counts.

    ``kind`` is :class:`_Modular` (residues modulo its primes; ``rows``
    maps a state's key to an integer weight) or :class:`_Float` (a float;
    float weights). ``counts``: the unseen cards of each value, a tuple
    (the cached tables are keyed on it). No member takes a card above
    ``top`` points, so the values above are not dealt (they stay among the
    cards left).
    """
    hi = max(v for v in range(11) if int(counts[v]))
    values = tuple(v for v in range(min(top, 10) + 1) if int(counts[v]))
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
    undealt = total
    check = _settle_tables(values, counts, hi)
    table, n = run(False, start, check, np.array([undealt, 0, 1, 0, 0, 0]), len(rows))
    for at, v in enumerate(values):
        after = values[at + 1] if at + 1 < len(values) else None
        # what a card does, but the last of the value; the last one (after it
        # the cheapest card is worth ``after``, or more than any member takes)
        deals = _step_tables(v, v, hi, after)
        last = _step_tables(v, after or 11, hi, after)
        growth = 2.0
        for step in range(int(counts[v])):
            undealt -= 1
            left = int(counts[v]) - step - 1
            deal = deals if left else last
            prm = np.array([undealt, left, step % 2 == 0, 0, 0, 0])
            table, got = run(True, table, deal, prm, n * growth + 256)
            growth = got / max(n, 1)
            n = got
        check = _settle_tables(values[at + 1 :], counts, hi)
        table, n = run(False, table, check, np.array([undealt, 0, 1, 0, 0, 0]), n)
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
        return _count(start, counts, total, top, _Float())
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
