"""Legal discards, their layings, what the next player may take, and discard kinds.

Expected discards are written by hand from the rule book (section 3) and the project
decisions (one natural card with jokers, where jokers may stand in sets, may be
laid as a set or as a run, as the discarder chooses; runs are laid rising; a
joker may stand for a rank the player still holds; ace low, no wrap-around).

Discards are compared as lists of canonical keys: a run keeps its exact laid
order (rising); a set under ``set_draw="any"`` is order-free; a set of three
or more under ``set_draw="ends"`` is keyed by its unordered pair of end cards
and the cards between them. An expected laying is read as a set when it can be
(the engine's default reading) unless it is marked ``/run``.
"""

from __future__ import annotations

import itertools
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from yaniv_sim import Rules, format_cards, parse_cards
from yaniv_sim.engine import discard_kind, discard_kinds, legal_discards, legal_layings, takeable

STANDARD = Rules.preset("standard")
NORDIC = Rules.preset("nordic")
STANDARD_ENDS = Rules.preset("standard", set_draw="ends")
NORDIC_ANY = Rules.preset("nordic", set_draw="any")

RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]


def rank_of(card: str) -> int:
    return RANKS.index(card[:-1])


def key(laid: list[str], rules: Rules, kind: str | None = None):
    """Canonical key of one laid discard (see the module docstring)."""
    if len(laid) == 1:
        return ("single", laid[0])
    naturals = [c for c in laid if c != "JK"]
    jokers = len(laid) - len(naturals)
    one_rank = len({c[:-1] for c in naturals}) == 1
    if kind is None:
        kind = "set" if one_rank and (jokers == 0 or rules.joker_in_sets) else "run"
    if kind == "set":
        if rules.set_draw == "any" or len(laid) <= 2:
            return ("set", tuple(sorted(laid)))
        return ("set", tuple(sorted([laid[0], laid[-1]])), tuple(sorted(laid[1:-1])))
    return ("run", tuple(laid))


def engine_keys(hand: str, rules: Rules):
    layings = legal_layings(hand, rules)
    return sorted(key(format_cards(d).split(), rules, kind) for d, kind in layings)


def expected_keys(discards: list[str], rules: Rules):
    keys = []
    for d in discards:
        cards, _, kind = d.partition(" /")
        keys.append(key(cards.split(), rules, kind or None))
    return sorted(keys)


def check(hand: str, rules: Rules, expected: list[str]):
    assert engine_keys(hand, rules) == expected_keys(expected, rules)


def text_set(cards) -> Counter:
    return Counter(format_cards(cards).split())


# -- legal_discards: runs with jokers -------------------------------------------------------


def test_joker_inside_and_at_ends_standard():
    check(
        "4D 5D JK 7D",
        STANDARD,
        [
            "4D", "5D", "JK", "7D",
            "4D JK", "5D JK", "7D JK",
            "JK 4D 5D", "4D 5D JK",
            "5D JK 7D",
            "4D 5D JK 7D",
        ],
    )  # fmt: skip


def test_joker_inside_and_at_ends_nordic():
    check(
        "4D 5D JK 7D",
        NORDIC,
        [
            "4D", "5D", "JK", "7D",
            "JK 4D 5D", "4D 5D JK",
            "5D JK 7D",
            "4D 5D JK 7D",
        ],
    )  # fmt: skip


def test_joker_may_stand_for_a_rank_still_held_nordic():
    check(
        "5D 6D 7D JK",
        NORDIC,
        [
            "5D", "6D", "7D", "JK",
            "5D 6D 7D",
            "JK 5D 6D 7D", "5D 6D 7D JK",
            "JK 5D 6D", "5D 6D JK",
            "5D JK 7D",
            "JK 6D 7D", "6D 7D JK",
        ],
    )  # fmt: skip


def test_joker_may_stand_for_a_rank_still_held_standard():
    keys = engine_keys("5D 6D 7D JK", STANDARD)
    assert key(["5D", "JK", "7D"], STANDARD) in keys
    check(
        "5D 6D 7D JK",
        STANDARD,
        [
            "5D", "6D", "7D", "JK",
            "5D JK", "6D JK", "7D JK",
            "5D 6D 7D",
            "JK 5D 6D 7D", "5D 6D 7D JK",
            "JK 5D 6D", "5D 6D JK",
            "5D JK 7D",
            "JK 6D 7D", "6D 7D JK",
        ],
    )  # fmt: skip


