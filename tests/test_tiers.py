"""Calling rules a player can remember: their fit, their tables, their shipped costs."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from yaniv_sim import simulate, solve, tiers
from yaniv_sim.compare import compare
from yaniv_sim.engine.specs import canonical_spec
from yaniv_sim.rules import Rules
from yaniv_sim.solve import decision_gains, policy_text
from yaniv_sim.storage import open_dataset

STANDARD = Rules.preset("standard")


def _points(rng, cut_of, n=4000, threshold=7):
    """Decision points whose win gain is +0.02 at or below the group's cut, -0.05 above it."""
    value = rng.integers(0, threshold + 1, n)
    fewest = rng.integers(1, 6, n)
    band = rng.integers(0, 3, n)
    cut = np.array([cut_of(f, b) for f, b in zip(fewest, band, strict=False)])
    gain = np.where(value <= cut, 0.02, -0.05) + rng.normal(0, 0.01, n)
    return pd.DataFrame({"hand_value": value, "fewest": fewest, "band": band,
                         "called": value <= cut, "win_gain": gain})  # fmt: skip


def test_the_best_cut_calls_where_calling_gains():
    values = np.array([0, 1, 2, 3, 4, 5, 6, 7])
    assert tiers.best_cut(values, [1, 1, 1, 1, 1, -1, -1, -1], 7) == (4, 5.0)
    assert tiers.best_cut(values, [-1] * 8, 7) == (-1, 0.0)
    assert tiers.best_cut(values, [1] * 8, 7) == (7, 8.0)
    # a cell that gains nothing does not move the cut up (ties go to the cautious rule)
    assert tiers.best_cut(values, [1, 1, 1, 1, 1, 0, -1, -1], 7)[0] == 4
    # one big loss below outweighs small gains above
    assert tiers.best_cut(values, [-9, 1, 1, 1, 1, 1, 1, 1], 7)[0] == -1


def test_the_one_line_and_the_small_table_are_recovered_from_their_gains():
    rng = np.random.default_rng(3)
    points = _points(rng, lambda f, b: 6 if f >= 3 else 1)
    assert tiers.fit_one_line(points, 7) == tiers.OneLine(6, 1)
    grid = ((0, -1, -1), (2, 1, 0), (5, 4, 3), (7, 6, 4))
    points = _points(rng, lambda f, b: grid[min(f, 4) - 1][b])
    assert tiers.fit_small_table(points, 7) == tiers.SmallTable(grid)
    assert tiers.agreement(tiers.SmallTable(grid), points) == 1.0
    assert tiers.agreement(tiers.SmallTable(((7,) * 3,) * 4), points) < 1.0


def test_a_tier_sets_every_cell_a_call_can_reach():
    rule = tiers.OneLine(5, 1)
    table = tiers.table_of(rule, 7)
    assert len(table) == 8 * 7 * 3 * 3 * 2
    for (v, c, _b, _o, _k), verdict in table.items():
        assert verdict == int(v <= (5 if c >= 3 else 1))
    small = tiers.SmallTable(((0, 0, -1), (1, 1, 1), (4, 3, 2), (7, 6, 5)))
    cells = tiers.table_of(small, 5)
    assert max(v for v, *_ in cells) == 5
    assert cells[(2, 3, 2, 1, 0)] == 1 and cells[(3, 3, 2, 1, 0)] == 0
    assert cells[(0, 1, 2, 3, 1)] == 0 and cells[(0, 1, 1, 3, 1)] == 1
    assert cells[(5, 6, 0, 2, 0)] == 1 and (6, 6, 0, 2, 0) not in cells
    with pytest.raises(ValueError, match="fewest"):
        small.cut(0, 0)


def test_the_one_line_in_words():
    assert tiers.OneLine(6, 1).words() == (
        "call at 6 or less while every opponent holds 3+ cards; at 1 or less while an "
        "opponent is down to 1-2 cards"
    )
    assert (
        tiers.OneLine(7, 0).words().endswith("; only at 0 while an opponent is down to 1-2 cards")
    )
    assert tiers.OneLine(5, 5).words() == "call at 5 or less, whatever the opponents hold"
    assert (
        tiers.OneLine(7, -1).words().endswith("never call while an opponent is down to 1-2 cards")
    )


