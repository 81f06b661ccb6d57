"""The float Assaf count with the opponents in two halves, against the exact count."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest

import yaniv_sim._assaf_count as count
import yaniv_sim._assaf_halves as halves
from yaniv_sim.cards import VALUE, deck_codes, parse_cards
from yaniv_sim.odds import p_assaf


def _counts(unseen) -> tuple[int, ...]:
    return tuple(int(c) for c in np.bincount(VALUE[np.asarray(unseen)], minlength=11))


def _brute_none_low(members, values) -> Fraction:
    """P(no member is low), every ordered deal of the members' cards from ``values``."""
    hits = total = 0
    need = sum(n for n, _ in members)
    for deal in itertools.permutations(range(len(values)), need):
        at = 0
        low = False
        for n, budget in members:
            low |= sum(values[i] for i in deal[at : at + n]) <= budget
            at += n
        hits += not low
        total += 1
    return Fraction(hits, total)


@pytest.mark.parametrize("seed", range(16))
def test_equals_brute_force_on_small_decks(seed, monkeypatch):
    # every deal counted one by one, members alike or not (the other count's choice off)
    monkeypatch.setattr(halves, "_alike_enough", lambda members: False)
    rng = np.random.default_rng(seed)
    values = [int(v) for v in rng.choice(VALUE[deck_codes(1, 2)], size=9, replace=False)]
    members = [
        (int(n), int(rng.integers(0, 12))) for n in rng.integers(1, 3, int(rng.integers(1, 4)))
    ]
    counts = tuple(values.count(v) for v in range(11))
    got = halves.none_low(members, counts, len(values))
    assert got == pytest.approx(float(_brute_none_low(members, values)), abs=1e-14)


@pytest.mark.parametrize("seed", range(40))
def test_equals_the_exact_count(seed, monkeypatch):
    # any deck, known cards taken out, one to seven opponents alike or not: the float is
    # the exact fraction (the count modulo primes) to rounding
    monkeypatch.setattr(halves, "_alike_enough", lambda members: False)
    rng = np.random.default_rng(2000 + seed)
    decks, jokers = 1 + seed % 2, int(rng.integers(0, 5))
    deck = rng.permutation(deck_codes(decks, jokers))
    unseen = deck[int(rng.integers(2, 12)) :]
    opponents = int(rng.integers(1, 8))
    most = 6 if opponents <= 3 else 4
    members = [(int(rng.integers(1, most + 1)), int(rng.integers(0, 16))) for _ in range(opponents)]
    if seed % 4 == 0:  # some alike
        members[1:3] = [members[0]] * len(members[1:3])
    got = halves.none_low(members, _counts(unseen), len(unseen))
    exact = count.none_low(members, _counts(unseen), len(unseen), exact=True)
    assert isinstance(got, float)
    assert abs(got - float(exact)) < 1e-13, members


def test_no_card_low_enough_leaves_everyone_high():
    # no jokers and a budget of 0: no hand can be low, and no value is dealt at all
    unseen = np.setdiff1d(deck_codes(1, 0), parse_cards("AS"))
    assert halves.none_low([(1, 0), (2, 0)], _counts(unseen), len(unseen)) == 1.0
    assert p_assaf(0, [1, 2], unseen) == 0.0


def test_the_other_count_takes_opponents_alike_in_groups():
    alike = halves._alike_enough
    assert not alike([(4, 9), (4, 10), (4, 11)])
    assert not alike([(5, 15), (5, 15), (4, 14), (4, 13)])  # one pair
    assert not alike([(5, 15)] * 3 + [(4, 14), (4, 13), (4, 12), (4, 11)])  # one group of three
    assert alike([(5, 15)] * 4 + [(4, 14)])  # four alike
    assert alike([(5, 15)] * 3 + [(4, 14)] * 2)  # three and two
    assert alike([(5, 15), (5, 15), (4, 14), (4, 14), (4, 13), (4, 13)])  # three pairs
    # two pairs: by the unknown cards in all
    two_pairs = [(4, 15), (4, 15), (4, 14), (4, 14), (4, 13), (4, 12), (4, 11)]
    assert sum(n for n, _ in two_pairs) <= halves._FEW_CARDS
    assert not alike(two_pairs)
    assert alike([(5, 15), (5, 15), (4, 15), (4, 15), (5, 14), (4, 13), (5, 12)])
    unseen = np.setdiff1d(deck_codes(2, 2), parse_cards("7S 8H"))
    assert halves.none_low([(5, 15)] * 7, _counts(unseen), len(unseen)) is None
    assert halves.none_low(two_pairs, _counts(unseen), len(unseen)) is not None


