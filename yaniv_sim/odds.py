"""Exact odds by combinatorics.

Terminology
-----------
dealt hand
    ``hand_size`` cards drawn uniformly at random, without replacement, from
    a set of cards (a full deck, or the cards a player has not seen).
value class
    Cards are counted by value only (0 for jokers, 1 to 10), since only
    values decide an Assaf.
"""

from __future__ import annotations

import itertools
import mmap
from fractions import Fraction
from functools import lru_cache
from itertools import combinations
from math import comb, factorial

import numpy as np

from yaniv_sim._numba import njit
from yaniv_sim.cards import (
    FACE,
    JOKER_FACE,
    MAX_DECKS,
    MAX_JOKERS,
    N_CODES,
    VALUE,
    card_text,
    deck_codes,
)
from yaniv_sim.rules import Rules

__all__ = ["hand_value_distribution", "p_assaf", "p_dealt_at_most"]


def hand_value_distribution(cards, hand_size: int) -> np.ndarray:
    """Exact distribution of the value of ``hand_size`` cards drawn from ``cards``.

    Parameters
    ----------
    cards : array of card codes
        The cards drawn from (each code once).
    hand_size : int

    Returns
    -------
    numpy.ndarray
        ``p[v]`` is the probability that the hand's value is ``v``.
    """
    cards = np.asarray(cards)
    if not 0 <= hand_size <= len(cards):
        raise ValueError(f"hand_size: {hand_size} cards cannot be drawn from {len(cards)}")
    counts = np.bincount(VALUE[cards], minlength=11)
    max_value = 10 * hand_size
    # ways[k][s]: number of k-card subsets of the values seen so far with sum s
    ways = [[0] * (max_value + 1) for _ in range(hand_size + 1)]
    ways[0][0] = 1
    for value, count in enumerate(counts):
        if count == 0:
            continue
        new = [[0] * (max_value + 1) for _ in range(hand_size + 1)]
        for k in range(hand_size + 1):
            for s in range(max_value + 1):
                if ways[k][s] == 0:
                    continue
                for j in range(min(count, hand_size - k) + 1):
                    t = s + j * value
                    if t <= max_value:
                        new[k + j][t] += ways[k][s] * comb(int(count), j)
        ways = new
    total = comb(len(cards), hand_size)
    return np.array([w / total for w in ways[hand_size]])


def p_dealt_at_most(value: int, rules: Rules, players: int) -> float:
    """Probability that a freshly dealt hand is worth at most ``value`` points."""
    deck = deck_codes(rules.decks_for(players), rules.jokers_per_deck)
    dist = hand_value_distribution(deck, rules.hand_size)
    return float(dist[: value + 1].sum())