def test_spare_jokers_next_to_king_go_below_nordic():
    check(
        "QH KH JK JK",
        NORDIC,
        [
            "QH", "KH", "JK",
            "JK QH KH",
            "JK JK QH KH",
            "JK JK QH", "JK QH JK",
            "JK JK KH",
        ],
    )  # fmt: skip


def test_spare_jokers_next_to_king_go_below_standard():
    check(
        "QH KH JK JK",
        STANDARD,
        [
            "QH", "KH", "JK",
            "QH JK", "QH JK JK", "KH JK", "KH JK JK",
            "JK QH JK /run", "JK JK QH /run", "JK JK KH /run",
            "JK QH KH",
            "JK JK QH KH",
        ],
    )  # fmt: skip


def test_spare_jokers_next_to_ace_go_above_nordic():
    check(
        "AS 2S JK JK",
        NORDIC,
        [
            "AS", "2S", "JK",
            "AS 2S JK",
            "AS 2S JK JK",
            "AS JK JK",
            "JK 2S JK", "2S JK JK",
        ],
    )  # fmt: skip


def test_spare_jokers_next_to_ace_go_above_standard():
    check(
        "AS 2S JK JK",
        STANDARD,
        [
            "AS", "2S", "JK",
            "AS JK", "AS JK JK", "2S JK", "2S JK JK",
            "AS JK JK /run", "JK 2S JK /run", "2S JK JK /run",
            "AS 2S JK",
            "AS 2S JK JK",
        ],
    )  # fmt: skip


def test_each_placement_of_spare_jokers_nordic():
    check(
        "4C 6C JK JK",
        NORDIC,
        [
            "4C", "6C", "JK",
            "4C JK 6C",
            "JK 4C JK 6C", "4C JK 6C JK",
            "JK JK 4C", "JK 4C JK", "4C JK JK",
            "JK JK 6C", "JK 6C JK", "6C JK JK",
        ],
    )  # fmt: skip


def test_each_placement_of_spare_jokers_standard():
    check(
        "4C 6C JK JK",
        STANDARD,
        [
            "4C", "6C", "JK",
            "4C JK", "4C JK JK", "6C JK", "6C JK JK",
            "JK JK 4C /run", "JK 4C JK /run", "4C JK JK /run",
            "JK JK 6C /run", "JK 6C JK /run", "6C JK JK /run",
            "4C JK 6C",
            "JK 4C JK 6C", "4C JK 6C JK",
        ],
    )  # fmt: skip


def test_two_jokers_fill_a_gap_of_two():
    check(
        "3H 6H JK JK",
        NORDIC,
        [
            "3H", "6H", "JK",
            "3H JK JK 6H",
            "JK JK 3H", "JK 3H JK", "3H JK JK",
            "JK JK 6H", "JK 6H JK", "6H JK JK",
        ],
    )  # fmt: skip


# -- ace low only ---------------------------------------------------------------------------


def test_queen_king_ace_is_no_run():
    check("QS KS AS", STANDARD, ["QS", "KS", "AS"])
    check("QS KS AS", NORDIC, ["QS", "KS", "AS"])


def test_ace_two_three_is_a_run():
    check("AS 2S 3S", STANDARD, ["AS", "2S", "3S", "AS 2S 3S"])
    check("AS 2S 3S", NORDIC, ["AS", "2S", "3S", "AS 2S 3S"])


def test_king_ace_two_wrap_is_no_run():
    check("KD AD 2D", STANDARD, ["KD", "AD", "2D"])


def test_queen_king_ace_with_a_joker():
    check(
        "QS KS AS JK",
        STANDARD,
        ["QS", "KS", "AS", "JK", "AS JK", "QS JK", "KS JK", "JK QS KS"],
    )


# -- sets and jokers ----------------------------------------------------------------------


def test_one_natural_and_jokers_is_a_set_or_a_run_under_standard():
    check(
        "5C JK JK",
        STANDARD,
        ["5C", "JK", "5C JK", "5C JK JK", "JK JK 5C /run", "JK 5C JK /run", "5C JK JK /run"],
    )


