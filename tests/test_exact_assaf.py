"""Exact multi-opponent Assaf odds against brute force and Monte-Carlo draws."""

from __future__ import annotations

import itertools
from fractions import Fraction
from math import comb

import numpy as np
import pytest

from yaniv_sim.cards import VALUE, deck_codes, parse_cards
from yaniv_sim.odds import hand_value_distribution, p_assaf

DECK = deck_codes(1, 2)


def _brute(value, cards, unseen, known):
    """Every ordered deal of the unknown cards, counted directly."""
    unknown = [c - len(k) for c, k in zip(cards, known, strict=True)]
    base = [int(VALUE[np.asarray(k, dtype=np.int64)].sum()) if k else 0 for k in known]
    hits = total = 0
    for deal in itertools.permutations(range(len(unseen)), sum(unknown)):
        at = 0
        low = False
        for u, b in zip(unknown, base, strict=True):
            low |= b + sum(int(VALUE[unseen[i]]) for i in deal[at : at + u]) <= value
            at += u
        hits += low
        total += 1
    return hits / total


@pytest.mark.parametrize("seed", range(12))
def test_equals_brute_force_on_small_cases(seed):
    rng = np.random.default_rng(seed)
    pool = rng.choice(DECK, size=11, replace=False)
    unseen, spare = pool[:9], pool[9:]
    cards = [[1, 2], [2, 2], [3, 1, 1], [2, 1, 2]][seed % 4]
    known = [[] for _ in cards]
    if seed % 3 == 0:
        known[0] = [int(spare[0])]
        cards[0] += 1
    value = int(rng.integers(0, 10))
    assert p_assaf(value, cards, unseen, known) == pytest.approx(
        _brute(value, cards, unseen, known), abs=1e-12
    )


def test_one_opponent_is_the_hand_value_distribution():
    unseen = np.setdiff1d(DECK, parse_cards("AS 2D 3C 9H"))
    dist = hand_value_distribution(unseen, 4)
    for value in (0, 3, 7, 12):
        assert p_assaf(value, [4], unseen) == pytest.approx(dist[: value + 1].sum(), abs=1e-12)


def test_agrees_with_a_monte_carlo_draw():
    hand = parse_cards("AS 2D 3C")
    known = parse_cards("4H")
    unseen = np.setdiff1d(DECK, np.concatenate([hand, known]))
    cards = [5, 4, 2]
    exact = p_assaf(6, cards, unseen, [[], [], known.tolist()])
    rng = np.random.default_rng(7)
    draws = 200_000
    values = VALUE[unseen]
    order = np.argsort(rng.random((draws, len(unseen))), axis=1)[:, :10]
    picked = values[order]
    low = (
        (picked[:, :5].sum(axis=1) <= 6)
        | (picked[:, 5:9].sum(axis=1) <= 6)
        | (picked[:, 9:10].sum(axis=1) + VALUE[known[0]] <= 6)
    )
    se = np.sqrt(exact * (1 - exact) / draws)
    assert abs(low.mean() - exact) < 5 * se


def test_bounds_and_monotone():
    unseen = np.setdiff1d(DECK, parse_cards("5S 5D"))
    risks = [p_assaf(v, [3, 2], unseen) for v in range(-1, 61)]
    assert risks[0] == 0.0 and risks[-1] == pytest.approx(1.0)
    assert all(a <= b + 1e-15 for a, b in itertools.pairwise(risks))
    # the lowest possible three-card hand of this pool is two jokers and an ace: 1
    assert p_assaf(0, [3], unseen) == 0.0
    assert p_assaf(1, [3], unseen) > 0.0


def test_opponents_in_any_order():
    unseen = np.setdiff1d(DECK, parse_cards("AS 2D JK"))
    known = [[], parse_cards("JK").tolist(), []]
    cards = [5, 3, 2]
    a = p_assaf(5, cards, unseen, known)
    b = p_assaf(5, cards[::-1], unseen, known[::-1])
    assert a == pytest.approx(b, abs=1e-14)


