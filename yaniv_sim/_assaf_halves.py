"""The float count of :func:`yaniv_sim.odds.p_assaf` with the opponents in two halves.

Private: :func:`none_low` is the whole interface. It is the first count
:func:`yaniv_sim.odds.p_assaf` tries for a float; where this one would
take longer (opponents alike in groups, which the other count,
:func:`yaniv_sim._assaf_count.none_low`, gives one state), it says so and
the other count runs. See the comment below for how the count works, and
docs/performance.md for what it costs.
"""

from __future__ import annotations

import math
from collections import Counter
from functools import lru_cache

import numpy as np

from yaniv_sim._assaf_count import _PARTS, _check_room, _keep, _kept, _rows, _run
from yaniv_sim._numba import njit

__all__ = ["none_low"]

# -- the count -----------------------------------------------------------------
#
# P(no opponent is low) by inclusion and exclusion over the opponents: the
# sum over the sets S of opponents of (-1)^|S| P(every opponent of S is
# low). Opponent i has m_i unknown cards and is low when they are worth at
# most r_i points. For one set S, the chance is a sum over the members'
# hands, each hand told by its cards of each value (h_iv cards of value v),
# each hand low:
#
#     prod_v (c_v)_(u_v) * prod_i (m_i! / prod_v h_iv!) / (T)_M
#
# where c_v is the number of unseen cards of value v, u_v = sum_i h_iv the
# cards of value v the members take, M = sum_v u_v all their cards, T the
# unseen cards and (x)_k the falling factorial x (x - 1) ... (x - k + 1).
#
# Cut the opponents in two halves A and B. Summed with their signs over the
# sets and hands of one half by the cards of each value the half takes (a
# "usage", the vector a or b), the half has weights W_A(a) and W_B(b)
# (:func:`_half_weights`), and
#
#     P(no opponent is low) = sum over a, b of
#         W_A(a) W_B(b) prod_v (c_v)_(a_v + b_v) / (T)_(|a| + |b|).
#
# The factor of value v depends on a_v and b_v only, so the sum over the
# pairs is taken one value at a time, the halves "meeting" value by value
# (:func:`_meet`): after value t, the table G_t[p, q] holds, for p the
# cards A takes of the values up to t (a prefix of a) and q the cards B
# takes of the values after t (a suffix of b) with the number of B's cards
# up to t, the sum over B's usages with that suffix of W_B(b) times the
# factors of the values up to t. Its size is the number of prefixes times
# the number of suffixes, which stays far below the number of pairs. The
# last table, times W_A and 1 / (T)_M, adds up to the result.
#
# A usage is a key: its count of each value a digit, the first value dealt
# the most significant, so that the keys of A in order list each prefix in
# one run. Every term is a probability with its sign and their absolute
# values add up to E[2^(number of low opponents)] <= 2^7, so rounding stays
# near 1e-15 (the last sum, of many terms of both signs, is compensated).
# Each entry of a table is worked out the same way on any number of
# threads, so the float is the same on any machine.

_EMPTY = -1  # the key of an unused place of a half's table
_GOLD = np.uint64(0x9E3779B97F4A7C15)
_HALF_MOST = 1 << 22  # the most usages a half may have before this count gives way
_MEET_MOST = 3 * 10**8  # the most table entries all the values may make before it gives way
_FEW_CARDS = 31  # with two pairs alike, the most unknown cards in all this count still takes


def _alike_enough(members) -> bool:
    """Whether the other count is the faster: opponents alike in groups.

    That count gives alike opponents (the same unknown cards and budget)
    one state, this one does not. Measured the faster (docs/performance.md,
    "Exact Assaf odds"): four or more opponents alike, or three groups, or
    a group of three and a pair, or two pairs when the opponents hold more
    than ``_FEW_CARDS`` unknown cards in all.
    """
    groups = sorted(Counter(members).values(), reverse=True)
    alike = sum(1 for size in groups if size > 1)
    if groups[0] > 3 or alike > 2 or (alike == 2 and groups[0] == 3):
        return True
    return alike == 2 and sum(n for n, _ in members) > _FEW_CARDS


