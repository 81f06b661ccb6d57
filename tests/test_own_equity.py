"""scripts/own_equity.py: a solution's own equity table, and its check valued by each table."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from tests.conftest import load_script
from yaniv_sim import equity, solve
from yaniv_sim.engine.specs import canonical_spec


def _script():
    return load_script("own_equity")


def test_the_better_prediction_has_the_lower_brier_score():
    rng = np.random.default_rng(3)
    games = np.repeat(np.arange(400), 5)
    won = rng.random(len(games)) < 0.3
    data = pd.DataFrame({"game": games, "alive": 2, "won": won.astype(float),
                         "best": 0.5, "own": np.where(won, 0.9, 0.1)})  # fmt: skip
    out = _script().compare_tables(data)
    assert out["pairs"] == 2000 and out["games"] == 400
    assert np.isclose(out["brier_best_table"], 0.25)
    assert np.isclose(out["brier_own_table"], 0.01)
    gain, low, high = out["brier_gain_of_own"]
    assert np.isclose(gain, 0.24) and low <= gain <= high
    assert np.isclose(out["mean_abs_difference"], 0.4)
    assert np.isclose(out["max_abs_difference"], 0.4)
    # a gain that varies from game to game has an interval that says so
    data["own"] = np.where(games % 2 == 0, np.where(won, 0.9, 0.1), 0.5)
    gain, low, high = _script().compare_tables(data)["brier_gain_of_own"]
    assert low < gain < high and low > 0


def test_the_script_builds_the_own_table_and_checks_with_both(tmp_path):
    out = tmp_path / "own"
    args = ["--rules", "standard", "--players", "2", "--games", "100", "--compare-games", "20",
            "--check-games", "20", "--workers", "1", "--out", str(out)]  # fmt: skip
    assert _script().main(args) == 0
    saved = json.loads((out / "own-equity.json").read_text())
    table = equity.load(out / "standard-2p-own.npz")
    assert table.policy == canonical_spec(str(solve.shipped("standard", 2)))
    assert table.meta["games"] == 100 and table.meta["seed"] == 2026
    trace = json.loads((solve.DATA / "standard-2p-trace.json").read_text())
    assert saved["check"]["seed"] == trace["check"]["seed"]
    assert saved["check"]["games"] == 20
    # one set of check games, valued by each table: the same cells tested
    assert saved["check"]["best"]["cells_tested"] == saved["check"]["own"]["cells_tested"] > 0
    assert 0 < saved["compare"]["brier_own_table"] < 1
    assert saved["compare"]["max_abs_difference"] > 0  # 100 games make another table


def test_every_shipped_own_check_replays_the_shipped_check():
    """Valued by `best`'s table, the replayed check is the shipped one, at every size."""
    shipped = sorted(solve.DATA.glob("*-own-equity.json"))
    assert len(shipped) == 14  # 2 to 8 players under both books
    for path in shipped:
        saved = json.loads(path.read_text())
        rules, players = saved["rules"], saved["players"]
        assert path.name == f"{rules}-{players}p-own-equity.json"
        check = json.loads((solve.DATA / f"{rules}-{players}p-trace.json").read_text())["check"]
        assert saved["check"]["seed"] == check["seed"]
        assert saved["check"]["games"] == check["games"]
        for table in ("best", "own"):
            assert saved["check"][table]["cells_tested"] == check["cells_tested"]
        best = saved["check"]["best"]
        assert best["profitable_deviations"] == check["profitable_deviations"] == len(best["cells"])