def test_known_cards_decide_alone():
    unseen = np.setdiff1d(DECK, parse_cards("AS JK KD"))
    # an opponent whose two cards are both known, a joker and the ace: value 1
    assert p_assaf(1, [2], unseen, [parse_cards("JK AS").tolist()]) == 1.0
    assert p_assaf(1, [3], unseen, [parse_cards("KD").tolist()]) == 0.0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((5, [], DECK), "at least one opponent"),
        ((5, [-1], DECK), "negative"),
        ((5, [2], np.r_[DECK, DECK[:1]]), "listed twice"),
        ((5, [2, 2], DECK[1:], [[int(DECK[0])]]), "one per opponent"),
        ((5, [2], DECK, [[int(DECK[0])]], 1, 2), "known: AS is given 2 times"),
        ((5, [2], DECK[2:], [[0, 0]], 2, 2), "card code twice"),
        ((5, [2], parse_cards("JK JK 2S"), [parse_cards("JK").tolist()], 1, 2), "known: JK .* 3"),
        ((5, [2], parse_cards("AS AS 2S"), [[]], 1, 2), "unseen: AS is given 2 times"),
        ((5, [1], DECK[2:], [[int(DECK[0]), int(DECK[1])]]), "holds 1 cards"),
        ((5, [5, 5], DECK[:8]), "only 8 are unseen"),
    ],
)
def test_errors(args, message):
    deck = dict(zip(("decks", "jokers_per_deck"), args[4:], strict=False))
    with pytest.raises(ValueError, match=message):
        p_assaf(*args[:4], **deck)


# Card values written out here, apart from the package's tables
_POINTS = {"A": 1, "J": 10, "Q": 10, "K": 10}


def _points(card: str) -> int:
    if card == "JK":
        return 0
    rank = card[:-1]
    return _POINTS.get(rank, int(rank) if rank.isdigit() else 0)


def _brute_text(value, cards, unseen_text, known_text):
    """Every way to deal the unseen cards (each a distinct physical card) to the opponents.

    The opponents' unknown hands are dealt one after another as unordered
    sets from what is left; a deal counts when some opponent's known and
    dealt cards are worth at most ``value``.
    """
    pool = unseen_text.split()
    base = [sum(_points(c) for c in k.split()) for k in known_text]
    need = [c - len(k.split()) for c, k in zip(cards, known_text, strict=True)]

    def deal(i, left):
        if i == len(need):
            return 0, 1
        hits = total = 0
        for hand in itertools.combinations(left, need[i]):
            rest = list(left)
            for j in hand:
                rest.remove(j)
            low = base[i] + sum(_points(pool[j]) for j in hand) <= value
            h, t = deal(i + 1, rest)
            hits += t if low else h
            total += t
        return hits, total

    hits, total = deal(0, list(range(len(pool))))
    return Fraction(hits, total)


@pytest.mark.parametrize(
    ("value", "cards", "unseen", "known", "decks"),
    [
        # one joker known in opponent 1's hand, the other unseen; both written JK
        (3, [2, 3], "JK 3S 4H 5D 9C KS AH 2C", ["JK", ""], 1),
        (0, [2, 2], "JK 3S 4H 5D 9C KS", ["JK", ""], 1),
        (4, [3, 2, 2], "JK 2S 3H 7D 9C QS AH", ["", "JK", ""], 1),
        # two decks: a copy of the same card known and unseen, and two jokers known
        (5, [3, 3], "AS 4H 9C KS JK 3D 5S 5S", ["AS 4H", ""], 2),
        (6, [3, 2], "8S 8S 2D JK JK 5C 7H", ["2D", "JK"], 2),
        (1, [2, 2, 1], "JK 2S 2S AH 6D 10C", ["JK", "JK", ""], 2),
    ],
)
def test_split_copies_between_unseen_and_known(value, cards, unseen, known, decks):
    got = p_assaf(
        value,
        cards,
        parse_cards(unseen),
        [parse_cards(k).tolist() if k else [] for k in known],
        decks=decks,
        jokers_per_deck=2,
    )
    expected = _brute_text(value, cards, unseen, known)
    assert 0 < expected < 1
    assert got == pytest.approx(float(expected), abs=1e-12)