def test_two_with_two_jokers_as_a_set_or_a_run():
    # a set of twos, 2-3-4 or A-2-3; no run has the 2 on top (it would need a card below A)
    check("2C JK JK", STANDARD, ["2C", "JK", "2C JK", "2C JK JK", "2C JK JK /run", "JK 2C JK /run"])
    laid = {(format_cards(d), kind): format_cards(takeable(d, STANDARD, kind))
            for d, kind in legal_layings("2C JK JK", STANDARD) if len(d) == 3}  # fmt: skip
    assert laid == {
        ("2C JK JK", "set"): "2C JK JK",
        ("2C JK JK", "run"): "2C JK",
        ("JK 2C JK", "run"): "JK JK",
    }


def test_ace_and_king_with_jokers_fit_one_run_each():
    check("AC JK JK", STANDARD, ["AC", "JK", "AC JK", "AC JK JK", "AC JK JK /run"])
    check("KC JK JK", STANDARD, ["KC", "JK", "KC JK", "KC JK JK", "JK JK KC /run"])


def test_one_natural_and_three_jokers_under_standard():
    check(
        "9H JK JK JK",
        STANDARD,
        [
            "9H", "JK", "9H JK", "9H JK JK", "9H JK JK JK",
            "JK JK 9H /run", "JK 9H JK /run", "9H JK JK /run",
            "JK JK JK 9H /run", "JK JK 9H JK /run", "JK 9H JK JK /run", "9H JK JK JK /run",
        ],
    )  # fmt: skip


def test_set_and_run_readings_under_ends():
    # both readings offer the two end cards: a set laying with the ends of a run laying is
    # listed once, as the run; a set laying no run gives (the ace inside two jokers) as a set
    check("AC JK JK", STANDARD_ENDS, ["AC", "JK", "AC JK", "AC JK JK /run", "JK AC JK"])
    layings = [(format_cards(d), k) for d, k in legal_layings("AC JK JK", STANDARD_ENDS)]
    assert ("AC JK JK", "run") in layings and ("AC JK JK", "set") not in layings
    assert ("JK AC JK", "set") in layings
    # the set KC JK JK offers the king or a joker, as the run JK JK KC does
    check("KC JK JK", STANDARD_ENDS, ["KC", "JK", "KC JK", "JK JK KC /run", "JK KC JK"])


def test_seven_card_layings_keep_their_cards_and_kind():
    layings = {(format_cards(d), k) for d, k in legal_layings("9H JK JK JK JK JK JK", STANDARD)}
    assert ("9H JK JK JK JK JK JK", "set") in layings
    sevens = {cards for cards, k in layings if k == "run" and len(cards.split()) == 7}
    # the nine at places 2 to 6: the runs 7..K down to 3..9 (a run of seven fits no higher)
    assert sevens == {" ".join(["JK"] * p + ["9H"] + ["JK"] * (6 - p)) for p in range(2, 7)}
    assert ("3C 4C 5C 6C 7C 8C 9C", "run") in {
        (format_cards(d), k) for d, k in legal_layings("3C 4C 5C 6C 7C 8C 9C", NORDIC)
    }


def test_two_naturals_and_a_joker_are_one_kind_only():
    # a set of two fives with a joker is no run; two suited cards with a joker no set
    check("5C 5D JK", STANDARD, ["5C", "5D", "JK", "5C 5D", "5C JK", "5D JK", "5C 5D JK"])
    check("5C 6C JK", STANDARD, ["5C", "6C", "JK", "5C JK", "6C JK", "JK 5C 6C", "5C 6C JK"])
    assert [k for d, k in legal_layings("5C 5D JK", STANDARD) if len(d) == 3] == ["set"]
    assert {k for d, k in legal_layings("5C 6C JK", STANDARD) if len(d) == 3} == {"run"}


def test_one_natural_and_jokers_is_a_run_under_nordic():
    check("5C JK JK", NORDIC, ["5C", "JK", "JK JK 5C", "JK 5C JK", "5C JK JK"])