def _counts_run(monkeypatch) -> list:
    """Record each run of the other count's float (the kept-apart count of ``_assaf_count``)."""
    runs = []
    real = count._count_float
    monkeypatch.setattr(count, "_count_float", lambda *args: runs.append(1) or real(*args))
    return runs


def test_p_assaf_counts_by_halves_unless_the_other_count_is_the_faster(monkeypatch):
    runs = _counts_run(monkeypatch)
    took = parse_cards("AD 3C")
    unseen = np.setdiff1d(deck_codes(2, 2), np.concatenate([parse_cards("7S 8H"), took]))
    cards, known = [1, 2, 3, 4, 5, 2, 3], [[], [], [], [], [], [int(took[0])], [int(took[1])]]
    by_halves = p_assaf(15, cards, unseen, known)
    assert runs == []
    assert abs(by_halves - float(p_assaf(15, cards, unseen, known, exact=True))) < 1e-13
    p_assaf(15, [3] * 7, unseen)
    assert runs == [1]


@pytest.mark.parametrize("limit", ["_HALF_MOST", "_MEET_MOST"])
def test_a_count_too_large_for_halves_goes_the_other_way(monkeypatch, limit):
    runs = _counts_run(monkeypatch)
    monkeypatch.setattr(halves, limit, 10)
    unseen = np.setdiff1d(deck_codes(2, 2), parse_cards("7S 8H"))
    members = [(5, 15), (4, 14), (4, 13), (4, 12)]
    assert halves.none_low(members, _counts(unseen), len(unseen)) is None
    took = parse_cards("AD 2D 3D")
    unseen = np.setdiff1d(unseen, took)
    known = [[], [int(took[0])], [int(took[1])], [int(took[2])]]
    got = p_assaf(15, [5] * 4, unseen, known)
    exact = p_assaf(15, [5] * 4, unseen, known, exact=True)
    assert runs == [1]
    assert abs(got - float(exact)) < 1e-13


def test_the_same_float_on_any_number_of_threads(monkeypatch):
    # each entry of a table is worked out the same way in any part on any thread
    unseen = np.setdiff1d(deck_codes(2, 2), parse_cards("7S 8H"))
    members = [(5, 15), (4, 14), (4, 13), (4, 12), (4, 11)]
    floats = []
    for cores in (1, 2, 3, count._PARTS + 4):
        monkeypatch.setattr(count, "_cores", lambda cores=cores: cores)
        floats.append(halves.none_low(members, _counts(unseen), len(unseen)))
    assert len(set(floats)) == 1


def test_blocks_kept_from_earlier_counts_give_the_same_float(monkeypatch):
    # the tables are written in blocks an earlier count left, not cleared: full of
    # anything, they give the same float as fresh memory
    unseen = np.setdiff1d(deck_codes(2, 4), parse_cards("7S 8H"))
    members = [(5, 15), (4, 14), (4, 13), (4, 12), (4, 11), (4, 10)]
    monkeypatch.setattr(count, "_KEPT", [])
    fresh = halves.none_low(members, _counts(unseen), len(unseen))
    stale = [np.full((1 << 23, 2), -1, np.int64) for _ in range(2)]  # every float NaN
    monkeypatch.setattr(count, "_KEPT", list(stale))
    assert halves.none_low(members, _counts(unseen), len(unseen)) == fresh
    assert all((block != -1).any() for block in stale)  # both were written in


@pytest.mark.slow
def test_the_slowest_advisor_input_is_the_exact_fraction_to_rounding(monkeypatch):
    # seven opponents of 5 cards, six holding AD to 6D, against 15 points, two decks of
    # 4 jokers: the slowest input of the advisor's exact risk before the halves (1.6 s),
    # counted by halves, within 1e-13 of the exact fraction
    runs = _counts_run(monkeypatch)
    took = parse_cards("AD 2D 3D 4D 5D 6D")
    unseen = np.setdiff1d(deck_codes(2, 4), np.concatenate([parse_cards("7S 8H"), took]))
    known = [[int(c)] for c in took] + [[]]
    got = p_assaf(15, [5] * 7, unseen, known)
    assert runs == []
    exact = p_assaf(15, [5] * 7, unseen, known, exact=True)
    assert abs(got - float(exact)) < 1e-13
    assert got == pytest.approx(0.251542391042, abs=1e-12)