@pytest.mark.parametrize("seed", range(16))
def test_exact_fraction_equals_brute_force(seed):
    """Up to five opponents, jokers and both decks' copies among 10 unseen cards."""
    rng = np.random.default_rng(100 + seed)
    ranks = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
    deck = [r + s for r in ranks for s in "SHDC"] * 2 + ["JK"] * 4
    picked = [deck[i] for i in rng.choice(len(deck), size=13, replace=False)]
    unseen, spare = picked[:10], picked[10:]
    cards = [int(c) for c in rng.integers(1, 3, size=int(rng.integers(2, 6)))]
    while sum(cards) > 10:
        cards.pop()
    known = [""] * len(cards)
    if seed % 2:
        known[0] = spare[0]
        cards[0] += 1
    value = int(rng.integers(0, 12))
    got = p_assaf(
        value,
        cards,
        parse_cards(" ".join(unseen)),
        [parse_cards(k).tolist() if k else [] for k in known],
        decks=2,
        jokers_per_deck=2 if seed % 4 < 2 else 4,
        exact=True,
    )
    assert got == _brute_text(value, cards, " ".join(unseen), known)


# Exact values from the earlier count (one inclusion-exclusion term per set of
# opponents, each by a deal opponent after opponent), each checked by a
# Monte-Carlo draw of 400,000 deals (within 2 standard errors).
MEDIUM = [
    (9, [3, 3, 2, 2], 2, 2, "4S 5H", ["", "", "", ""],
     Fraction(3542894597914537, 7167038933179125)),
    (7, [5, 4, 2], 1, 2, "3S 4H", ["", "AS", "2D"], Fraction(116048109841, 315684646200)),
    (7, [5] * 5, 2, 2, "3S 4H", [""] * 5,
     Fraction(288530640650299004728003, 161687344156501611629193012)),
]  # fmt: skip


@pytest.mark.parametrize(("value", "cards", "decks", "jokers", "hand", "known", "expected"), MEDIUM)
def test_equals_the_earlier_count_on_medium_cases(
    value, cards, decks, jokers, hand, known, expected
):
    codes = parse_cards(" ".join([hand, *known]))
    mine = len(parse_cards(hand))
    known_codes = []
    at = mine
    for k in known:
        n = len(parse_cards(k)) if k else 0
        known_codes.append(codes[at : at + n].tolist())
        at += n
    unseen = np.setdiff1d(deck_codes(decks, jokers), codes)
    got = p_assaf(
        value, cards, unseen, known_codes, decks=decks, jokers_per_deck=jokers, exact=True
    )
    assert got == expected


def _split_deal(rng, decks, jokers):
    """Unseen cards and known cards that share a natural card's two copies and the jokers.

    Returns ``(unseen text, known texts, opponents' card counts)``: one copy
    of a natural card and some jokers unseen, the other copy and another
    joker known, 2 or 3 opponents of 1 to 3 unknown cards.
    """
    ranks = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
    faces = [r + s for r in ranks for s in "SHDC"]
    shared = faces[int(rng.integers(len(faces)))]
    others = [f for f in faces if f != shared]
    unseen = [shared] + ["JK"] * int(rng.integers(1, decks * jokers))
    unseen += [others[i] for i in rng.choice(len(others), size=9 - len(unseen), replace=False)]
    cards = [int(c) for c in rng.integers(1, 4, size=int(rng.integers(2, 4)))]
    while sum(cards) > 6:
        cards.pop()
    known = [""] * len(cards)
    known[0] = shared
    known[-1] = (known[-1] + " JK").strip()
    for i, k in enumerate(known):
        cards[i] += len(k.split())
    return " ".join(unseen), known, cards


@pytest.mark.parametrize("seed", range(24))
def test_count_equals_brute_force_with_split_copies(seed):
    """Copies of a card and jokers split between unseen and known, any caller's value."""
    rng = np.random.default_rng(500 + seed)
    decks, jokers = 2, (2, 4)[seed % 2]
    unseen, known, cards = _split_deal(rng, decks, jokers)
    for value in sorted({int(v) for v in rng.integers(0, 16, size=3)}):
        got = p_assaf(
            value,
            cards,
            parse_cards(unseen),
            [parse_cards(k).tolist() if k else [] for k in known],
            decks=decks,
            jokers_per_deck=jokers,
            exact=True,
        )
        assert got == _brute_text(value, cards, unseen, known), (value, cards, unseen, known)


