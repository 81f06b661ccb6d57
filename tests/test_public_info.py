"""What a player can see: the features of a decision point, their tables and the section."""

from __future__ import annotations

import types

import numpy as np
import pandas as pd
import pytest

from yaniv_sim.analysis.public_info import FEATURES, feature_table
from yaniv_sim.report import public_info
from yaniv_sim.report.context import ReportOptions
from yaniv_sim.rules import Rules
from yaniv_sim.solve import branch_values

STANDARD = Rules.preset("standard")


def _synthetic(rng, games=300, per_game=6):
    """Points at hand values 2 and 5; the pickup raises the risk and makes waiting better."""
    n = games * per_game
    game = np.repeat(np.arange(games), per_game)
    value = rng.choice([2, 5], n)
    pickup = rng.integers(0, 2, n)
    risk = np.where(pickup == 1, 0.6, 0.1)
    assafed = (rng.random(n) < risk).astype(np.int64)
    gain = np.where(pickup == 1, -0.03, 0.02) + rng.normal(0, 0.05, n)
    return pd.DataFrame({"game": game, "hand_value": value, "pickup": pickup,
                         "next_fewest": rng.integers(0, 2, n), "assaf_out": 0,
                         "assafed": assafed, "win_gain": gain,
                         "called": rng.random(n) < 0.5})  # fmt: skip


def test_a_feature_that_matters_turns_the_verdict():
    points = _synthetic(np.random.default_rng(1))
    table = feature_table(points, "pickup")
    assert list(table.columns[:2]) == ["hand_value", "level"] and len(table) == 4
    for row in table.itertuples():
        part = points[(points["hand_value"] == row.hand_value) & (points["pickup"] == row.level)]
        assert row.n == len(part) and row.risk == pytest.approx(part["assafed"].mean())
        assert row.risk_low <= row.risk <= row.risk_high
        assert row.verdict == ("wait" if row.level == 1 else "call")
    # a feature that changes nothing gives no verdict flips
    noise = feature_table(points.assign(win_gain=np.random.default_rng(2).normal(0, 0.05,
                                                                                len(points))),
                          "next_fewest")  # fmt: skip
    assert (noise["verdict"] == "too close").mean() >= 0.75
    few = feature_table(points, "pickup", min_points=10_000)
    assert (few["verdict"] == "too few").all()
    with pytest.raises(ValueError, match="feature"):
        feature_table(points, "colour")


def test_a_game_repeating_one_point_counts_as_one_observation():
    # 40 games, each with 25 copies of one point: the interval is that of 40 values
    rng = np.random.default_rng(4)
    hit = (rng.random(40) < 0.3).astype(np.int64)
    points = pd.DataFrame({"game": np.repeat(np.arange(40), 25), "hand_value": 3,
                           "pickup": 0, "assafed": np.repeat(hit, 25), "win_gain": 0.0,
                           "called": False})  # fmt: skip
    row = feature_table(points, "pickup").iloc[0]
    p = hit.mean()
    from scipy import stats

    half = stats.t.ppf(0.975, 39) * np.sqrt(40 / 39 * ((hit - p) ** 2).sum()) / 40
    assert row.risk_high - row.risk_low == pytest.approx(2 * half, rel=1e-9)
    one = feature_table(points[points["game"] == 0], "pickup", min_points=1).iloc[0]
    assert (one.risk_low, one.risk_high) == (0.0, 1.0)


def test_the_lowest_total_leads_and_ties_count(tmp_path):
    data = _fake_dataset()
    data.rounds["total_2"] = [10, 10]  # seat 1 and seat 2 tied at 10, seat 0 at 190
    values = branch_values(data, None)
    assert list(values["leading"]) == [0, 1]


