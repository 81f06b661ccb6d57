"""Analyses behind the report: Assaf risk counts and the call-or-wait decision table."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from yaniv_sim import Rules
from yaniv_sim.analysis.assaf_risk import assaf_risk, turn_band
from yaniv_sim.analysis.decision_table import (
    decision_table,
    export_policy,
    rule_of_thumb,
    with_gains,
)
from yaniv_sim.engine.kernel import table_index
from yaniv_sim.engine.specs import policy_vector
from yaniv_sim.runs import simulate
from yaniv_sim.storage import open_dataset


def _points(rows):
    """Decision rows (3 players) from (hand value, fewest, turn, own/others both ways)."""
    data = []
    for value, fewest, turn, pc, pw, oc, ow in rows:
        data.append({"turn": turn, "hand_value": value, "opp1_cards": fewest, "opp2_cards": 5,
                     "fewest_opponent_cards": fewest, "called": False, "lowest_opponent": 9,
                     "points_if_call": pc, "points_if_wait": pw, "others_if_call": oc,
                     "others_if_wait": ow, "win_if_call": -1, "win_if_wait": -1})  # fmt: skip
    return pd.DataFrame(data)


def test_turn_bands_match_the_call_table():
    np.testing.assert_array_equal(turn_band([0, 9, 10, 19, 20, 300]), [0, 0, 1, 1, 2, 2])


def test_assaf_risk_is_a_direct_count(tmp_path):
    result = simulate(Rules(), 4, "best", games=40, seed=5, out=tmp_path / "d", workers=1)
    d = open_dataset(result.path).decisions
    table = assaf_risk(d, ["hand_value"])
    for row in table.itertuples():
        at = d[d["hand_value"] == row.hand_value]
        assert row.n == len(at)
        assert row.assafs == int((at["lowest_opponent"] <= row.hand_value).sum())
        assert row.low <= row.risk <= row.high


def test_assaf_risk_intervals_count_games_not_decision_points():
    # 40 games, each 25 copies of one point: the interval is at least that of 40 values,
    # far wider than a Wilson interval of 1,000 independent points would be
    rng = np.random.default_rng(8)
    hit = rng.random(40) < 0.3
    d = pd.DataFrame({"game": np.repeat(np.arange(40), 25), "hand_value": 4,
                      "lowest_opponent": np.repeat(np.where(hit, 2, 9), 25)})  # fmt: skip
    row = assaf_risk(d, ["hand_value"]).iloc[0]
    p = hit.mean()
    half = stats.t.ppf(0.975, 39) * np.sqrt(40 / 39 * ((hit - p) ** 2).sum()) / 40
    assert row.games == 40 and row.n == 1000
    assert row.high - row.low == pytest.approx(2 * half, rel=1e-9)
    independent = assaf_risk(d.assign(game=np.arange(1000)), ["hand_value"]).iloc[0]
    assert independent.high - independent.low < 0.4 * (row.high - row.low)
    # one game: nothing is known about how games differ
    one = assaf_risk(d[d["game"] == 0], ["hand_value"]).iloc[0]
    assert (one.low, one.high) == (0.0, 1.0)


def test_gain_is_the_margin_difference():
    # calling: own 0, others 20 + 10; waiting: own 5, others 6 + 4
    d = with_gains(_points([(3, 2, 4, 0, 5, 30, 10)]))
    assert d["opponents"].iloc[0] == 2
    assert d["gain"].iloc[0] == pytest.approx((5 - 10 / 2) - (0 - 30 / 2))
    assert d["points_gain"].iloc[0] == 5
    assert np.isnan(d["win_gain"].iloc[0])


def test_verdicts_follow_the_interval():
    rng = np.random.default_rng(1)
    rows = []
    for value, shift in ((1, +4.0), (2, -4.0), (3, 0.0)):
        for _ in range(400):
            noise = rng.normal(0, 3)
            # waiting costs `shift` points more than calling (others unchanged)
            rows.append((value, 3, 2, 0, round(shift + noise), 0, 0))
    rows += [(4, 3, 2, 0, 5, 0, 0)] * 20
    table = decision_table(_points(rows), by=("opponents", "hand_value"), min_points=100)
    verdict = dict(zip(table["hand_value"], table["verdict"], strict=True))
    assert verdict == {1: "call", 2: "wait", 3: "too close", 4: "too few"}
    one = table[table["hand_value"] == 1].iloc[0]
    gains = np.array([r[4] for r in rows if r[0] == 1], float)
    assert one["gain"] == pytest.approx(gains.mean())
    # no game column: every point is its own game, the usual t interval
    half = stats.t.ppf(0.975, len(gains) - 1) * gains.std(ddof=1) / np.sqrt(len(gains))
    assert one["gain_high"] - one["gain"] == pytest.approx(half, rel=1e-6)


def test_points_of_one_game_count_as_one_game():
    # 40 games of 10 identical points each: the interval is that of 40 values, not 400
    rng = np.random.default_rng(2)
    per_game = rng.normal(1.0, 3.0, size=40)
    rows = [(1, 3, 2, 0, float(v), 0, 0) for v in np.repeat(per_game, 10)]
    d = _points(rows).assign(game=np.repeat(np.arange(40), 10))
    one = decision_table(d, by=("opponents", "hand_value"), min_points=10).iloc[0]
    assert one["games"] == 40 and one["n"] == 400
    half = stats.t.ppf(0.975, 39) * per_game.std(ddof=1) / np.sqrt(40)
    assert one["gain_high"] - one["gain"] == pytest.approx(half, rel=1e-6)


def test_verdicts_are_controlled_over_the_whole_table():
    # 200 cells with no effect and 5 with a clear one: the clear ones get verdicts and
    # hardly any of the others do (a cell-by-cell 95% rule would give about ten)
    rng = np.random.default_rng(3)
    rows = []
    for value in range(205):
        shift = 3.0 if value < 5 else 0.0
        rows += [(value, 3, 2, 0, shift + rng.normal(0, 3), 0, 0) for _ in range(150)]
    table = decision_table(_points(rows), by=("opponents", "hand_value"), min_points=100)
    clear = table[table["hand_value"] < 5]
    assert (clear["verdict"] == "call").all()
    null = table[table["hand_value"] >= 5]
    assert (null["verdict"] != "too close").sum() <= 2
    assert ((null["gain_low"] > 0) | (null["gain_high"] < 0)).sum() >= 3  # each alone


def test_rule_of_thumb_reads_the_table():
    table = pd.DataFrame(
        {
            "opponents": [2] * 6,
            "hand_value": [2, 2, 3, 3, 5, 5],
            "fewest": [1, 3, 1, 3, 1, 3],
            "verdict": ["call", "call", "wait", "call", "wait", "wait"],
        }
    )
    assert rule_of_thumb(table, 2) == (
        "With 2 opponents: at 2: call; at 3: call only while every opponent holds 3+ cards; "
        "at 5: wait."
    )


def test_exported_table_plays_back_the_verdicts(tmp_path):
    table = pd.DataFrame(
        {
            "hand_value": [4, 6, 7],
            "fewest": [2, 1, 3],
            "band": [0, 2, 1],
            "verdict": ["call", "wait", "too close"],
        }
    )
    path = export_policy(table, "best:max_risk=0.2", tmp_path / "t.toml")
    vector = policy_vector(str(path))
    # a verdict by (hand value, fewest, band) sets the cells of every opponent count
    # and pickup value
    subcells = [(o, k) for o in (1, 2, 3) for k in (0, 1)]
    assert all(vector[table_index(4, 2, 0, o, k)] == 1 for o, k in subcells)
    assert all(vector[table_index(6, 1, 2, o, k)] == 0 for o, k in subcells)
    assert vector[table_index(7, 3, 1, 1, 0)] == 0.5  # no verdict: the policy decides
    base = policy_vector("best:max_risk=0.2,table=1")
    changed = np.flatnonzero(vector != base)
    expected = [table_index(v, c, b, o, k) for v, c, b in ((4, 2, 0), (6, 1, 2))
                for o, k in subcells]  # fmt: skip
    assert sorted(changed) == sorted(expected)


def test_verdicts_agree_with_head_to_head_play(tmp_path):
    # corrections of best's clear mistakes win against best; the table's verdicts
    # turned upside down lose badly: the branches' verdicts hold up in play
    from yaniv_sim.analysis.decision_table import corrections
    from yaniv_sim.compare import compare
    from yaniv_sim.engine.specs import canonical_spec

    run = simulate(Rules(), 3, "best", games=1500, seed=21, out=tmp_path / "d", workers=2,
                   branches=True, branch_games=50)  # fmt: skip
    points = with_gains(open_dataset(run.path).decisions)
    points = points[points["opponents"] == 2]
    fixed = export_policy(corrections(points), "best", tmp_path / "fixed.toml")
    table = decision_table(points)
    flip = {"call": "wait", "wait": "call", "too close": "too close", "too few": "too few"}
    flipped = table.assign(verdict=table["verdict"].map(flip))
    upside = export_policy(flipped, "best", tmp_path / "flipped.toml")
    better = compare([canonical_spec(str(fixed)), "best"], Rules(), 3, 1000, seed=99, workers=2)
    assert better.pairs.iloc[0]["low"] > 0
    worse = compare([canonical_spec(str(upside)), "best"], Rules(), 3, 300, seed=99, workers=2)
    assert worse.pairs.iloc[0]["high"] < 0


def test_intervals_are_calibrated_across_seeds(tmp_path):
    # the same cells measured on independent seeds differ by more than 1.96 combined
    # standard errors about 5% of the time if the intervals mean what they say; decision
    # points of one game are not independent, so intervals that ignore it come out short.
    # 8 seeds of 600 games (3 players, best, with branches), paired 1-2, 3-4, 5-6, 7-8.
    by = ["hand_value", "fewest", "band"]
    gains, risks = [], []
    for seed in range(1, 9):
        simulate(Rules.preset("standard"), 3, "best", games=600, seed=seed, branches=True,
                 branch_games=50, out=tmp_path / f"s{seed}", workers=1, quiet=True)  # fmt: skip
        d = with_gains(open_dataset(tmp_path / f"s{seed}").decisions)
        table = decision_table(d, by=by, min_points=30)
        table["se"] = (table["gain_high"] - table["gain_low"]) / (2 * stats.t.ppf(0.975, 599))
        gains.append(table)
        risk = assaf_risk(d, by)
        risk["se"] = (risk["high"] - risk["low"]) / (2 * 1.96)
        risks.append(risk)

    def outside(tables, value):
        z = []
        for a, b in [(0, 1), (2, 3), (4, 5), (6, 7)]:
            x = tables[a].merge(tables[b], on=by, suffixes=("_a", "_b"))
            x = x[(x["n_a"] >= 30) & (x["n_b"] >= 30)]
            z.append((x[f"{value}_a"] - x[f"{value}_b"]) / np.hypot(x["se_a"], x["se_b"]))
        z = pd.concat(z).dropna()
        assert len(z) > 250
        return float((np.abs(z) > 1.96).mean())

    gain_share, risk_share = outside(gains, "gain"), outside(risks, "risk")
    print(f"outside 1.96 combined SE: gains {gain_share:.1%}, risks {risk_share:.1%}")
    assert 0.01 < gain_share < 0.08
    assert 0.01 < risk_share < 0.08
