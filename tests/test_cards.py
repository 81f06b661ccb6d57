"""Card text: parsing, formatting, duplicates of two decks, hand values.

Expectations are written by hand from the rule book (section 1) and the documented
text form of cards (ranks A 2..10 J Q K or T, suits S H D C or their symbols,
JK for a joker, any case, spaces or commas between cards).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from yaniv_sim import format_cards, parse_cards
from yaniv_sim.engine import hand_value

RANK_TEXT = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
SUIT_TEXT = ["S", "H", "D", "C"]
SUIT_SYMBOL = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
ALL_52 = [r + s for s in SUIT_TEXT for r in RANK_TEXT]


def same(a, b) -> bool:
    return np.array_equal(np.asarray(a), np.asarray(b))


# -- accepted forms -------------------------------------------------------------------


def test_parse_returns_int16_array_in_written_order():
    cards = parse_cards("KC 2H AS")
    assert isinstance(cards, np.ndarray)
    assert cards.dtype == np.int16
    assert cards.shape == (3,)
    assert format_cards(cards) == "KC 2H AS"


def test_every_natural_card_parses_and_formats_back():
    text = " ".join(ALL_52)
    cards = parse_cards(text)
    assert len(cards) == 52
    assert len(set(cards.tolist())) == 52
    assert format_cards(cards) == text


@pytest.mark.parametrize(
    "written, canonical",
    [
        ("as", "AS"),
        ("aS", "AS"),
        ("As", "AS"),
        ("10h", "10H"),
        ("th", "10H"),
        ("Th", "10H"),
        ("tH", "10H"),
        ("TH", "10H"),
        ("jd", "JD"),
        ("qc", "QC"),
        ("kS", "KS"),
        ("jk", "JK"),
        ("Jk", "JK"),
        ("jK", "JK"),
        ("JK", "JK"),
        ("A♠", "AS"),
        ("10♥", "10H"),
        ("T♥", "10H"),
        ("q♦", "QD"),
        ("7♣", "7C"),
    ],
)
def test_each_accepted_spelling_of_one_card(written, canonical):
    assert format_cards(parse_cards(written)) == canonical
    assert same(parse_cards(written), parse_cards(canonical))


@pytest.mark.parametrize(
    "text",
    [
        "4D 5D JK 7D",
        "4D,5D,JK,7D",
        "4D, 5D, JK, 7D",
        "4D ,5D , JK ,7D",
        "  4D   5D JK 7D  ",
        "4d 5♦ jk 7D",
        "4♦,5♦,Jk,7♦",
    ],
)
def test_separators_case_and_symbols_give_the_same_cards(text):
    assert same(parse_cards(text), parse_cards("4D 5D JK 7D"))
    assert format_cards(parse_cards(text)) == "4D 5D JK 7D"


def test_t_and_10_are_the_same_rank_for_every_suit():
    for suit in SUIT_TEXT:
        assert same(parse_cards("T" + suit), parse_cards("10" + suit))
        assert same(parse_cards("t" + suit.lower()), parse_cards("10" + suit))
        assert format_cards(parse_cards("T" + suit)) == "10" + suit


def test_suit_symbols_map_to_their_letters():
    for letter, symbol in SUIT_SYMBOL.items():
        for rank in RANK_TEXT:
            assert same(parse_cards(rank + symbol), parse_cards(rank + letter))


def test_different_cards_have_different_codes():
    a, b, c = parse_cards("5C 5D 6C")
    assert len({int(a), int(b), int(c)}) == 3


# -- two decks: duplicates -------------------------------------------------------------


def test_a_card_written_twice_is_the_second_decks_copy():
    one = parse_cards("8S")
    two = parse_cards("8S 8S")
    assert len(two) == 2
    assert two[0] == one[0]
    assert two[1] != two[0]
    assert format_cards(two) == "8S 8S"


def test_second_copy_is_the_same_whatever_the_spelling():
    assert same(parse_cards("8s 8♠"), parse_cards("8S 8S"))
    assert same(parse_cards("TH 10h"), parse_cards("10H 10H"))


def test_second_copy_code_does_not_collide_with_other_cards():
    cards = parse_cards(" ".join(ALL_52 + ALL_52))
    assert len(set(cards.tolist())) == 104
    assert format_cards(cards) == " ".join(ALL_52 + ALL_52)


def test_copies_are_counted_per_card_not_per_position():
    cards = parse_cards("8S 9S 8S")
    assert cards[0] != cards[2]
    assert cards[0] == parse_cards("8S")[0]
    assert cards[2] == parse_cards("8S 8S")[1]


@pytest.mark.parametrize("text", ["8S 8S 8S", "8s 8S 8♠", "QH 5C QH QH", "10D TD td"])
def test_a_third_copy_is_an_error(text):
    with pytest.raises(ValueError):
        parse_cards(text)


def test_third_copy_error_names_the_card():
    with pytest.raises(ValueError) as info:
        parse_cards("AS 8S KD 8S 8S")
    assert "8S" in str(info.value)


def test_jokers_are_distinct_codes():
    cards = parse_cards("JK JK")
    assert cards[0] != cards[1]
    assert format_cards(cards) == "JK JK"
    assert not set(cards.tolist()) & set(parse_cards(" ".join(ALL_52 + ALL_52)).tolist())


def test_eight_jokers_exist_but_not_nine():
    # at most 4 jokers per deck ("double joker") and 2 decks
    assert len(parse_cards(" ".join(["JK"] * 8))) == 8
    assert len(set(parse_cards(" ".join(["JK"] * 8)).tolist())) == 8
    with pytest.raises(ValueError):
        parse_cards(" ".join(["JK"] * 9))


# -- bad text ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, token",
    [
        ("AS 1S", "1S"),
        ("AS 11S", "11S"),
        ("AX 2H", "AX"),
        ("2H ZZ", "ZZ"),
        ("KS A", "A"),
        ("S", "S"),
        ("10", "10"),
        ("JKK", "JKK"),
        ("QS 0H", "0H"),
        ("AS 2H 3D 4Q", "4Q"),
        ("5C 5CC", "5CC"),
        ("1OH", "1OH"),
    ],
)
def test_bad_token_raises_naming_it(text, token):
    with pytest.raises(ValueError) as info:
        parse_cards(text)
    assert token in str(info.value)


def test_bad_lowercase_token_is_named_in_the_message():
    with pytest.raises(ValueError) as info:
        parse_cards("as 2h xq")
    assert "xq" in str(info.value).lower()


@pytest.mark.parametrize("text", ["A S", "10 H", "AS2H", "AS-2H"])
def test_malformed_separators_are_errors(text):
    with pytest.raises(ValueError):
        parse_cards(text)


def test_non_string_input_is_an_error():
    with pytest.raises(ValueError):
        parse_cards(["AS", "2H"])


# -- round trip --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, canonical",
    [
        ("th, jk", "10H JK"),
        ("as,2♥ , qd", "AS 2H QD"),
        ("8s 8♠ jk Jk", "8S 8S JK JK"),
        ("t♣ 10C", "10C 10C"),
    ],
)
def test_round_trip_gives_canonical_text(text, canonical):
    cards = parse_cards(text)
    assert format_cards(cards) == canonical
    assert same(parse_cards(format_cards(cards)), cards)


def test_format_accepts_a_list_of_codes():
    cards = parse_cards("KD JK 3C")
    assert format_cards(cards.tolist()) == "KD JK 3C"


def _spellings(card: str):
    """Every accepted spelling of a canonical card text (a strategy)."""
    if card == "JK":
        return st.sampled_from(["JK", "jk", "Jk", "jK"])
    rank, suit = card[:-1], card[-1]
    ranks = [rank, rank.lower()] + (["T", "t"] if rank == "10" else [])
    suits = [suit, suit.lower(), SUIT_SYMBOL[suit]]
    return st.tuples(st.sampled_from(ranks), st.sampled_from(suits)).map("".join)


@st.composite
def card_lists(draw):
    """A list of canonical card texts: each natural at most twice, at most 8 jokers."""
    naturals = draw(st.lists(st.sampled_from(ALL_52), max_size=30))
    counts: dict[str, int] = {}
    kept = []
    for card in naturals:
        if counts.get(card, 0) < 2:
            counts[card] = counts.get(card, 0) + 1
            kept.append(card)
    jokers = draw(st.integers(0, 8))
    cards = kept + ["JK"] * jokers
    return draw(st.permutations(cards))


@st.composite
def written_card_lists(draw):
    cards = draw(card_lists())
    written = [draw(_spellings(c)) for c in cards]
    seps = [draw(st.sampled_from([" ", ",", ", ", "  ", " , "])) for _ in written]
    text = "".join(w + s for w, s in zip(written, seps, strict=True))
    lead = draw(st.sampled_from(["", " ", "  "]))
    return cards, lead + text


@settings(max_examples=200, deadline=None, derandomize=True)
@given(written_card_lists())
def test_random_card_lists_round_trip(case):
    canonical, text = case
    cards = parse_cards(text)
    assert len(cards) == len(canonical)
    assert format_cards(cards) == " ".join(canonical)
    assert same(parse_cards(format_cards(cards)), cards)
    assert same(parse_cards(" ".join(canonical)), cards)
    assert len(set(cards.tolist())) == len(cards)


@settings(max_examples=100, deadline=None, derandomize=True)
@given(card_lists())
def test_random_hand_values_match_the_card_values(cards):
    points = {"A": 1, "J": 10, "Q": 10, "K": 10}
    expected = 0
    for card in cards:
        if card != "JK":
            rank = card[:-1]
            expected += points.get(rank, 0) or int(rank)
    assume(cards)
    assert hand_value(" ".join(cards)) == expected
    assert hand_value(parse_cards(" ".join(cards))) == expected


# -- hand values ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, value",
    [
        ("AS", 1),
        ("2H", 2),
        ("10D", 10),
        ("TD", 10),
        ("JC", 10),
        ("QS", 10),
        ("KH", 10),
        ("JK", 0),
        ("JK JK", 0),
        ("AS 2H 3D", 6),
        ("JS QH KD 10C", 40),
        ("AS JK", 1),
        ("9S 9S", 18),
        ("4D 5D JK 7D", 16),
        ("AC AD AH AS JK", 4),
        ("KS KS QD QD JH", 50),
        ("5C 6C 7C 8C 9C 10C JC", 55),
    ],
)
def test_hand_value_examples(text, value):
    assert hand_value(text) == value
    assert hand_value(parse_cards(text)) == value


def test_hand_value_is_a_python_int():
    assert type(hand_value("KS 3D")) is int