def _fake_dataset():
    """Two decision points of a 4-player game, written by hand."""
    rounds = pd.DataFrame({"game": [0, 0], "round": [0, 1], "starter": [0, 1],
                           "score_0": [190, 0], "score_1": [10, 0], "score_2": [5, 0],
                           "score_3": [400, 0], "winner": [2, -1], "caller": [2, -1],
                           "total_0": [190, 190], "total_1": [10, 10], "total_2": [5, 5],
                           "total_3": [400, 400],
                           "outcome": ["yaniv", "yaniv"]})  # fmt: skip
    games = pd.DataFrame({"game": [0], "winner": [-1], "out_round_0": [-1], "out_round_1": [-1],
                          "out_round_2": [-1], "out_round_3": [0]})  # fmt: skip
    dec = pd.DataFrame({
        "game": [0, 0], "round": [1, 1], "turn": [3, 4], "seat": [0, 1], "policy": [0, 0],
        "hand_value": [5, 2], "hand_cards": [2, 1], "called": [False, False],
        "lowest_opponent": [5, 9],
        # seat 0's opponents in playing order: 1, 2, 3 (3 is out); seat 1's: 2, 3, 0
        "opp1_cards": [4, 2], "opp2_cards": [2, -1], "opp3_cards": [-1, 2],
        "opp1_took": [1, 1], "opp2_took": [0, -1], "opp3_took": [-1, 2],
        "opp1_took_value": [6, 1], "opp2_took_value": [0, -1], "opp3_took_value": [-1, 9],
        "fewest_opponent_cards": [2, 2],
        "points_if_call": [0, 0], "points_if_wait": [0, 0], "others_if_call": [0, 0],
        "others_if_wait": [0, 0],
        **{f"score_{s}_if_{w}": [0, 0] for s in range(4) for w in ("call", "wait")},
        "round_winner_if_call": [0, 1], "round_winner_if_wait": [0, 1],
    })  # fmt: skip
    manifest = {"request": {"players": 4, "rules": STANDARD.to_dict()}}
    return types.SimpleNamespace(decisions=dec, rounds=rounds, games=games, manifest=manifest)


def test_branch_values_reads_the_public_features_of_a_hand_made_position():
    values = branch_values(_fake_dataset(), None)
    # seat 0: the next opponent (seat 1) holds 4, the shortest hand (2) is seat 2's;
    # seat 1 took a 6 (worth more than the hand of 5): no pickup; total 190 + 35 > 200
    first = values.iloc[0]
    assert (first.next_fewest, first.pickup, first.total, first.assaf_out) == (0, 0, 190, 1)
    # seats 1 and 2 (10 and 5) are lower; seat 3 (400, out) does not count
    assert first.leading == 0
    assert (first.hand_cards, first.one_card) == (2, 0)
    assert first.assafed == 1 and first.opponents == 2 and first.seats_in == 3
    # seat 1: the next opponent in (seat 2) holds 2, the fewest: next; it took a 1 (<= 2)
    second = values.iloc[1]
    assert (second.next_fewest, second.pickup, second.total, second.assaf_out) == (1, 1, 10, 0)
    assert second.leading == 0  # seat 2 has 5
    assert second.assafed == 0
    assert (second.hand_cards, second.one_card) == (1, 1)


@pytest.fixture(scope="module")
def section(report):
    options = ReportOptions(quick=True, scale=60 / 300, players=(3, 4), data=report / "data",
                            quiet=True, workers=1)  # fmt: skip
    return options, public_info.build(options)


def test_the_section_splits_every_decision_point_by_each_feature(section):
    options, built = section
    table = built.data["features"]
    assert set(table["feature"]) == set(FEATURES) and set(table["players"]) == {3, 4}
    for players in (3, 4):
        points, gain = public_info.points_of(options, players)
        assert gain == "win_gain" and len(points) > 500
        for feature in FEATURES:
            part = table[(table["players"] == players) & (table["feature"] == feature)]
            assert part["n"].sum() == len(points)
            for row in part.itertuples():
                mine = points[(points["hand_value"] == row.hand_value)
                              & (points[feature] == row.level)]  # fmt: skip
                assert row.risk == pytest.approx(mine["assafed"].mean())
                assert row.gain == pytest.approx(mine["win_gain"].mean())
    assert "public-info.csv" in built.files


def test_flips_are_only_call_against_wait():
    verdicts = ["call", "wait", "call", "too close", "wait", "call"]
    table = pd.DataFrame({"players": 3, "feature": "pickup", "hand_value": [1, 1, 2, 2, 3, 3],
                          "level": [0, 1] * 3, "verdict": verdicts})  # fmt: skip
    turned = public_info.flips(table)
    assert list(turned["hand_value"]) == [1, 3]
    assert public_info._spans([1, 2, 3, 5]) == "1-3 and 5 points"
    assert public_info._spans([1]) == "1 point"