def _places(counts: tuple[int, ...]) -> tuple[int, ...]:
    """Each digit's place in a usage key: the first value dealt the most significant."""
    places = []
    place = 1
    for c in reversed(counts):
        places.append(place)
        place *= c + 1
    return tuple(reversed(places))


@lru_cache(maxsize=256)
def _hands(m: int, r: int, values: tuple[int, ...], counts: tuple[int, ...]):
    """One member's low hands: ``m`` cards worth at most ``r``, by their cards of each value.

    ``values`` are the values dealt and ``counts`` their unseen cards.
    Returns ``(keys, weights, at, digit, count)``: per hand its usage key
    and weight ``m! / prod h_v!`` (its sets of cards), and its non-zero
    digits: hand ``h``'s are ``digit[at[h]:at[h + 1]]``, holding ``count``
    cards each. Cached: the arrays are only read.
    """
    place = _places(counts)
    keys, weights, at, digit, count = [], [], [0], [], []
    held = [0] * len(values)

    def take(t: int, left: int, room: int) -> None:
        if left == 0:
            keys.append(sum(k * p for k, p in zip(held, place, strict=True)))
            weights.append(math.factorial(m) // math.prod(math.factorial(k) for k in held))
            for u, k in enumerate(held):
                if k:
                    digit.append(u)
                    count.append(k)
            at.append(len(digit))
            return
        if t == len(values):
            return
        for k in range(min(left, counts[t]) + 1):
            if k * values[t] > room:
                break
            held[t] = k
            take(t + 1, left - k, room - k * values[t])
        held[t] = 0

    take(0, m, r)
    return (
        np.array(keys, np.int64),
        np.array(weights, np.float64),
        np.array(at, np.int64),
        np.array(digit, np.int64),
        np.array(count, np.int64),
    )


@njit(inline="always")
def _slot(key, mask):
    """The first place to try for ``key`` in a table of ``mask + 1`` places (a power of two)."""
    return np.int64((np.uint64(key) * _GOLD) >> np.uint64(32)) & mask


@njit(inline="always")
def _insert(keys, weights, key, w):
    """Add ``w`` to usage ``key`` of the table ``(keys, weights)``: 1 if the key is new, else 0."""
    mask = keys.shape[0] - 1
    at = _slot(key, mask)
    while True:
        k = keys[at]
        if k == key:
            weights[at] += w
            return 0
        if k == _EMPTY:
            keys[at] = key
            weights[at] = w
            return 1
        at = (at + 1) & mask


@njit
def _fill(keys, weights, table):
    """Put the usages ``keys`` with ``weights`` in the empty ``table``; returns their number."""
    n = 0
    for i in range(keys.shape[0]):
        n += _insert(table[0], table[1], keys[i], weights[i])
    return n


@njit
def _add_member(half, hands, radix, held, table, progress):
    """Add a member to a half: each usage of ``half`` with each of the member's hands.

    ``half`` is ``(keys, weights)``, already in ``table`` (the sets without
    the member); each usage with each hand that fits in the unseen cards
    (``radix`` less one of each value) is added with weight times the
    hand's weight, negated (the member is in the set: a sign more).
    ``held``: scratch, a digit each. ``progress``: the first usage to do
    and the usages in ``table``; updated. Stops early once the table holds
    more than ``progress[2]`` usages (the caller makes it larger and calls
    again); returns whether it is done.
    """
    keys, weights = half
    hand_keys, hand_weights, at, digit, count = hands
    t_keys, t_weights = table
    n_digits = radix.shape[0]
    filled = progress[1]
    for i in range(progress[0], keys.shape[0]):
        key = keys[i]
        w = -weights[i]
        x = key
        for t in range(n_digits - 1, -1, -1):
            held[t] = x % radix[t]
            x //= radix[t]
        for h in range(hand_keys.shape[0]):
            fits = True
            for j in range(at[h], at[h + 1]):
                if held[digit[j]] + count[j] >= radix[digit[j]]:
                    fits = False
                    break
            if fits:
                filled += _insert(t_keys, t_weights, key + hand_keys[h], w * hand_weights[h])
        if filled > progress[2]:
            progress[0], progress[1] = i + 1, filled
            return False
    progress[0], progress[1] = keys.shape[0], filled
    return True


def _table(size: int):
    _check_room(16 * size)
    return np.full(size, _EMPTY, np.int64), np.zeros(size)


def _half_weights(members, values, counts):
    """The weights W of a half (see above) by usage: ``(keys, weights)`` in key order.

    None if the half has more than ``_HALF_MOST`` usages.
    """
    radix = np.array([c + 1 for c in counts], np.int64)
    held = np.zeros(len(counts), np.int64)
    half = (np.zeros(1, np.int64), np.ones(1))
    for m, r in members:
        hands = _hands(m, r, values, counts)
        # a usage adds all its hands before the fill is checked: room for them above half
        size = 1 << max(10, (4 * max(len(half[0]), len(hands[0]))).bit_length())
        table = _table(size)
        progress = np.array([0, _fill(half[0], half[1], table), size // 2], np.int64)
        while not _add_member(half, hands, radix, held, table, progress):
            if progress[1] > _HALF_MOST:
                return None
            used = table[0] != _EMPTY
            old = table
            table = _table(2 * old[0].shape[0])
            _fill(old[0][used], old[1][used], table)
            progress[2] = table[0].shape[0] // 2
        used = table[0] != _EMPTY
        half = (table[0][used], table[1][used])
    if len(half[0]) > _HALF_MOST:
        return None
    order = np.argsort(half[0], kind="stable")
    return half[0][order], half[1][order]


@njit
def _meet(g, parent, digit, gather, falling, out, rows, h):
    """One value: table ``out`` from table ``g`` (see above), for the rows ``rows[0]:rows[1]``.

    Row ``i`` of ``out`` is the prefix of ``parent[i]`` (a row of ``g``)
    with ``digit[i]`` cards of the value; column ``q`` is a suffix, and
    ``gather[b, q]`` the column of ``g`` with ``b`` cards of the value more
    in the suffix (the last column of ``g``, always 0, where there is none).
    ``falling[k]``: the ways to take ``k`` of the value's cards in order.
    ``h``: scratch, a row of ``g`` gathered per ``b``. The last column of
    ``out`` is set to 0.
    """
    n_q = out.shape[1] - 1
    n_b = gather.shape[0]
    last = -1
    for i in range(rows[0], rows[1]):
        p = parent[i]
        if p != last:
            for b in range(n_b):
                for q in range(n_q):
                    h[b, q] = g[p, gather[b, q]]
            last = p
        a = digit[i]
        f = falling[a]
        for q in range(n_q):
            out[i, q] = f * h[0, q]
        for b in range(1, n_b - a):
            f = falling[a + b]
            for q in range(n_q):
                out[i, q] += f * h[b, q]
        out[i, n_q] = 0.0


@njit
def _total(g, weights, cards, beta, inverse):
    """The result: sum of ``weights[i] * g[i, q] * inverse[cards[i] + beta[q]]`` (compensated)."""
    total = 0.0
    error = 0.0
    for i in range(g.shape[0]):
        for q in range(beta.shape[0]):
            x = weights[i] * (g[i, q] * inverse[cards[i] + beta[q]])
            s = total + x
            if abs(total) >= abs(x):
                error += (total - s) + x
            else:
                error += (x - s) + total
            total = s
    return total + error


def _prefixes(keys, place, radix):
    """A's usages by prefix, value by value: per value ``(parent, digit)`` of each prefix.

    ``keys`` in order: a value's prefixes are the distinct ``keys // place``, in order.
    """
    levels = []
    before = np.zeros(1, np.int64)
    for t in range(len(place)):
        prefix = keys // place[t]
        first = np.ones(len(prefix), bool)
        first[1:] = prefix[1:] != prefix[:-1]
        prefix = prefix[first]
        levels.append((np.searchsorted(before, prefix // radix[t]), prefix % radix[t]))
        before = prefix
    return levels


def _suffixes(keys, place, radix, beta_base):
    """B's usages by suffix, value by value: per value the ``gather`` of :func:`_meet`.

    A column is ``suffix * beta_base + beta``: the cards B takes of the values after
    this one (a key) and the number it takes up to it. Returns the gathers and
    the last columns' ``beta``.
    """
    levels = []
    column = keys * beta_base
    for t in range(len(place)):
        suffix, beta = column // beta_base, column % beta_base
        b = suffix // place[t]
        column, where = np.unique((suffix % place[t]) * beta_base + beta + b, return_inverse=True)
        gather = np.full((radix[t], len(column)), len(where), np.int64)
        gather[b, where] = np.arange(len(where))
        levels.append(gather)
    return levels, column % beta_base


def none_low(members, counts: tuple[int, ...], total: int) -> float | None:
    """P(no opponent ``(unknown cards, budget)`` in ``members`` is low), a float (see above).

    ``counts``: the unseen cards of each value (11 of them), ``total`` all
    the unseen cards. None where the other count is the faster (see
    :func:`_alike_enough`) or this one would be large (``_HALF_MOST``,
    ``_MEET_MOST``): the caller counts the other way.
    """
    members = sorted(((n, min(b, 10 * n)) for n, b in members), reverse=True)
    if _alike_enough(members):
        return None
    top = max(b for _, b in members)
    values = tuple(v for v in range(min(top, 10) + 1) if counts[v])
    if not values:
        return 1.0  # no card can make a hand low (no member has room for the cheapest)
    counts = tuple(int(counts[v]) for v in values)
    place = np.array(_places(counts), np.int64)
    radix = np.array([c + 1 for c in counts], np.int64)
    # A: the opponents with the fewest low hands, one more than B if they are odd (measured
    # the best cut or near it; the other way round can take four times as long)
    members.sort(key=lambda member: (len(_hands(*member, values, counts)[0]), member))
    cut = (len(members) + 1) // 2
    a_half = _half_weights(members[:cut], values, counts)
    b_half = _half_weights(members[cut:], values, counts) if a_half is not None else None
    if b_half is None:
        return None
    prefixes = _prefixes(a_half[0], place, radix)
    beta_base = sum(n for n, _ in members[cut:]) + 1
    suffixes, beta = _suffixes(b_half[0], place, radix, beta_base)
    sizes = [(len(p[0]), g.shape[1] + 1) for p, g in zip(prefixes, suffixes, strict=True)]
    if sum(rows * columns for rows, columns in sizes) > _MEET_MOST:
        return None
    most = max(rows * columns for rows, columns in sizes)
    blocks = [_kept(np.zeros((64, 2), np.int64)), _kept(np.zeros((64, 2), np.int64))]
    try:
        blocks = [_rows(block, (most + 1) // 2) for block in blocks]
        g = np.zeros((1, len(b_half[0]) + 1))
        g[0, :-1] = b_half[1]
        for t, ((parent, digit), gather) in enumerate(zip(prefixes, suffixes, strict=True)):
            rows, columns = sizes[t]
            out = blocks[t % 2].view(np.float64).ravel()[: rows * columns].reshape(rows, columns)
            falling = np.array([float(math.perm(counts[t], k)) for k in range(counts[t] + 1)])
            ends = [rows * k // _PARTS for k in range(_PARTS + 1)]
            jobs = [
                (
                    _meet,
                    (g, parent, digit, gather, falling, out, np.array(ends[k : k + 2]),
                     np.empty((radix[t], columns - 1))),
                )
                for k in range(_PARTS)
            ]  # fmt: skip
            _run(jobs, rows * columns >= 1 << 15)
            g = out
        cards = np.zeros(len(a_half[0]), np.int64)
        rest = a_half[0].copy()
        for t in range(len(values) - 1, -1, -1):
            cards += rest % radix[t]
            rest //= radix[t]
        everyone = sum(n for n, _ in members)
        inverse = np.array([1.0 / float(math.perm(total, k)) for k in range(everyone + 1)])
        return _total(g[:, :-1], a_half[1], cards, beta, inverse)
    finally:
        _keep(blocks)
