"""Round scores (the rule book (section 5)) and running totals (section 6).

Every expected score and total below is worked out by hand from the rule
book and the project decisions on ties, milestones, theft and elimination.
"""

from __future__ import annotations

import numpy as np
import pytest

from yaniv_sim import Rules
from yaniv_sim.engine import score_round, settle_round

STANDARD = Rules.preset("standard")
NORDIC = Rules.preset("nordic")
THEFT = Rules.preset("standard", variants=["milestone-theft"])


def scores(values, caller, rules, slapdown=False) -> list[int]:
    return [int(s) for s in score_round(values, caller, rules, slapdown=slapdown)]


def settle(totals, round_scores, alive, rules):
    new_totals, new_alive, winner = settle_round(totals, round_scores, alive, rules)
    return [int(t) for t in new_totals], [bool(a) for a in new_alive], winner


# -- Yaniv succeeds --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "values, caller, expected",
    [
        ([3, 10, 8, 20], 0, [0, 10, 8, 20]),
        ([7, 8], 0, [0, 8]),
        ([12, 0, 1], 1, [12, 0, 1]),
        ([9, 14, 6, 7, 30, 11], 2, [9, 14, 0, 7, 30, 11]),
    ],
)
def test_yaniv_succeeds_when_every_other_hand_is_higher(values, caller, expected):
    assert scores(values, caller, STANDARD) == expected


def test_yaniv_nordic():
    assert scores([5, 6, 25], 0, NORDIC) == [0, 6, 25]


def test_score_round_returns_one_integer_per_seat():
    result = score_round([3, 10, 8], 0, STANDARD)
    assert isinstance(result, np.ndarray)
    assert result.shape == (3,)
    assert np.issubdtype(result.dtype, np.integer)


# -- Assaf --------------------------------------------------------------------------------------


def test_assaf_tie_goes_against_the_caller():
    assert scores([5, 5], 0, STANDARD) == [35, 0]
    assert scores([5, 5], 0, NORDIC) == [35, 5]


def test_assaf_zero_lowest_opponent_scores_zero():
    assert scores([6, 4, 5, 12], 0, STANDARD) == [36, 0, 5, 12]


def test_assaf_zero_tied_lowest_opponents_all_score_zero():
    assert scores([6, 3, 3, 9], 0, STANDARD) == [36, 0, 0, 9]
    assert scores([4, 2, 9, 2, 2], 2, Rules.preset("standard", threshold=9)) == [4, 0, 39, 0, 0]


def test_assaf_zero_opponent_at_callers_value_but_not_lowest_scores_hand():
    assert scores([5, 5, 1, 20], 0, STANDARD) == [35, 5, 0, 20]


def test_assaf_zero_caller_not_seat_zero():
    assert scores([10, 3, 2], 1, STANDARD) == [10, 33, 0]


def test_assaf_hand_everyone_but_caller_scores_hand():
    rules = Rules.preset("standard", assaf_winner_scores="hand")
    assert scores([6, 4, 5, 12], 0, rules) == [36, 4, 5, 12]
    assert scores([6, 3, 3, 9], 0, rules) == [36, 3, 3, 9]


def test_assaf_hand_is_nordic():
    assert scores([4, 3, 8], 0, NORDIC) == [34, 3, 8]
    assert scores([0, 0, 8], 0, NORDIC) == [30, 0, 8]


def test_assaf_all_zero():
    rules = Rules.preset("standard", assaf_winner_scores="all_zero")
    assert scores([6, 4, 5, 12], 0, rules) == [36, 0, 0, 0]
    assert scores([10, 3, 2], 1, rules) == [0, 33, 0]


def test_assaf_penalty_25():
    rules = Rules.preset("standard", assaf_penalty=25)
    assert scores([5, 5, 9], 0, rules) == [30, 0, 9]


def test_assaf_flat_penalty_without_hand():
    rules = Rules.preset("standard", assaf_adds_hand=False)
    assert scores([5, 5, 9], 0, rules) == [30, 0, 9]
    rules = Rules.preset("standard", assaf_adds_hand=False, assaf_penalty=25)
    assert scores([7, 2, 9], 0, rules) == [25, 0, 9]