def test_no_jokers_in_sets_nordic():
    check("5C 5D JK", NORDIC, ["5C", "5D", "JK", "5C 5D"])


def test_jokers_in_sets_standard():
    check("5C 5D JK", STANDARD, ["5C", "5D", "JK", "5C 5D", "5C JK", "5D JK", "5C 5D JK"])


def test_no_jokers_in_sets_with_any_draw():
    check("5C 5D JK", NORDIC_ANY, ["5C", "5D", "JK", "5C 5D"])


# -- set_draw ends: layings by end cards ------------------------------------------------------


def test_three_of_a_kind_any_vs_ends():
    check("8S 8H 8C", STANDARD, ["8S", "8H", "8C", "8S 8H", "8S 8C", "8H 8C", "8S 8H 8C"])
    check(
        "8S 8H 8C",
        NORDIC,
        [
            "8S", "8H", "8C",
            "8S 8H", "8S 8C", "8H 8C",
            "8S 8C 8H", "8S 8H 8C", "8H 8S 8C",
        ],
    )  # fmt: skip


def test_four_of_a_kind_under_ends():
    pairs = ["8S 8H", "8S 8D", "8S 8C", "8H 8D", "8H 8C", "8D 8C"]
    triples_ends = [
        # 8S 8H 8D
        "8S 8D 8H", "8S 8H 8D", "8H 8S 8D",
        # 8S 8H 8C
        "8S 8C 8H", "8S 8H 8C", "8H 8S 8C",
        # 8S 8D 8C
        "8S 8C 8D", "8S 8D 8C", "8D 8S 8C",
        # 8H 8D 8C
        "8H 8C 8D", "8H 8D 8C", "8D 8H 8C",
    ]  # fmt: skip
    quads = [
        "8S 8D 8C 8H", "8S 8H 8C 8D", "8S 8H 8D 8C",
        "8H 8S 8C 8D", "8H 8S 8D 8C", "8D 8S 8H 8C",
    ]  # fmt: skip
    check("8S 8H 8D 8C", NORDIC, ["8S", "8H", "8D", "8C", *pairs, *triples_ends, *quads])
    check(
        "8S 8H 8D 8C",
        STANDARD,
        [
            "8S", "8H", "8D", "8C", *pairs,
            "8S 8H 8D", "8S 8H 8C", "8S 8D 8C", "8H 8D 8C",
            "8S 8H 8D 8C",
        ],
    )  # fmt: skip


def test_set_with_joker_under_ends():
    check(
        "5C 5D JK",
        STANDARD_ENDS,
        [
            "5C", "5D", "JK",
            "5C 5D", "5C JK", "5D JK",
            "5C JK 5D", "5C 5D JK", "5D 5C JK",
        ],
    )  # fmt: skip


def test_set_with_two_jokers_under_ends():
    check(
        "5C JK JK",
        STANDARD_ENDS,
        ["5C", "JK", "5C JK", "JK JK 5C /run", "JK 5C JK /run", "5C JK JK /run"],
    )


# -- two decks ---------------------------------------------------------------------------------


def test_identical_cards_make_a_set_and_count_once():
    check("8S 8S 8H", STANDARD, ["8S", "8H", "8S 8S", "8S 8H", "8S 8S 8H"])


def test_identical_cards_under_ends():
    check("8S 8S 8H", NORDIC, ["8S", "8H", "8S 8S", "8S 8H", "8S 8H 8S", "8S 8S 8H"])


def test_two_pairs_of_identical_cards_under_ends():
    check(
        "8S 8S 8H 8H",
        NORDIC,
        [
            "8S", "8H",
            "8S 8S", "8S 8H", "8H 8H",
            "8S 8H 8S", "8S 8S 8H",
            "8S 8H 8H", "8H 8S 8H",
            "8S 8H 8H 8S", "8S 8S 8H 8H", "8H 8S 8S 8H",
        ],
    )  # fmt: skip


def test_runs_never_hold_two_identical_cards():
    check("8S 8S 9S 10S", STANDARD, ["8S", "9S", "10S", "8S 8S", "8S 9S 10S"])


def test_two_decks_with_joker():
    check(
        "7S 7S 8S JK",
        STANDARD,
        [
            "7S", "8S", "JK",
            "7S 7S", "7S JK", "7S 7S JK", "8S JK",
            "JK 7S 8S", "7S 8S JK",
        ],
    )  # fmt: skip