@pytest.mark.parametrize("seed", range(6))
def test_count_equals_brute_force_with_many_small_hands(seed):
    """Five to seven opponents of one or two cards: alike members, members leaving early."""
    rng = np.random.default_rng(700 + seed)
    ranks = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
    deck = [r + s for r in ranks for s in "SHDC"] * 2 + ["JK"] * 4
    unseen = [deck[i] for i in rng.choice(len(deck), size=9, replace=False)]
    cards = [1] * int(rng.integers(5, 8))
    if seed % 2:
        cards[0] = cards[1] = 2
    value = int(rng.integers(0, 12))
    got = p_assaf(
        value, cards, parse_cards(" ".join(unseen)), decks=2, jokers_per_deck=2, exact=True
    )
    assert got == _brute_text(value, cards, " ".join(unseen), [""] * len(cards))


def test_count_with_tables_that_keep_growing(monkeypatch):
    """Tables sized far too small: their states move to larger ones mid-step, same count."""
    import yaniv_sim._assaf_count as count

    unseen = np.setdiff1d(deck_codes(2, 2), parse_cards("7S 8H"))
    expected = p_assaf(15, [3] * 7, unseen, exact=True)
    grown = []
    grow = count._grow
    monkeypatch.setattr(count, "_MARGIN", 0.05)
    monkeypatch.setattr(count, "_grow", lambda small, big: grown.append(1) or grow(small, big))
    assert p_assaf(15, [3] * 7, unseen, exact=True) == expected
    assert len(grown) > 10


@pytest.mark.parametrize("drop_from", [None, 1])
def test_the_float_count_is_the_same_on_any_number_of_threads(monkeypatch, drop_from):
    # the float count's steps are cut in _PARTS parts, run on as many threads as there are
    # processors (one a part at most) when a step is large: the same parts and the same order
    # of additions on one thread or many, so the same float on any machine; with drop_from=1
    # every check leaves states out, on any number of threads
    import yaniv_sim._assaf_count as count

    if drop_from is not None:
        monkeypatch.setattr(count, "_DROP_FROM", drop_from)
        monkeypatch.setattr(count, "DROP_BUDGET", 1e-6)
    unseen = np.setdiff1d(deck_codes(2, 2), parse_cards("7S 8H"))
    exact = p_assaf(15, [3] * 7, unseen, exact=True)
    real = count._run
    used = []
    monkeypatch.setattr(
        count, "_run", lambda jobs, threaded: used.append(threaded) or real(jobs, threaded)
    )
    runs = []
    # no step on threads; then every step on threads, with 1, 2, 3 and 8 or more processors
    for cores, threaded in ((2, 10**12), (1, 1), (2, 1), (3, 1), (count._PARTS + 4, 1)):
        monkeypatch.setattr(count, "_THREADED", threaded)
        monkeypatch.setattr(count, "_cores", lambda cores=cores: cores)
        monkeypatch.setattr(count, "_pool", None)
        used.clear()
        runs.append(p_assaf(15, [3] * 7, unseen))
        assert all(used) and len(used) > 100 if threaded == 1 else not any(used)
        if threaded == 1 and cores > 1:
            assert count._pool[1]._max_workers == min(cores, count._PARTS)
        else:
            assert count._pool is None
    assert len(set(runs)) == 1
    assert abs(runs[0] - float(exact)) < (1e-13 if drop_from is None else 1e-6)


def test_the_smallest_table_holds_one_more_batch_when_full():
    # a step checks a table's fill between batches of additions: a table at its fill
    # limit must still take a whole batch, or the probing for a free place never ends
    import yaniv_sim._assaf_count as count

    assert count._MIN_PLACES - int(count._LOAD * count._MIN_PLACES) > count._BATCH
    for states in (1, 50, 300, 10_000):
        size = count._Tables(count._Modular.width).take(states).shape[0]
        assert size - int(count._LOAD * size) > count._BATCH


def test_seven_seven_card_opponents_take_two_counts():
    # more unknown cards than one count's primes cover (it takes 8 primes, a count has 7):
    # counted twice; the exact value of the earlier count (one count per set of opponents,
    # then one over all sets)
    unseen = np.setdiff1d(deck_codes(2, 2), parse_cards("7S 8H"))
    assert p_assaf(15, [7] * 7, unseen, exact=True) == Fraction(
        29771803889363435180120857176707, 10062383857116409815397673577247800
    )


def test_seven_two_card_opponents_at_eleven():
    # the earlier count took a minute here and gave 0.978729638383 (to 12 places); a
    # Monte-Carlo draw of 400,000 deals gave 0.97883, 0.4 standard errors away
    unseen = np.setdiff1d(deck_codes(2, 2), parse_cards("5S 6H"))
    assert p_assaf(11, [2] * 7, unseen) == pytest.approx(0.978729638383, abs=1e-12)