def test_assaf_penalty_zero_still_adds_hand():
    rules = Rules.preset("standard", assaf_penalty=0)
    assert scores([6, 6], 1, rules) == [0, 6]


def test_call_with_zero_is_assafed_by_another_zero():
    assert scores([0, 0, 8], 0, STANDARD) == [30, 0, 8]


def test_yaniv5_variant_assaf():
    rules = Rules.preset("standard", variants=["yaniv5"])
    assert scores([5, 4], 0, rules) == [35, 0]


# -- No Assaf, slapdown, no call ---------------------------------------------------------------


@pytest.mark.parametrize("preset", ["standard", "nordic"])
def test_no_assaf_call_always_succeeds(preset):
    rules = Rules.preset(preset, variants=["no-assaf"])
    assert scores([5, 5, 9], 0, rules) == [0, 5, 9]
    assert scores([5, 2, 3], 0, rules) == [0, 2, 3]
    assert scores([4, 0, 30], 0, rules) == [0, 0, 30]


def test_slapdown_caller_scores_zero_others_hand():
    rules = Rules.preset("standard", variants=["slapdown"])
    assert scores([0, 3, 12], 0, rules, slapdown=True) == [0, 3, 12]


def test_slapdown_cannot_be_assafed():
    rules = Rules.preset("standard", variants=["slapdown"])
    assert scores([0, 0, 8], 0, rules, slapdown=True) == [0, 0, 8]
    assert scores([5, 0, 0], 2, rules, slapdown=True) == [5, 0, 0]


def test_slapdown_with_nonzero_hand_is_rejected():
    rules = Rules.preset("standard", variants=["slapdown"])
    with pytest.raises(ValueError):
        score_round([1, 3, 12], 0, rules, slapdown=True)


def test_no_call_everyone_scores_hand():
    assert scores([3, 10, 8], None, STANDARD) == [3, 10, 8]
    assert scores([0, 44, 2, 50], None, NORDIC) == [0, 44, 2, 50]


def test_no_call_and_slapdown_together_is_rejected():
    with pytest.raises(ValueError):
        score_round([0, 10], None, STANDARD, slapdown=True)


# -- calls the rules do not allow ------------------------------------------------------------------


def test_caller_above_threshold_is_rejected():
    with pytest.raises(ValueError):
        score_round([8, 20], 0, STANDARD)
    with pytest.raises(ValueError):
        score_round([6, 20], 0, NORDIC)
    with pytest.raises(ValueError):
        score_round([20, 10], 1, Rules.preset("standard", variants=["yaniv9"]))


def test_caller_at_threshold_is_allowed():
    assert scores([7, 20], 0, STANDARD) == [0, 20]
    assert scores([20, 5], 1, NORDIC) == [20, 0]
    assert scores([9, 20], 0, Rules.preset("standard", variants=["yaniv9"])) == [0, 20]
    assert scores([0, 20], 0, Rules.preset("standard", threshold=0)) == [0, 20]


@pytest.mark.parametrize("caller", [-1, 3, 10, True])
def test_caller_must_be_a_seat(caller):
    with pytest.raises(ValueError):
        score_round([1, 2, 3], caller, STANDARD)


@pytest.mark.parametrize("values", [[5], [1, 2, 3, 4, 5, 6, 7, 8, 9], [3, -1]])
def test_bad_hand_values(values):
    with pytest.raises(ValueError):
        score_round(values, 0, STANDARD)


# -- milestones ----------------------------------------------------------------------------------


def test_standard_milestone_50_to_25():
    assert settle([45, 45], [5, 6], [True, True], STANDARD) == ([25, 51], [True, True], None)


def test_standard_milestone_100_to_50_does_not_chain_to_25():
    assert settle([90, 10], [10, 3], [True, True], STANDARD) == ([50, 13], [True, True], None)


def test_nordic_milestones_200_stops_at_100():
    assert settle([170, 10], [30, 3], [True, True], NORDIC) == ([100, 13], [True, True], None)
    assert settle([95, 10], [5, 3], [True, True], NORDIC) == ([50, 13], [True, True], None)


def test_nordic_has_no_50_milestone():
    assert settle([45, 10], [5, 3], [True, True], NORDIC) == ([50, 13], [True, True], None)


