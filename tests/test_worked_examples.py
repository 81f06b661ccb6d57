"""The worked examples of the rule book, one test each, as card text."""

from __future__ import annotations

from collections import Counter

import pytest

from yaniv_sim import Rules, format_cards
from yaniv_sim.engine import (
    discard_kind,
    hand_value,
    legal_discards,
    legal_layings,
    score_round,
    settle_round,
    takeable,
)

STANDARD = Rules.preset("standard")
NORDIC = Rules.preset("nordic")


def taken(laid: str, rules: Rules, kind: str | None = None) -> Counter:
    return Counter(format_cards(takeable(laid, rules, kind)).split())


def laid_texts(hand: str, rules: Rules) -> list[str]:
    return [format_cards(d) for d in legal_discards(hand, rules)]


@pytest.mark.parametrize("rules", [STANDARD, NORDIC], ids=["standard", "nordic"])
def test_example_1_queen_king_ace_is_no_run_ace_two_three_is(rules):
    with pytest.raises(ValueError):
        discard_kind("QH KH AH", rules)
    assert discard_kind("AH 2H 3H", rules) == "run"
    assert all(len(d.split()) == 1 for d in laid_texts("QH KH AH", rules))
    assert "AH 2H 3H" in laid_texts("AH 2H 3H", rules)


@pytest.mark.parametrize("rules", [STANDARD, NORDIC], ids=["standard", "nordic"])
def test_example_2_joker_inside_run_takeable_ends_only(rules):
    assert discard_kind("4D 5D JK 7D", rules) == "run"
    assert taken("4D 5D JK 7D", rules) == Counter(["4D", "7D"])
    assert "4D 5D JK 7D" in laid_texts("4D 5D JK 7D", rules)


@pytest.mark.parametrize("rules", [STANDARD, NORDIC], ids=["standard", "nordic"])
def test_example_3_joker_at_run_end_takeable(rules):
    assert discard_kind("JK 8H 9H", rules) == "run"
    assert taken("JK 8H 9H", rules) == Counter(["JK", "9H"])
    laid = laid_texts("8H 9H JK", rules)
    assert "JK 8H 9H" in laid
    assert "8H 9H JK" in laid


def test_example_4_three_eights_nordic_ends_standard_any():
    assert discard_kind("8S 8H 8C", NORDIC) == "set"
    assert taken("8S 8H 8C", NORDIC) == Counter(["8S", "8C"])
    assert discard_kind("8S 8H 8C", STANDARD) == "set"
    assert taken("8S 8H 8C", STANDARD) == Counter(["8S", "8H", "8C"])


def test_example_5_five_five_joker_nordic_illegal_standard_set():
    with pytest.raises(ValueError):
        discard_kind("5C 5D JK", NORDIC)
    assert all(len(d.split()) < 3 for d in laid_texts("5C 5D JK", NORDIC))
    assert discard_kind("5C 5D JK", STANDARD) == "set"
    assert any(
        Counter(d.split()) == Counter(["5C", "5D", "JK"]) for d in laid_texts("5C 5D JK", STANDARD)
    )
    assert taken("5C 5D JK", STANDARD) == Counter(["5C", "5D", "JK"])


@pytest.mark.parametrize("rules", [STANDARD, NORDIC], ids=["standard", "nordic"])
def test_example_6_anna_calls_with_5_bo_holds_5_assaf_35(rules):
    anna, bo = hand_value("2S 3H"), hand_value("AC 4D")
    assert (anna, bo) == (5, 5)
    assert int(score_round([anna, bo], 0, rules)[0]) == 35


def test_example_7_nordic_assafed_at_166_lands_on_200_halved_to_100():
    anna, other = hand_value("AS 3C"), hand_value("2D JK AH")
    assert (anna, other) == (4, 3)
    round_scores = score_round([anna, other], 0, NORDIC)
    assert [int(s) for s in round_scores] == [34, 3]
    totals, alive, winner = settle_round([166, 40], round_scores, [True, True], NORDIC)
    assert [int(t) for t in totals] == [100, 43]
    assert [bool(a) for a in alive] == [True, True]
    assert winner is None


def test_example_8_nordic_both_at_201_tie_and_play_on():
    other, caller = hand_value("AD 2C"), hand_value("3S")
    assert (other, caller) == (3, 3)
    round_scores = score_round([other, caller], 1, NORDIC)
    assert [int(s) for s in round_scores] == [3, 33]
    totals, alive, winner = settle_round([198, 168], round_scores, [True, True], NORDIC)
    assert [int(t) for t in totals] == [201, 201]
    assert [bool(a) for a in alive] == [True, True]
    assert winner is None


def test_example_9_standard_45_plus_5_becomes_25_plus_6_stays_51():
    totals, alive, winner = settle_round([45, 45], [5, 6], [True, True], STANDARD)
    assert [int(t) for t in totals] == [25, 51]
    assert [bool(a) for a in alive] == [True, True]
    assert winner is None


def test_example_4_one_five_and_two_jokers_set_or_run():
    layings = {(format_cards(d), k) for d, k in legal_layings("5C JK JK", STANDARD) if len(d) == 3}
    assert layings == {("5C JK JK", "set"), ("JK JK 5C", "run"), ("JK 5C JK", "run"),
                       ("5C JK JK", "run")}  # fmt: skip
    assert taken("5C JK JK", STANDARD, "set") == Counter(["5C", "JK", "JK"])
    assert taken("JK 5C JK", STANDARD, "run") == Counter(["JK", "JK"])  # 4-5-6: the 5C is safe
    assert taken("JK JK 5C", STANDARD, "run") == Counter(["JK", "5C"])
    nordic = {(format_cards(d), k) for d, k in legal_layings("5C JK JK", NORDIC) if len(d) == 3}
    assert nordic == {(cards, "run") for cards, k in layings if k == "run"}
    runs = {format_cards(d) for d, k in legal_layings("2C JK JK", STANDARD) if k == "run"}
    assert runs == {"2C JK JK", "JK 2C JK"}  # 2-3-4 and A-2-3