def test_advisor_with_one_joker_taken_and_the_other_unseen():
    from yaniv_sim.advice import advise

    advice = advise("AS 2D", [2, 1], took={1: "JK"})
    ranks = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
    deck = [r + s for r in ranks for s in "SHDC"] + ["JK"]  # one joker left unseen
    unseen = " ".join(c for c in deck if c not in ("AS", "2D"))
    expected = _brute_text(3, [2, 1], unseen, ["JK", ""])
    assert advice.unseen == 51
    assert advice.exact_risk == pytest.approx(float(expected), abs=1e-12)


@pytest.mark.parametrize("seed", range(60))
def test_the_float_is_the_exact_fraction_to_rounding(seed):
    # p_assaf's float comes from the same count in floating point (a signed sum whose
    # terms add up to at most 2**7 in absolute value): it must be the exact fraction's
    # value to rounding, for any deck, known cards, and risks near 0 or 1
    rng = np.random.default_rng(1000 + seed)
    decks, jokers = 1 + seed % 2, int(rng.integers(0, 5))
    deck = rng.permutation(deck_codes(decks, jokers))
    opponents = int(rng.integers(1, 8))
    most = 7 if opponents <= 3 else 4
    cards = [int(c) for c in rng.integers(1, most + 1, opponents)]
    at = 5  # the caller's hand: the first cards of the deck
    known = []
    for c in cards:
        k = int(rng.integers(0, 3)) if c > 1 and rng.random() < 0.4 else 0
        known.append(deck[at : at + k].tolist())
        at += k
    unseen = deck[at:]
    value = int(rng.integers(0, 16))
    exact = p_assaf(value, cards, unseen, known, decks=decks, jokers_per_deck=jokers, exact=True)
    got = p_assaf(value, cards, unseen, known, decks=decks, jokers_per_deck=jokers)
    assert isinstance(got, float)
    assert abs(got - float(exact)) < 1e-13, (value, cards, known)


def test_blocks_kept_from_earlier_counts_give_the_same_floats(monkeypatch):
    # a float count writes into the large blocks an earlier count left (not cleared): the
    # same floats as on fresh blocks, in turn and on two threads at once
    from concurrent.futures import ThreadPoolExecutor

    import yaniv_sim._assaf_count as count

    monkeypatch.setattr(count, "_LARGE", 64)  # every block past its first size is kept
    monkeypatch.setattr(count, "_RESERVE", 1 << 21)  # room for every step of these counts
    monkeypatch.setattr(count, "_THREADED", 1)
    monkeypatch.setattr(count, "_KEPT", [])
    unseen = np.setdiff1d(deck_codes(2, 2), parse_cards("7S 8H"))
    # opponents alike in three groups or more: counted by this count, not by halves
    cases = [(15, [3] * 7), (12, [4, 4, 5, 5, 2, 2]), (9, [1, 3, 3, 5, 5, 7, 7])]

    def fresh(case):
        count._KEPT.clear()
        return p_assaf(case[0], case[1], unseen)

    expected = [fresh(case) for case in cases]
    first = {id(block) for block in count._KEPT}
    assert len(first) == 4  # state, spare, the additions, the additions in bucket order
    again = [p_assaf(v, cards, unseen) for v, cards in cases[::-1] + cases]
    assert again == expected[::-1] + expected
    assert {id(block) for block in count._KEPT} == first  # the same blocks, used again
    with ThreadPoolExecutor(2) as pool:
        both = list(pool.map(lambda case: p_assaf(case[0], case[1], unseen), cases * 4))
    assert both == expected * 4
    assert len(count._KEPT) <= 4  # one count's blocks at most


def _threaded_count(_):
    unseen = np.setdiff1d(deck_codes(2, 2), parse_cards("7S 8H"))
    return p_assaf(15, [3] * 7, unseen)


def test_the_threaded_count_in_a_forked_process(monkeypatch):
    # the parent's threads do not survive a fork: a forked worker (the report's
    # simulations fork) must start its own, not wait for threads that are gone
    import multiprocessing

    import yaniv_sim._assaf_count as count

    monkeypatch.setattr(count, "_THREADED", 1)  # every step on two threads
    here = _threaded_count(0)
    assert count._pool is not None
    with multiprocessing.get_context("fork").Pool(1) as pool:
        there = pool.apply_async(_threaded_count, (0,)).get(timeout=120)
    assert there == here