def test_zero_score_on_a_milestone_stays():
    assert settle([50, 10], [0, 5], [True, True], STANDARD) == ([50, 15], [True, True], None)
    assert settle([100, 10], [0, 5], [True, True], STANDARD) == ([100, 15], [True, True], None)


def test_passing_a_milestone_does_nothing():
    assert settle([45, 95], [10, 10], [True, True], STANDARD) == ([55, 105], [True, True], None)


def test_custom_milestones():
    rules = Rules(milestones={150: 75, 60: 0})
    assert settle([140, 55, 59], [10, 5, 2], [True] * 3, rules) == (
        [75, 0, 61],
        [True] * 3,
        None,
    )


def test_custom_milestones_do_not_chain():
    rules = Rules(milestones={50: 25, 100: 50, 150: 100, 200: 150})
    assert settle([140, 190], [10, 10], [True, True], rules) == ([100, 150], [True, True], None)


def test_no_milestones():
    rules = Rules(milestones={})
    assert settle([45, 90], [5, 10], [True, True], rules) == ([50, 100], [True, True], None)


def test_several_players_land_in_one_round():
    assert settle([45, 90, 20], [5, 10, 30], [True] * 3, STANDARD) == (
        [25, 50, 25],
        [True] * 3,
        None,
    )


# -- milestone theft -----------------------------------------------------------------------------


def test_theft_single_landing_charges_the_leader():
    assert settle([45, 10, 20], [5, 0, 3], [True] * 3, THEFT) == ([25, 40, 23], [True] * 3, None)


def test_theft_off_by_default():
    assert settle([45, 10, 20], [5, 0, 3], [True] * 3, STANDARD) == ([25, 10, 23], [True] * 3, None)


def test_theft_lander_is_not_its_own_leader():
    assert settle([45, 30, 40], [5, 0, 2], [True] * 3, THEFT) == ([25, 60, 42], [True] * 3, None)


def test_theft_tied_leaders_all_pay():
    assert settle([45, 10, 10, 60], [5, 0, 0, 0], [True] * 4, THEFT) == (
        [25, 40, 40, 60],
        [True] * 4,
        None,
    )


def test_theft_two_landings_add_up():
    assert settle([45, 90, 5, 60], [5, 10, 0, 3], [True] * 4, THEFT) == (
        [25, 50, 65, 63],
        [True] * 4,
        None,
    )


def test_theft_leaders_are_computed_before_any_charge():
    # seat 0 lands on 25 and seat 1 on 50; seat 2 (10) is the lowest other
    # total for both landings, so it pays twice, even though after one charge
    # seat 0 would be lower.
    assert settle([45, 90, 10], [5, 10, 0], [True] * 3, THEFT) == ([25, 50, 70], [True] * 3, None)


def test_theft_two_landers_charge_each_other():
    assert settle([45, 45, 80], [5, 5, 0], [True] * 3, THEFT) == ([55, 55, 80], [True] * 3, None)


def test_theft_uses_totals_after_this_rounds_milestones():
    # seat 1 goes 90 -> 100 -> 50; seat 2 stays at 40; seat 0 lands 45 -> 50 -> 25.
    # For seat 0's landing the others stand at 50 and 40: seat 2 pays.
    # For seat 1's landing the others stand at 25 and 40: seat 0 pays.
    assert settle([45, 90, 40], [5, 10, 0], [True] * 3, THEFT) == ([55, 50, 70], [True] * 3, None)


def test_theft_charge_never_triggers_a_milestone():
    assert settle([45, 20, 70], [5, 0, 0], [True] * 3, THEFT) == ([25, 50, 70], [True] * 3, None)


def test_theft_skips_players_out_of_the_game():
    assert settle([45, 60, 0], [5, 0, 0], [True, True, False], THEFT) == (
        [25, 90, 0],
        [True, True, False],
        None,
    )


def test_theft_before_elimination():
    assert settle([45, 180, 190], [5, 0, 5], [True] * 3, THEFT) == (
        [25, 210, 195],
        [True, False, True],
        None,
    )


def test_theft_charges_a_player_who_is_going_out_this_round():
    rules = Rules.preset("standard", variants=["milestone-theft"], limit=100, milestones={50: 25})
    assert settle([45, 95, 98], [5, 10, 5], [True] * 3, rules) == (
        [25, 105, 133],
        [True, False, False],
        0,
    )