def test_identical_jokers_count_once():
    check("JK JK 9D", NORDIC, ["JK", "9D", "JK JK 9D", "JK 9D JK", "9D JK JK"])


# -- jokers alone, unmatched cards, mixed suits -----------------------------------------------


@pytest.mark.parametrize("rules", [STANDARD, NORDIC, STANDARD_ENDS, NORDIC_ANY])
@pytest.mark.parametrize("hand", ["JK", "JK JK", "JK JK JK", "JK JK JK JK"])
def test_jokers_alone_only_as_a_single(hand, rules):
    check(hand, rules, ["JK"])


@pytest.mark.parametrize("rules", [STANDARD, NORDIC])
def test_no_two_unmatched_cards(rules):
    check("3H 9C", rules, ["3H", "9C"])
    check("3H 4C 9D KS", rules, ["3H", "4C", "9D", "KS"])


@pytest.mark.parametrize("rules", [STANDARD, NORDIC])
def test_no_mixed_suit_run(rules):
    check("5C 6D 7C", rules, ["5C", "6D", "7C"])


def test_no_mixed_suit_run_with_joker():
    check(
        "5C 6D 7C JK",
        STANDARD,
        ["5C", "6D", "7C", "JK", "5C JK", "6D JK", "7C JK", "5C JK 7C"],
    )


def test_set_and_run_share_a_card():
    check("3C 4C 5C 5H", STANDARD, ["3C", "4C", "5C", "5H", "5C 5H", "3C 4C 5C"])


def test_seven_card_run():
    laid = [format_cards(d) for d in legal_discards("3C 4C 5C 6C 7C 8C 9C", STANDARD)]
    assert "3C 4C 5C 6C 7C 8C 9C" in laid
    # 7 singles + every run of 3..7 consecutive cards: 5 + 4 + 3 + 2 + 1
    assert len(laid) == 7 + 15
    assert len(set(laid)) == len(laid)


# -- an independent reference, written from the rule book ----------------------------------------


def reference_discards(hand: list[str], rules: Rules):
    """Every legal discard of ``hand`` as canonical keys (the rule book (section 3))."""
    keys = []
    faces = Counter(hand)
    items = sorted(faces)
    for counts in itertools.product(*[range(faces[f] + 1) for f in items]):
        cards = [f for f, n in zip(items, counts, strict=True) for _ in range(n)]
        if not cards:
            continue
        if len(cards) == 1:
            keys.append(key(cards, rules))
            continue
        naturals = [c for c in cards if c != "JK"]
        jokers = len(cards) - len(naturals)
        if not naturals:
            continue
        runs = []
        suits = {c[-1] for c in naturals}
        ranks = [rank_of(c) for c in naturals]
        if len(cards) >= 3 and len(suits) == 1 and len(set(ranks)) == len(ranks):
            by_rank = {rank_of(c): c for c in naturals}
            for start in range(0, 13 - len(cards) + 1):
                span = range(start, start + len(cards))
                if all(r in span for r in ranks):
                    runs.append([by_rank.get(r, "JK") for r in span])
        keys += [key(run, rules, "run") for run in runs]
        if len({c[:-1] for c in naturals}) == 1 and (jokers == 0 or rules.joker_in_sets):
            if rules.set_draw == "any" or len(cards) == 2:
                keys.append(key(cards, rules, "set"))
            else:
                ends = set()
                for i, j in itertools.combinations(range(len(cards)), 2):
                    ends.add(tuple(sorted([cards[i], cards[j]])))
                # a set with the end cards of a run laying offers the same: listed as the run
                as_runs = {key(run, rules, "set") for run in runs}
                for a, b in ends:
                    middle = list(cards)
                    middle.remove(a)
                    middle.remove(b)
                    if key([a, *middle, b], rules, "set") not in as_runs:
                        keys.append(key([a, *middle, b], rules, "set"))
    return sorted(keys)


ALL_52 = [r + s for s in "SHDC" for r in RANKS]


