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

from fractions import Fraction
from functools import lru_cache
from itertools import combinations
from math import comb

import numpy as np

from yaniv_sim import _assaf_halves as halves
from yaniv_sim._assaf_count import MAX_NEED, SLOTS, CountTooLarge, none_low
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

__all__ = ["CountTooLarge", "hand_value_distribution", "p_assaf", "p_dealt_at_most"]


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
        Return the probability as an exact ``Fraction`` (the count in
        integers, modulo primes: slower, 21 s for the input that was the
        slowest float, seven opponents of 5 cards with six known low cards
        and two decks of 4 jokers). By default the probability is counted
        in floating point, with no sampling and within 1e-13 of the
        fraction (tested): by the
        opponents in two halves (see Notes), rounding only; or, where
        opponents are alike in groups, by the integer count's own steps in
        floats, where rounding and, in the largest counts, the states that
        matter least left out (each replaced by the middle of what it could
        add, between nothing and a bound, so that the error, a bound and
        not an estimate, adds up to at most 4e-14) keep it there.

    Returns
    -------
    float or Fraction
        P(at least one opponent's hand value is at most ``caller_value``).

    Raises
    ------
    ValueError
        Arguments that do not describe a table (the message says which).
    yaniv_sim.odds.CountTooLarge
        A situation far beyond any table the rules allow (a ``MemoryError``):
        the count would need a block of memory larger than the system has
        available, so it stops before taking it.

    Notes
    -----
    By inclusion and exclusion over the sets of opponents, all the terms in
    one count. The float: the opponents are cut in two halves; each half's
    low hands, with their signs, are summed by the cards of each value they
    use, and the two halves are met one value at a time, since the ways to
    deal a value's cards depend only on how many of them both halves take
    (see :mod:`yaniv_sim._assaf_halves`). Where opponents are alike in
    groups (the same unknown cards and points allowed: four or more, or
    three groups, or three and two, or two pairs with over 31 unknown
    cards in all), the other count is the faster and runs instead: the
    unseen cards dealt by value, card by card, to the opponents that must
    be low, opponents alike sharing a state (:func:`yaniv_sim._assaf_count.none_low`; the exact
    fraction always comes from it). It takes up to 7 opponents of up to 7
    unknown cards each (any table the rules allow); beyond that a slower
    count per set of opponents is used (exact, a float of the fraction
    unless ``exact``). Most situations take milliseconds; the slowest
    found take up to 0.95 s on an idle 2-core machine: seven opponents of
    3 to 6 cards against a 15-point call with two decks of 4 jokers, some
    alike, some holding a low card taken from the pile
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
    result = _risk(int(caller_value), opponent_cards, unseen, known, exact)
    return result if exact else float(result)


def _risk(caller_value: int, opponent_cards, unseen, known, exact: bool) -> Fraction | float:
    """The risk of :func:`p_assaf`, for checked arguments (a float unless ``exact``)."""
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
        if not exact:
            # the opponents in two halves, unless the other count is the faster
            none = halves.none_low(members, counts, len(unseen))
            if none is not None:
                return 1 - min(max(none, 0.0), 1.0)
        return 1 - none_low(members, counts, len(unseen), exact)
    # beyond any table (more than 7 opponents or cards): one count per set of opponents
    joint = lru_cache(maxsize=None)(lambda group: _all_low(group, counts, len(unseen)))
    result = Fraction(0)
    for size in range(1, len(members) + 1):
        for group in combinations(range(len(members)), size):
            term = joint(tuple(sorted(members[i] for i in group)))
            result += term if size % 2 else -term
    return result