def test_theft_with_no_landing_charges_nothing():
    assert settle([45, 10, 20], [6, 0, 3], [True] * 3, THEFT) == ([51, 10, 23], [True] * 3, None)


def test_theft_landing_on_zero_score_is_no_landing():
    assert settle([50, 10, 20], [0, 0, 3], [True] * 3, THEFT) == ([50, 10, 23], [True] * 3, None)


# -- elimination and winners ----------------------------------------------------------------------


def test_over_the_limit_is_out_and_last_player_wins():
    assert settle([150, 190], [20, 11], [True, True], STANDARD) == ([170, 201], [True, False], 0)


def test_exactly_the_limit_stays_in():
    assert settle([150, 190], [20, 10], [True, True], STANDARD) == ([170, 200], [True, True], None)


def test_one_out_of_three_game_goes_on():
    assert settle([10, 195, 120], [5, 6, 7], [True] * 3, STANDARD) == (
        [15, 201, 127],
        [True, False, True],
        None,
    )


def test_two_out_of_three_leaves_a_winner():
    assert settle([10, 195, 190], [5, 6, 20], [True] * 3, STANDARD) == (
        [15, 201, 210],
        [True, False, False],
        0,
    )


def test_winner_is_the_seat_left():
    assert settle([195, 190, 10], [6, 20, 5], [True] * 3, STANDARD) == (
        [201, 210, 15],
        [False, False, True],
        2,
    )


def test_custom_limit():
    rules = Rules.preset("standard", limit=100, milestones={})
    assert settle([95, 89], [6, 11], [True, True], rules) == ([101, 100], [False, True], 1)


def test_players_already_out_are_untouched():
    assert settle([250, 20, 30], [0, 5, 7], [False, True, True], STANDARD) == (
        [250, 25, 37],
        [False, True, True],
        None,
    )


def test_all_over_the_limit_lowest_wins():
    assert settle([195, 198], [10, 20], [True, True], STANDARD) == ([205, 218], [True, False], 0)
    assert settle([195, 198, 199], [30, 5, 10], [True] * 3, STANDARD) == (
        [225, 203, 209],
        [False, True, False],
        1,
    )


def test_all_over_the_limit_tie_stays_in():
    assert settle([195, 198], [10, 7], [True, True], STANDARD) == ([205, 205], [True, True], None)


def test_all_over_the_limit_tied_lowest_stay_others_out():
    assert settle([195, 198, 199], [10, 7, 31], [True] * 3, STANDARD) == (
        [205, 205, 230],
        [True, True, False],
        None,
    )


def test_all_over_the_limit_ignores_players_already_out():
    assert settle([150, 195, 198], [0, 10, 20], [False, True, True], STANDARD) == (
        [150, 205, 218],
        [False, True, False],
        1,
    )


def test_tied_players_above_the_limit_play_on_and_lowest_wins_next():
    assert settle([205, 205], [0, 10], [True, True], STANDARD) == ([205, 215], [True, False], 0)
    assert settle([205, 205], [3, 3], [True, True], STANDARD) == ([208, 208], [True, True], None)


def test_all_over_the_limit_after_milestones():
    # 150 + 60 = 210 lands on no milestone; 190 + 10 = 200 lands on 200 -> 150
    rules = Rules.preset("standard", milestones={200: 150})
    assert settle([150, 190], [60, 10], [True, True], rules) == ([210, 150], [False, True], 1)


# -- bad input -----------------------------------------------------------------------------------


def test_settle_rejects_mismatched_lengths():
    with pytest.raises(ValueError):
        settle_round([10, 20], [1, 2, 3], [True, True], STANDARD)


def test_settle_rejects_negative_scores():
    with pytest.raises(ValueError):
        settle_round([10, 20], [-1, 2], [True, True], STANDARD)


def test_settle_does_not_modify_its_input():
    totals = np.array([45, 10, 20])
    alive = np.array([True, True, True])
    settle_round(totals, [5, 0, 3], alive, THEFT)
    assert totals.tolist() == [45, 10, 20]
    assert alive.tolist() == [True, True, True]