@st.composite
def hands(draw):
    """Up to 7 cards from two decks with jokers, biased towards sets and runs."""
    suit = draw(st.sampled_from("SHDC"))
    low = draw(st.integers(0, 9))
    near = [RANKS[r] + s for r in range(low, low + 4) for s in (suit, suit)]
    near += [RANKS[low + 1] + s for s in "SHDC"]
    pool = near + ["JK"] * 4 + ALL_52
    size = draw(st.integers(1, 7))
    hand = []
    while len(hand) < size:
        card = draw(st.sampled_from(pool))
        if card != "JK" and hand.count(card) >= 2:
            continue
        hand.append(card)
    return hand


@pytest.mark.parametrize(
    "rules",
    [STANDARD, NORDIC, STANDARD_ENDS, NORDIC_ANY],
    ids=["std", "nordic", "std-ends", "nordic-any"],
)
@settings(max_examples=150, deadline=None, derandomize=True)
@given(hand=hands())
def test_legal_discards_match_the_reference(rules, hand):
    assert engine_keys(" ".join(hand), rules) == reference_discards(hand, rules)


@settings(max_examples=100, deadline=None, derandomize=True)
@given(hand=hands(), rules=st.sampled_from([STANDARD, NORDIC, STANDARD_ENDS, NORDIC_ANY]))
def test_every_legal_discard_is_a_legal_laid_discard(hand, rules):
    held = Counter(hand)
    for laid, kind in legal_layings(" ".join(hand), rules):
        text = format_cards(laid).split()
        assert not Counter(text) - held
        assert kind in discard_kinds(laid, rules)
        assert kind == key(text, rules, kind)[0]
        if kind == "run":
            naturals = [rank_of(c) for c in text if c != "JK"]
            assert naturals == sorted(naturals)
        taken = format_cards(takeable(laid, rules, kind)).split()
        if len(text) == 1 or (kind == "set" and rules.set_draw == "any"):
            assert taken == text
        else:
            assert taken == [text[0], text[-1]]


# -- takeable ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "laid, rules, expected",
    [
        ("4D 5D JK 7D", STANDARD, "4D 7D"),
        ("4D 5D JK 7D", NORDIC, "4D 7D"),
        ("JK 8H 9H", STANDARD, "JK 9H"),
        ("JK 8H 9H", NORDIC, "JK 9H"),
        ("AS 2S 3S", STANDARD, "AS 3S"),
        ("3C 4C 5C 6C 7C 8C 9C", STANDARD, "3C 9C"),
        ("JK QS KS", STANDARD, "JK KS"),
        ("JK JK QS KS", NORDIC, "JK KS"),
        ("4C JK 6C JK", NORDIC, "4C JK"),
        ("JK 4C JK 6C", NORDIC, "JK 6C"),
        ("JK 5C JK", NORDIC, "JK JK"),
        ("JK JK 5C", NORDIC, "JK 5C"),
        # falling runs
        ("7D JK 5D 4D", STANDARD, "7D 4D"),
        ("KS QS JK", NORDIC, "KS JK"),
        ("10H JK 8H", STANDARD, "10H 8H"),
        # singles
        ("QS", STANDARD, "QS"),
        ("QS", NORDIC, "QS"),
        ("JK", STANDARD, "JK"),
        ("JK", NORDIC, "JK"),
        # sets, any
        ("8S 8H", STANDARD, "8S 8H"),
        ("8S 8H 8C", STANDARD, "8S 8H 8C"),
        ("8S 8H 8D 8C", STANDARD, "8S 8H 8D 8C"),
        ("5C JK 5D", STANDARD, "5C JK 5D"),
        ("8S 8S 8H", STANDARD, "8S 8S 8H"),
        ("8S 8H 8C", NORDIC_ANY, "8S 8H 8C"),
        # sets, ends
        ("8S 8H", NORDIC, "8S 8H"),
        ("8S 8H 8C", NORDIC, "8S 8C"),
        ("8C 8S 8H", NORDIC, "8C 8H"),
        ("8S 8H 8D 8C", NORDIC, "8S 8C"),
        ("8S 8S 8H", NORDIC, "8S 8H"),
        ("8S 8H 8S", NORDIC, "8S 8S"),
        ("5C JK 5D", STANDARD_ENDS, "5C 5D"),
        ("JK 5C 5D", STANDARD_ENDS, "JK 5D"),
        ("JK 5C JK", STANDARD_ENDS, "JK JK"),
    ],
)
def test_takeable(laid, rules, expected):
    assert text_set(takeable(laid, rules)) == Counter(expected.split())