def _left_out_recorder(
    monkeypatch, budget: float, drop_from: int, halfway_from: int | None = None
) -> list:
    """Make the float count leave states out from ``drop_from`` states up to ``budget``.

    ``halfway_from``: the fewest states from which a value is checked halfway
    through its cards as well (unchanged if None). Returns the list the
    error bounds of the states left out are appended to, one a count.
    """
    import yaniv_sim._assaf_count as count
    import yaniv_sim._assaf_halves as halves

    monkeypatch.setattr(halves, "none_low", lambda *args: None)  # every float by this count
    monkeypatch.setattr(count, "DROP_BUDGET", budget)
    monkeypatch.setattr(count, "_DROP_FROM", drop_from)
    if halfway_from is not None:
        monkeypatch.setattr(count, "_HALFWAY_FROM", halfway_from)
    real = count._count_float
    left_out = []

    def recording(*args, **kwargs):
        value, gone = real(*args, **kwargs)
        left_out.append(gone)
        return value, gone

    monkeypatch.setattr(count, "_count_float", recording)
    return left_out


@pytest.mark.parametrize("halfway", [False, True], ids=["between values", "halfway too"])
@pytest.mark.parametrize("seed", range(10))
def test_states_left_out_move_the_float_by_at_most_their_bounds(monkeypatch, seed, halfway):
    # with a budget far above the float's rounding, the float count leaves many states
    # out, each replaced by the middle of what it can add: the float must still be within
    # half the sum of their bounds of the exact fraction (which it reports as left out)
    rng = np.random.default_rng(100 + seed)
    decks, jokers = (2, int(rng.choice([2, 4]))) if seed % 3 else (1, 2)
    hand = rng.choice(deck_codes(decks, jokers), size=2, replace=False)
    unseen = np.setdiff1d(deck_codes(decks, jokers), hand)
    opponents = [int(c) for c in rng.integers(2, 6, size=int(rng.integers(3, 8)))]
    known = [[] for _ in opponents]
    if seed % 2:
        took = rng.choice(unseen, size=2, replace=False)
        unseen = np.setdiff1d(unseen, took)
        known[0], known[1] = [int(took[0])], [int(took[1])]
    value = int(rng.integers(7, 16))
    exact = p_assaf(value, opponents, unseen, known, exact=True)
    # halfway: states are left out only at the checks halfway through a value's cards
    never = 1 << 62
    left_out = _left_out_recorder(
        monkeypatch,
        budget=0.05,
        drop_from=never if halfway else 1,
        halfway_from=1 if halfway else never,
    )
    got = p_assaf(value, opponents, unseen, known)
    assert len(left_out) == 1 and left_out[0] <= 0.05
    assert abs(got - float(exact)) <= left_out[0] + 1e-14, (got, float(exact), left_out)
    if seed % 3:  # two decks: enough states for the budget to buy something
        assert left_out[0] > 1e-4


def test_the_slowest_count_leaves_states_out_and_stays_within_1e_13(monkeypatch):
    # seven opponents of 5 cards against 15 points, two decks of 4 jokers: the terms of
    # six and seven opponents are tiny, and about three quarters of the states at the peak go
    unseen = np.setdiff1d(deck_codes(2, 4), parse_cards("7S 8H"))
    exact = p_assaf(15, [5] * 7, unseen, exact=True)
    import yaniv_sim._assaf_count as count

    left_out = _left_out_recorder(monkeypatch, budget=count.DROP_BUDGET, drop_from=count._DROP_FROM)
    got = p_assaf(15, [5] * 7, unseen)
    assert 1e-15 < left_out[0] <= 4e-14
    assert abs(got - float(exact)) < 1e-13