def _low_hands(size: int, budget: int, caps: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Every multiset of ``size`` cards over the value classes ``0..len(caps)-1``.

    At most ``caps[x]`` cards of value ``x``, and the values add up to at most
    ``budget``. A multiset is a tuple of counts per class.
    """
    out: list[tuple[int, ...]] = []
    acc: list[int] = []
    top = len(caps) - 1

    def extend(x: int, left: int, room: int) -> None:
        if left == 0:
            out.append(tuple(acc) + (0,) * (top + 1 - len(acc)))
            return
        if x > top or (x > 0 and x * left > room):
            return
        for k in range(min(left, caps[x]) + 1):
            if k * x > room:
                break
            acc.append(k)
            extend(x + 1, left - k, room - k * x)
            acc.pop()

    extend(0, size, budget)
    return out


def _all_low(members: tuple[tuple[int, int], ...], counts: tuple[int, ...], total: int) -> Fraction:
    """P(every opponent ``(unknown cards, budget)`` in ``members`` draws at most its budget).

    The opponents draw disjoint hands one after another from ``total`` cards
    with ``counts`` cards of each value. Only values up to the largest budget
    can be in a low hand, so the state is the remaining count of each such
    value, with the number of ways to reach it.
    """
    top = min(max(b for _, b in members), 10)
    caps = counts[: top + 1]
    states = {caps: 1}
    denominator = 1
    left = total
    for unknown, budget in members:
        denominator *= comb(left, unknown)
        left -= unknown
        hands = _low_hands(unknown, budget, caps)
        new: dict[tuple[int, ...], int] = {}
        for remaining, ways in states.items():
            for hand in hands:
                w = ways
                for x, m in enumerate(hand):
                    if m:
                        if m > remaining[x]:
                            w = 0
                            break
                        w *= comb(remaining[x], m)
                if w:
                    key = tuple(r - m for r, m in zip(remaining, hand, strict=True))
                    new[key] = new.get(key, 0) + w
        states = new
        if not states:
            return Fraction(0)
    return Fraction(sum(states.values()), denominator)


# -- the fast exact count ----------------------------------------------------
#
# P(no opponent is low) by inclusion and exclusion over the opponents, all
# terms in one count: a term is a set S of opponents that must all be low,
# with sign (-1)^|S|. The unseen cards are dealt one value class at a time
# (jokers, aces, 2s, ...), card by card: each card goes to no one or to one
# of the opponents in S. An opponent of S is then described by the cards it
# still needs and the points it may still take, (n, r); only that pair
# matters for the rest of the deal, so a state of the count is the multiset
# of these pairs (opponents that are alike, or become alike, share a state).
# Deals are counted as ordered hands (a card goes to one of the n free
# places of a hand), and every term is scaled to the same denominator, the
# ordered deals of every opponent's unknown cards. The counts are huge
# integers; the kernels count modulo several primes below 2**31 at once.
# Divided by the orders of the cards within each hand (invertible modulo
# each prime) the final count is of deals as sets of cards, a smaller
# number, so it takes fewer primes; it is put back together by the Chinese
# remainder theorem. Nearly all the time goes to looking states up in the
# hash table of the next step, not to the arithmetic (measured: with one
# prime instead of six a step takes three quarters of the time).

SLOTS = 7  # opponents with unknown cards the kernels take (a table has at most 7)
MAX_NEED = 7  # unknown cards per opponent the kernels take (a hand holds at most 7)
_BITS = 9  # bits of a pair's code in a state's key: SLOTS * _BITS <= 63
_NONE = (1 << _BITS) - 1  # the code of an empty place (sorts last)


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


def _primes(count: int, below: int = 2**31) -> np.ndarray:
    out = []
    n = below - 1
    while len(out) < count:
        if n % 2 and all(n % d for d in range(3, int(n**0.5) + 1, 2)):
            out.append(n)
        n -= 2
    return np.array(out, np.int64)


PRIMES = _primes(24)


@njit(inline="always")
def _add(key, weights, i, factor, out, n_out):
    """Add ``factor`` times state ``i``'s weights to state ``key`` of the output ``out``.

    ``out`` is ``(keys, weights, table, shift)``: the output states, their
    weights, and the hash table of their places (all -1 when empty,
    ``2**(64 - shift)`` slots). Returns the output's new count, or -1 when
    it is full. The sums are not reduced here: each next step reduces its
    input (see :func:`_reduce`).
    """
    out_keys, out_weights, table, shift = out
    mask = table.shape[0] - 1
    h = (np.uint64(key) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(shift)
    slot = np.int64(h) & mask
    while True:
        at = table[slot]
        if at < 0:
            if n_out == out_keys.shape[0]:
                return -1
            table[slot] = n_out
            out_keys[n_out] = key
            for k in range(weights.shape[1]):
                out_weights[n_out, k] = weights[i, k] * factor
            return n_out + 1
        if out_keys[at] == key:
            for k in range(weights.shape[1]):
                out_weights[at, k] += weights[i, k] * factor
            return n_out
        slot = (slot + 1) & mask


@njit
def _reduce(weights, n, primes):
    """Reduce the first ``n`` rows of weights modulo the primes, in place.

    Between two reductions a weight grows by at most 49 times its reduced
    value per transition into it, so sums stay below 2**63 for far more
    states than fit in memory.
    """
    for i in range(n):
        for k in range(primes.shape[0]):
            weights[i, k] %= primes[k]


@njit(inline="always")
def _key(row):
    key = 0
    for q in range(SLOTS):
        key |= row[q] << (_BITS * q)
    return key


@njit(inline="always")
def _shortfall(c, v):
    """The cards of value ``v`` an opponent of code ``c`` must still get to stay low.

    Every card after them is worth ``v + 1`` or more, so an opponent needing
    ``n`` cards with ``r`` points left must get at least ``n * (v + 1) - r``
    more of value ``v`` (0 for an empty place, whose need is 0).
    """
    return max(0, CODE_NEED[c] * (v + 1) - CODE_ROOM[c])


@njit
def _deal_card(v, left, keys, weights, n_in, out, scratch):
    """Deal one card of value ``v`` to one of each state's opponents, or to no one.

    ``keys``/``weights`` hold ``n_in`` states; the new ones go to ``out``
    (see :func:`_add`; its table all -1 on entry); returns their number
    (-1 when the output is full). ``left`` cards of value ``v`` come after
    this one: states whose opponents must get more of them than that can
    no longer be all low and are dropped (see :func:`_shortfall`). So after
    the last card of a value (``left`` 0) every opponent left can still be
    low with the dearer cards alone. ``scratch`` is int64 ``(2, SLOTS)``.
    """
    n_out = 0
    codes = scratch[0]
    row = scratch[1]
    for i in range(n_in):
        key = keys[i]
        short = 0
        for p in range(SLOTS):
            codes[p] = (key >> (_BITS * p)) & _NONE
            short += _shortfall(codes[p], v)
        if short <= left:
            n_out = _add(key, weights, i, 1, out, n_out)
            if n_out < 0:
                return -1
        for p in range(SLOTS):
            c = codes[p]
            if c == _NONE:
                break
            if p > 0 and codes[p - 1] == c:
                continue  # alike opponents: counted once, times their number
            need = CODE_NEED[c]
            room = CODE_ROOM[c]
            if room < v:
                continue
            c2 = _NONE if need == 1 else PAIR_CODE[need - 1, min(room - v, 10 * (need - 1))]
            if short - _shortfall(c, v) + _shortfall(c2, v) > left:
                continue
            alike = 1
            while p + alike < SLOTS and codes[p + alike] == c:
                alike += 1
            # the row with one opponent of code c replaced by c2, kept sorted
            m = 0
            placed = False
            for q in range(SLOTS):
                if q == p:
                    continue
                if not placed and c2 <= codes[q]:
                    row[m] = c2
                    m += 1
                    placed = True
                row[m] = codes[q]
                m += 1
            if not placed:
                row[m] = c2
            n_out = _add(_key(row), weights, i, alike * need, out, n_out)
            if n_out < 0:
                return -1
    return n_out


@njit
def _drop_short(least, keys, weights, n_in):
    """Drop the states with an opponent that cannot be low any more; returns how many are left.

    Every card still to come is worth ``least`` points or more: an opponent
    needing ``n`` cards with less than ``n * least`` points left cannot be
    low. The states left are moved to the front, in place. (After the last
    card of a value :func:`_deal_card` has dropped them already; this is
    for a value of which no card is unseen.)
    """
    n = 0
    for i in range(n_in):
        key = keys[i]
        ok = True
        for p in range(SLOTS):
            c = (key >> (_BITS * p)) & _NONE
            if CODE_ROOM[c] < CODE_NEED[c] * least:
                ok = False
                break
        if ok:
            keys[n] = key
            for k in range(weights.shape[1]):
                weights[n, k] = weights[i, k]
            n += 1
    return n


def _falling(n: int, k: int) -> int:
    out = 1
    for i in range(k):
        out *= n - i
    return out


def _array(shape) -> np.ndarray:
    """An int64 array; a large one on huge pages where the system gives them.

    The count reads and writes its arrays at random: with huge pages the
    processor is spared most page-table walks.
    """
    size = int(np.prod(shape)) * 8
    if size < 1 << 24 or not hasattr(mmap, "MADV_HUGEPAGE"):
        return np.empty(shape, np.int64)
    area = mmap.mmap(-1, size)
    area.madvise(mmap.MADV_HUGEPAGE)
    return np.frombuffer(area, np.int64).reshape(shape)


class _Buffers:
    """Output arrays of a step, ``(keys, weights, table, shift)``, used again when they fit.

    Two sets take turns: a step writes to one while it reads the other. A
    set far larger than a step needs is not used again: clearing its table
    would cost more than making a small one.
    """

    def __init__(self, width: int):
        self.width = width
        self.spare = None

    def take(self, cap: int):
        """Arrays for at least ``cap`` states, the table cleared (see :func:`_add`)."""
        if self.spare is None or not cap <= self.spare[0].shape[0] <= 8 * cap + 4096:
            bits = (2 * cap - 1).bit_length()
            self.spare = (_array(cap), _array((cap, self.width)), _array(1 << bits), 64 - bits)
        out, self.spare = self.spare, None
        out[2].fill(-1)
        return out

    def give(self, used) -> None:
        """Keep ``used`` (arrays of :meth:`take`) for a later step."""
        if used is not None:
            self.spare = used


def _none_low(members, counts, total) -> Fraction:
    """P(no opponent ``(unknown cards, budget)`` in ``members`` is low), exactly (see above).

    At most ``SLOTS`` members of at most ``MAX_NEED`` unknown cards each.
    """
    alike: dict[tuple[int, int], int] = {}
    for n, b in members:
        pair = (n, min(b, 10 * n))
        alike[pair] = alike.get(pair, 0) + 1
    groups = sorted(alike.items())
    everyone = sum(n * k for (n, _), k in groups)
    orders = 1  # the orders of every opponent's unknown cards in its hand
    for (n, _), k in groups:
        orders *= factorial(n) ** k
    # The count is of ordered deals (a card goes to one of a hand's free
    # places). Divided by ``orders`` it counts the deals with no one low as
    # sets of cards per opponent, at most ``scale`` of them: that sets how
    # many primes it takes.
    scale = _falling(total, everyone) // orders
    n_primes = 1
    while int(np.prod([int(p) for p in PRIMES[:n_primes]], dtype=object)) <= scale:
        n_primes += 1
    primes = PRIMES[:n_primes]
    # one state per choice of how many opponents of each group are in S
    rows = []
    for chosen in itertools.product(*(range(k + 1) for _, k in groups)):
        codes = []
        weight = 1
        used = 0
        for ((n, r), k), a in zip(groups, chosen, strict=True):
            codes += [int(PAIR_CODE[n, r])] * a
            weight *= comb(k, a) * (-1) ** a
            used += n * a
        codes = sorted(codes) + [_NONE] * (SLOTS - len(codes))
        key = sum(c << (_BITS * p) for p, c in enumerate(codes))
        rows.append((key, weight * _falling(total - used, everyone - used)))
    keys = np.array([k for k, _ in rows], np.int64)
    weights = np.array([[w % int(p) for p in primes] for _, w in rows], np.int64)
    n = len(rows)
    scratch = np.empty((2, SLOTS), np.int64)
    buffers = _Buffers(n_primes)
    held = None  # the arrays of keys and weights, when they come from buffers
    growth = 2.0  # states out per state in, at the last card
    top = min(10, max(r for (_, r), _ in groups))
    for v in range(top + 1):
        if int(counts[v]) == 0:
            n = _drop_short(v + 1, keys, weights, n)
        for step in range(int(counts[v])):
            _reduce(weights, n, primes)
            cap = int(n * growth * 1.2) + 64
            while True:
                out = buffers.take(cap)
                got = _deal_card(v, int(counts[v]) - step - 1, keys, weights, n, out, scratch)
                if got >= 0:
                    break
                buffers.give(out)
                cap = min(2 * cap, n * (SLOTS + 1))
            growth = got / n  # n >= 1: the state of no opponent is never dropped
            buffers.give(held)
            held = out
            keys, weights, n = out[0], out[1], got
    empty = sum(_NONE << (_BITS * p) for p in range(SLOTS))
    at = np.flatnonzero(keys[:n] == empty)
    if not len(at):
        return Fraction(0)
    # the count of deals as sets of cards, modulo each prime
    residues = [
        int(x) % int(p) * pow(orders, -1, int(p)) % int(p)
        for x, p in zip(weights[at[0]], primes, strict=True)
    ]
    # Chinese remainders: the count is in [0, scale]
    value, modulus = 0, 1
    for r, p in zip(residues, (int(p) for p in primes), strict=True):
        t = ((r - value) * pow(modulus, -1, p)) % p
        value += modulus * t
        modulus *= p
    return Fraction(value, scale)


def _check_copies(unseen, known, decks, jokers_per_deck) -> None:
    """Refuse a face given in ``unseen`` and ``known`` together more often than the deck has it."""
    decks = MAX_DECKS if decks is None else int(decks)
    jokers = MAX_JOKERS // MAX_DECKS if jokers_per_deck is None else int(jokers_per_deck)
    if decks not in (1, 2):
        raise ValueError(f"decks: {decks} is not allowed; use 1 or 2")
    if not 0 <= jokers <= MAX_JOKERS // MAX_DECKS:
        raise ValueError(f"jokers_per_deck: {jokers} is not allowed; use 0 to 4")
    for codes, what in ((unseen, "unseen"), (known, "known")):
        if len(codes) and (codes.min() < 0 or codes.max() >= N_CODES):
            raise ValueError(f"{what}: card codes are 0 to {N_CODES - 1}")
    faces = np.bincount(FACE[np.concatenate([unseen, known])], minlength=JOKER_FACE + 1)
    limit = np.full(JOKER_FACE + 1, decks)
    limit[JOKER_FACE] = decks * jokers
    over = np.flatnonzero(faces > limit)
    if len(over):
        face = int(over[0])
        name = "JK" if face == JOKER_FACE else card_text(face)
        where = "known" if len(known) and np.isin(FACE[known], face).any() else "unseen"
        raise ValueError(
            f"{where}: {name} is given {faces[face]} times in unseen and known together, but "
            f"the deck ({decks} deck{'s' if decks > 1 else ''}, {jokers} jokers per deck) "
            f"holds it {limit[face]} time{'s' if limit[face] != 1 else ''}"
        )


def p_assaf(
    caller_value: int,
    opponent_cards,
    unseen,
    known=None,
    *,
    decks: int | None = None,
    jokers_per_deck: int | None = None,
    exact: bool = False,
) -> float | Fraction:
    """Exact probability that some opponent holds at most ``caller_value``.

    Each opponent's unknown cards are a uniformly random draw, without
    replacement, from ``unseen``; the opponents' hands are disjoint, so the
    draws are not independent.

    Parameters
    ----------
    caller_value : int
        The caller's hand value; an opponent at this value or less Assafs.
    opponent_cards : list of int
        Each opponent's total number of cards in hand, known cards included.
    unseen : array of card codes
        The cards the opponents' unknown cards are drawn from (as
        :func:`~yaniv_sim.cards.parse_cards` gives them; each code once).
    known : list of lists of card codes, optional
        One entry per opponent: the cards that opponent is known to hold
        (taken from the pile). A known card is another copy than any
        unseen card of the same face: one joker known and the other unseen
        may both be written ``JK``, parsed apart (code 104 twice).
    decks, jokers_per_deck : int, optional
        The game's deck, for checking the cards: a face may be given in
        ``unseen`` and ``known`` together at most as often as the deck holds
        it (``decks`` copies of a natural card, ``decks * jokers_per_deck``
        jokers). By default the largest deck any rules allow (2 decks of 4
        jokers each).

    exact : bool
        Return the probability as an exact ``Fraction``.

    Returns
    -------
    float or Fraction
        P(at least one opponent's hand value is at most ``caller_value``).

    Notes
    -----
    By inclusion and exclusion over the sets of opponents, all the terms in
    one count (see :func:`_none_low`): the unseen cards are dealt by value,
    card by card, to the opponents that must be low, and opponents alike in
    cards still needed and points still allowed share a state. It takes
    up to 7 opponents of up to 7 unknown cards each (any table the rules
    allow); beyond that a slower count per set of opponents is used. Most
    situations take milliseconds and seven opponents at 11 points about a
    tenth of a second; the slowest are seven opponents of 4 or 5 cards
    against a 15-point call with two decks, 2 to 10 s
    (``bench/bench_odds.py``, ``docs/performance.md``).
    """
    opponent_cards = [int(c) for c in opponent_cards]
    if not opponent_cards:
        raise ValueError("opponent_cards: give at least one opponent")
    if any(c < 0 for c in opponent_cards):
        raise ValueError(f"opponent_cards: {opponent_cards} has a negative count")
    unseen = np.asarray(unseen, dtype=np.int64).ravel()
    if len(np.unique(unseen)) != len(unseen):
        raise ValueError("unseen: a card is listed twice; each card can be unseen only once")
    if known is None:
        known = [[] for _ in opponent_cards]
    known = [np.asarray(k, dtype=np.int64).ravel() for k in known]
    if len(known) != len(opponent_cards):
        raise ValueError(
            f"known: {len(known)} entries for {len(opponent_cards)} opponents; give one per "
            "opponent (an empty list for none)"
        )
    for i, k in enumerate(known):
        if len(np.unique(k)) != len(k):
            raise ValueError(f"known: opponent {i + 1}'s cards list a card code twice")
    seen_known = np.concatenate(known) if known else np.zeros(0, np.int64)
    _check_copies(unseen, seen_known, decks, jokers_per_deck)
    for i, (cards, k) in enumerate(zip(opponent_cards, known, strict=True)):
        if len(k) > cards:
            raise ValueError(
                f"known: opponent {i + 1} holds {cards} cards but {len(k)} are given as known"
            )
    unknown = sum(opponent_cards) - len(seen_known)
    if unknown > len(unseen):
        raise ValueError(
            f"the opponents hold {unknown} unknown cards but only {len(unseen)} are unseen"
        )
    result = _risk(int(caller_value), opponent_cards, unseen, known)
    return result if exact else float(result)


def _risk(caller_value: int, opponent_cards, unseen, known) -> Fraction:
    """The exact risk of :func:`p_assaf`, for checked arguments."""
    if caller_value < 0:
        return Fraction(0)
    members = []
    for cards, k in zip(opponent_cards, known, strict=True):
        budget = caller_value - int(VALUE[k].sum()) if len(k) else caller_value
        if budget < 0:
            continue  # this opponent's known cards alone beat the caller's value
        if budget >= 10 * (cards - len(k)):
            return Fraction(1)  # low whatever it holds (every card known, for one)
        members.append((cards - len(k), budget))
    if not members:
        return Fraction(0)
    counts = tuple(int(c) for c in np.bincount(VALUE[unseen], minlength=11))
    if len(members) <= SLOTS and max(n for n, _ in members) <= MAX_NEED:
        return 1 - _none_low(members, counts, len(unseen))
    # beyond any table (more than 7 opponents or cards): one count per set of opponents
    joint = lru_cache(maxsize=None)(lambda group: _all_low(group, counts, len(unseen)))
    result = Fraction(0)
    for size in range(1, len(members) + 1):
        for group in combinations(range(len(members)), size):
            term = joint(tuple(sorted(members[i] for i in group)))
            result += term if size % 2 else -term
    return result