@pytest.mark.parametrize(
    "laid, kind, expected",
    [
        ("5C JK JK", "set", "5C JK JK"),
        ("5C JK JK", "run", "5C JK"),
        ("JK 2C JK", "set", "JK 2C JK"),
        ("JK 2C JK", "run", "JK JK"),
        ("JK JK 9H JK", "run", "JK JK"),
        ("JK JK 9H JK", "set", "JK JK 9H JK"),
        ("KC JK JK", "run", "KC JK"),  # falling: K-Q-J
    ],
)
def test_takeable_follows_the_reading_laid(laid, kind, expected):
    assert discard_kinds(laid, STANDARD) == ("set", "run")
    assert text_set(takeable(laid, STANDARD, kind)) == Counter(expected.split())


@pytest.mark.parametrize("laid", ["5C JK JK", "JK 2C JK", "JK JK 9H JK"])
def test_takeable_needs_the_reading_when_the_readings_differ(laid):
    with pytest.raises(ValueError, match="kind='set' or kind='run'"):
        takeable(laid, STANDARD)
    with pytest.raises(ValueError, match="set or as a run"):
        discard_kind(laid, STANDARD)


def test_takeable_needs_no_reading_when_both_offer_the_ends():
    assert discard_kinds("JK 2C JK", STANDARD_ENDS) == ("set", "run")
    assert text_set(takeable("JK 2C JK", STANDARD_ENDS)) == Counter(["JK", "JK"])
    assert text_set(takeable("2C JK JK", STANDARD_ENDS, "set")) == Counter(["2C", "JK"])


@pytest.mark.parametrize(
    "laid, rules, kind",
    [
        ("5C 5D JK", STANDARD, "run"),  # two fives are no run
        ("5C 6C JK", STANDARD, "set"),  # two ranks are no set
        ("5C JK JK", NORDIC, "set"),  # no jokers in sets
        ("JK AC JK", STANDARD, "run"),  # the joker below the ace
        ("AC JK", STANDARD, "run"),  # two cards are no run
    ],
)
def test_takeable_rejects_a_reading_the_discard_does_not_have(laid, rules, kind):
    with pytest.raises(ValueError, match="cannot be laid as"):
        takeable(laid, rules, kind)


def test_takeable_returns_the_laid_copies():
    laid = parse_cards("8S 8H 8S")
    taken = takeable(laid, NORDIC)
    assert sorted(taken.tolist()) == sorted([int(laid[0]), int(laid[2])])


def test_takeable_middle_of_run_is_protected():
    taken = format_cards(takeable("4D 5D JK 7D", STANDARD)).split()
    assert "5D" not in taken
    assert "JK" not in taken


@pytest.mark.parametrize("laid", ["QS KS AS", "5C 7C", "JK JK", "5C 6D 7C", "4D 6D 5D"])
@pytest.mark.parametrize("rules", [STANDARD, NORDIC])
def test_takeable_rejects_illegal_discards(laid, rules):
    with pytest.raises(ValueError):
        takeable(laid, rules)


def test_takeable_rejects_joker_set_under_nordic():
    with pytest.raises(ValueError):
        takeable("5C 5D JK", NORDIC)