@pytest.mark.parametrize("seed", range(8))
def test_the_bound_of_a_state_is_exact_for_two_members_and_above_the_ways_for_more(seed):
    # a state's bound (the lowest cards handed out for real, the members' other cards
    # bounded pair by pair) must never be below the ways its members can still all be low,
    # or leaving it out could move the float by more than the budget; for one or two
    # members it is exact (the ways counted opponent by opponent, odds._all_low's way)
    import yaniv_sim._assaf_count as count
    from yaniv_sim.odds import _all_low

    rng = np.random.default_rng(500 + seed)
    rest = [int(x) for x in rng.integers(0, 3, size=11)]
    rest[int(rng.integers(0, 4))] += 2  # some low cards to fight over
    poly = np.zeros((2, count._POLY))
    states = []
    for _ in range(12):
        m = int(rng.integers(1, 5))
        members = []
        for _ in range(m):
            n = int(rng.integers(1, 4))
            members.append((n, int(rng.integers(0, min(10 * n, 15) + 1))))
        codes = sorted(int(count.PAIR_CODE[n, r]) for n, r in members)
        key = sum(c << (count._BITS * p) for p, c in enumerate(codes))
        key |= sum(count._NONE << (count._BITS * p) for p in range(m, count.SLOTS))
        order = [(int(count.CODE_NEED[c]), int(count.CODE_ROOM[c])) for c in codes]
        states.append((key, order))
    completions = count._completions(tuple(rest), sum(rest), 15)
    for key, members in states:
        left, deals = sum(rest), 1
        for n, _ in members:
            deals *= comb(left, n)
            left -= n
        ways = _all_low(tuple(members), tuple(rest), sum(rest)) * deals
        _, bound = count._bound_class(key, 1.0, completions, poly)
        if len(members) <= 2:
            assert bound == pytest.approx(ways, rel=1e-12, abs=1e-9), (members, rest)
        else:
            assert bound >= ways * (1 - 1e-12), (members, rest, bound, ways)


@pytest.mark.parametrize("exact", [False, True])
def test_a_count_larger_than_the_memory_available_stops_with_a_message(monkeypatch, exact):
    # a count whose next block would not fit in the memory the system has left refuses it
    # before taking it (a library call far beyond any table could otherwise exhaust the
    # machine); with room enough the same count runs as before
    import yaniv_sim._assaf_count as count
    from yaniv_sim.odds import CountTooLarge

    unseen = np.setdiff1d(deck_codes(2, 2), parse_cards("5S 6H"))
    expected = p_assaf(11, [5] * 7, unseen, exact=exact)
    monkeypatch.setattr(count, "_KEPT", [])
    monkeypatch.setattr(count, "_available_bytes", lambda: 1 << 20)  # 1 MB left
    with pytest.raises(CountTooLarge, match=r"needs a block of .* GB but only 0\.0 GB"):
        p_assaf(11, [5] * 7, unseen, exact=exact)
    monkeypatch.setattr(count, "_available_bytes", lambda: 1 << 40)
    assert p_assaf(11, [5] * 7, unseen, exact=exact) == expected
    monkeypatch.setattr(count, "_available_bytes", lambda: None)  # a system that does not say
    assert p_assaf(11, [5] * 7, unseen, exact=exact) == expected


def test_memory_available_is_read_from_the_system():
    import os

    import yaniv_sim._assaf_count as count

    free = count._available_bytes()
    if not os.path.exists("/proc/meminfo"):
        assert free is None
        return
    total = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    unused = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    assert free is not None
    assert unused // 2 < free <= total  # bytes (not kB): at least about the memory unused


@pytest.mark.parametrize("off", [-3e-14, 3e-14])
def test_the_float_count_stays_a_probability_when_the_states_left_out_push_it_over(
    monkeypatch, off
):
    # the states left out are replaced by the middle of what they could add, so a count
    # whose true value is 0 or 1 can come out up to the allowance beyond it: it is kept
    # within [0, 1] (which only brings it closer)
    import yaniv_sim._assaf_count as count

    real = count._count_float
    monkeypatch.setattr(count, "_count_float", lambda *args: (real(*args)[0] + off, abs(off)))
    # one opponent of one card against a caller of 0: low only with a joker
    got = count.none_low([(1, 0)], (2,) + (4,) * 9 + (16,), 54, exact=False)
    exact = count.none_low([(1, 0)], (2,) + (4,) * 9 + (16,), 54, exact=True)
    assert exact == Fraction(52, 54)
    assert got == pytest.approx(52 / 54 + off, abs=1e-15)
    # and where the truth is 1 (no opponent can be low: no card is worth 0)
    got = count.none_low([(1, 0)], (0,) + (4,) * 9 + (16,), 52, exact=False)
    assert got == (1.0 if off > 0 else pytest.approx(1.0 + off, abs=1e-15))