def test_the_kernel_plays_a_tier_as_written(tmp_path):
    # where the call table decides (no long round, no milestone landing), the seat
    # calls exactly when the tier says so
    rule = tiers.SmallTable(((0, 1, -1), (2, 2, 1), (5, 4, 3), (7, 6, 6)))
    policy = tmp_path / "tier.toml"
    policy.write_text(policy_text("best", tiers.table_of(rule, 7), ["test"]))
    simulate(STANDARD, 3, str(policy), games=100, seed=11, branches=True, branch_games=50,
             out=tmp_path / "d", workers=1)  # fmt: skip
    points = decision_gains(open_dataset(tmp_path / "d"), STANDARD, "best", None)
    assert len(points) > 1000
    says = [v <= rule.cut(f, b) for v, f, b in
            zip(points["hand_value"], points["fewest"], points["band"], strict=False)]  # fmt: skip
    assert (points["called"].to_numpy() == np.array(says)).all()
    assert points["called"].any() and not points["called"].all()


def test_compare_gives_points_per_round_paired_over_deals():
    c = compare(["max-shed", "best"], STANDARD, 3, 120, seed=5, workers=1)
    # the table's mean round score is the deals' points over their round-seats
    for i in range(2):
        assert c.table.mean_round_score[i] == pytest.approx(
            c.deal_points[:, i].sum() / c.deal_seats[:, i].sum()
        )
    assert (c.deal_seats > 0).all()
    more, low, high = c.points_difference(0, 1)
    assert low > 0  # max-shed, calling as soon as it may, scores clearly more a round
    assert low < more < high
    per = c.deal_points / c.deal_seats
    assert more == pytest.approx((per[:, 0] - per[:, 1]).mean())
    assert c.points_difference(1, 0)[0] == pytest.approx(-more)


@pytest.mark.parametrize(("rules_name", "players"), [("standard", 2), ("standard", 4),
                                                     ("nordic", 3)])  # fmt: skip
def test_the_shipped_tiers_are_the_rules_their_files_play(rules_name, players):
    saved = tiers.read_shipped(rules_name, players)
    assert saved is not None, f"no tiers ship for {rules_name} {players}p"
    threshold = Rules.preset(rules_name).threshold
    line = saved["tiers"]["one line"]
    small = saved["tiers"]["small table"]
    made = {
        "one line": tiers.OneLine(line["many"], line["few"]),
        "small table": tiers.SmallTable(tuple(tuple(r) for r in small["cuts"])),
    }
    for name, rule in made.items():
        path = tiers.DATA / saved["tiers"][name]["file"]
        assert solve.read_table(path) == tiers.table_of(rule, threshold)
    for name in ("one line", "small table", "best"):
        cost, low, high = saved["tiers"][name]["win_cost"]
        assert low <= cost <= high
        more, low, high = saved["tiers"][name]["points_cost"]
        assert low <= more <= high
    assert tiers.read_shipped(rules_name, 9) is None


def test_the_tiers_script_fits_plays_back_and_writes_its_files(tmp_path):
    import json

    from tests.conftest import load_script

    script = load_script("tiers")
    out = tmp_path / "t"
    args = ["--rules", "standard", "--players", "2", "--games", "40", "--deals", "20",
            "--iterations", "1", "--workers", "1", "--out", str(out)]  # fmt: skip
    assert script.main(args) == 0
    saved = json.loads((out / "standard-2p-tiers.json").read_text())
    assert saved["deals"] == 20 and saved["games"] == 40
    line = saved["tiers"]["one line"]
    rule = tiers.OneLine(line["many"], line["few"])
    assert solve.read_table(out / line["file"]) == tiers.table_of(rule, 7)
    # the refit played the tier against the full strategy and read the tier seat alone
    data = open_dataset(out / "fit-standard-2p-one line-1")
    tier = canonical_spec(str(out / "standard-2p-one-line-1.toml"))
    ids = [i for i, s in data.policy_names().items() if s == tier]
    assert len(ids) == 1 and len(data.policy_names()) == 2
    mine = decision_gains(data, STANDARD, "best", None, policy=ids[0])
    assert 0 < len(mine) < len(decision_gains(data, STANDARD, "best", None))
    assert line["refits"][0]["points"] == len(mine)
    for name in ("one line", "small table", "best"):
        cost, low, high = saved["tiers"][name]["win_cost"]
        assert low <= cost <= high