# -- discard_kind ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "laid, rules, kind",
    [
        ("QS", STANDARD, "single"),
        ("QS", NORDIC, "single"),
        ("JK", STANDARD, "single"),
        ("JK", NORDIC, "single"),
        ("8S 8H", STANDARD, "set"),
        ("8S 8H", NORDIC, "set"),
        ("8S 8S", STANDARD, "set"),
        ("8S 8S", NORDIC, "set"),
        ("8S 8H 8S 8D", NORDIC, "set"),
        ("5C JK", STANDARD, "set"),
        ("JK 5C", STANDARD, "set"),
        ("5C 5D JK", STANDARD, "set"),
        ("5C JK JK", NORDIC, "run"),
        ("JK JK 5C", NORDIC, "run"),
        ("JK 5C JK", NORDIC, "run"),
        ("AS JK JK", NORDIC, "run"),
        ("AS 2S 3S", STANDARD, "run"),
        ("AS 2S 3S", NORDIC, "run"),
        ("4D 5D JK 7D", STANDARD, "run"),
        ("JK 8H 9H", NORDIC, "run"),
        ("JK QS KS", STANDARD, "run"),
        ("AS 2S JK", STANDARD, "run"),
        ("3C 4C 5C 6C 7C 8C 9C", STANDARD, "run"),
        ("JK JK JK 5C 6C", NORDIC, "run"),
        # falling order is accepted too
        ("3S 2S AS", STANDARD, "run"),
        ("KS QS JK", STANDARD, "run"),
        ("7D JK 5D 4D", STANDARD, "run"),
        ("JK 10H 9H", NORDIC, "run"),
        ("KS JK JK", NORDIC, "run"),
    ],
)
def test_discard_kind(laid, rules, kind):
    assert discard_kind(laid, rules) == kind
    assert discard_kinds(laid, rules) == (kind,)


@pytest.mark.parametrize(
    "laid, rules, kinds",
    [
        ("5C JK JK", STANDARD, ("set", "run")),
        ("JK 5C JK", STANDARD, ("set", "run")),
        ("JK JK 5C", STANDARD, ("set", "run")),  # 3-4-5, or 7-6-5 written falling
        ("2C JK JK", STANDARD, ("set", "run")),
        ("JK 2C JK", STANDARD, ("set", "run")),
        ("AC JK JK", STANDARD, ("set", "run")),
        ("JK AC JK", STANDARD, ("set",)),  # no card below the ace
        ("JK KC JK", STANDARD, ("set",)),  # no card above the king
        ("JK AC JK", STANDARD_ENDS, ("set",)),
        ("5C JK JK", NORDIC, ("run",)),
        ("JK AC JK", NORDIC_ANY, ()),
        ("5C JK", STANDARD, ("set",)),
        ("5C 5D JK", STANDARD, ("set",)),
    ],
)
def test_discard_kinds(laid, rules, kinds):
    if not kinds:
        with pytest.raises(ValueError):
            discard_kinds(laid, rules)
        return
    assert discard_kinds(laid, rules) == kinds


@pytest.mark.parametrize(
    "laid, rules",
    [
        ("QS KS AS", STANDARD),  # ace is low only
        ("KS AS 2S", STANDARD),  # no wrap-around
        ("QS KS JK", STANDARD),  # joker would be an ace above the king
        ("JK AS 2S", STANDARD),  # joker would be below the ace
        ("JK AS 2S", NORDIC),
        ("5C 6D 7C", STANDARD),  # mixed suits
        ("5C JK 7D", STANDARD),
        ("5C 7C", STANDARD),  # two unmatched cards
        ("5C 6C", STANDARD),  # a run needs three cards
        ("5C 6C", NORDIC),
        ("JK JK", STANDARD),  # jokers alone
        ("JK JK", NORDIC),
        ("JK JK JK", STANDARD),
        ("5C 5D JK", NORDIC),  # no jokers in sets
        ("5C JK", NORDIC),
        ("8S 8S 9S", STANDARD),  # a run never holds identical cards
        ("7S 8S 8S 9S", STANDARD),
        ("5D 6D 8D", STANDARD),  # gap without a joker
        ("4D 6D 5D", STANDARD),  # not laid in rank order
        ("5D 4D 6D", NORDIC),
        ("4D JK 7D", STANDARD),  # one joker cannot fill two ranks
        ("8S 8H 9S", STANDARD),
    ],
)
def test_discard_kind_rejects_illegal_discards(laid, rules):
    with pytest.raises(ValueError):
        discard_kind(laid, rules)


@pytest.mark.parametrize("rules", [STANDARD, NORDIC], ids=["standard", "nordic"])
def test_discard_kind_eight_card_set_of_two_decks(rules):
    # the rule book (section 3): "a set: 2 or more cards of the same rank (with two decks, up to 8)"
    assert discard_kind("8S 8H 8D 8C 8S 8H 8D 8C", rules) == "set"
