"""The calling-strategy solver: its tests, its features, its loop and its files."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from yaniv_sim import equity, simulate
from yaniv_sim.cli import main
from yaniv_sim.engine.kernel import table_index
from yaniv_sim.engine.specs import policy_vector
from yaniv_sim.rules import Rules
from yaniv_sim.solve import (
    CELL,
    SolveError,
    SolveRequest,
    cell_tests,
    check,
    decision_gains,
    policy_text,
    profitable_deviations,
    solve,
)
from yaniv_sim.stats import benjamini_hochberg, clustered_means
from yaniv_sim.storage import open_dataset

STANDARD = Rules.preset("standard")


# --- the statistics ------------------------------------------------------------------


def test_clustered_se_of_single_observations_is_the_usual_standard_error():
    rng = np.random.default_rng(1)
    x = rng.normal(0.3, 2.0, size=400)
    m = clustered_means(x, np.zeros(400, int), np.arange(400))
    assert m["n"].iloc[0] == 400 and m["clusters"].iloc[0] == 400
    assert m["mean"].iloc[0] == pytest.approx(x.mean())
    assert m["se"].iloc[0] == pytest.approx(x.std(ddof=1) / np.sqrt(400))


def test_clustered_se_does_not_shrink_when_a_cluster_repeats_its_observation():
    # each game gives the same value twice: twice the points, no more information
    rng = np.random.default_rng(2)
    x = rng.normal(size=300)
    once = clustered_means(x, np.zeros(300, int), np.arange(300))
    twice = clustered_means(np.repeat(x, 2), np.zeros(600, int), np.repeat(np.arange(300), 2))
    assert twice["se"].iloc[0] == pytest.approx(once["se"].iloc[0])
    naive = np.repeat(x, 2).std(ddof=1) / np.sqrt(600)
    assert twice["se"].iloc[0] > 1.3 * naive


def test_clustered_p_values_are_one_sided_t_tests():
    x = np.array([1.0, 2.0, 3.0, 4.0, 2.5])
    m = clustered_means(x, np.zeros(5, int), np.arange(5))
    from scipy import stats

    t = x.mean() / (x.std(ddof=1) / np.sqrt(5))
    assert m["p_above"].iloc[0] == pytest.approx(stats.t.sf(t, 4))
    assert m["p_below"].iloc[0] == pytest.approx(stats.t.cdf(t, 4))


def test_benjamini_hochberg_by_hand():
    # sorted 0.005 0.01 0.03 0.04 against 0.0125 0.025 0.0375 0.05: all four
    assert benjamini_hochberg([0.01, 0.04, 0.03, 0.005]).all()
    # 0.01 0.02 0.03 pass their steps, 0.5 does not
    assert benjamini_hochberg([0.01, 0.02, 0.03, 0.5]).tolist() == [True, True, True, False]
    # the step-up: 0.04 at rank 4 of 4 passes (<= 0.05), so all smaller ones pass too
    assert benjamini_hochberg([0.04, 0.03, 0.045, 0.04]).all()
    assert not benjamini_hochberg([0.02, 0.9, 0.9, 0.9]).any()  # 0.02 > 0.0125
    assert benjamini_hochberg([np.nan, 0.001]).tolist() == [False, True]


def test_benjamini_hochberg_rarely_finds_anything_when_nothing_is_there():
    rng = np.random.default_rng(3)
    runs = 2000
    any_found = sum(benjamini_hochberg(rng.uniform(size=200)).any() for _ in range(runs))
    # under the global null the FDR is the chance of any discovery: at most 5%
    assert any_found / runs < 0.065


# --- a step of improvement -------------------------------------------------------------


def _gains(rng, cell, called, mean, games=400, per_game=3):
    n = games * per_game
    return pd.DataFrame(
        {
            "game": np.repeat(np.arange(games), per_game) + 10_000 * cell[0],
            **{c: np.full(n, v) for c, v in zip(CELL, cell, strict=True)},
            "called": np.full(n, called),
            "win_gain": mean + rng.normal(0, 0.05, n),
            "points_gain": np.zeros(n),
        }
    )


def test_a_step_sets_the_cells_where_the_other_choice_is_clearly_better():
    rng = np.random.default_rng(4)
    wait_then_call = (3, 2, 0, 1, 0)  # the policy waited; calling gains
    call_then_wait = (5, 1, 1, 2, 1)  # the policy called; waiting gains
    noise = (4, 3, 2, 3, 0)  # nothing to find
    kept = (6, 4, 0, 1, 0)  # set to call before, no evidence against it now
    gains = pd.concat([
        _gains(rng, wait_then_call, False, 0.01),
        _gains(rng, call_then_wait, True, -0.01),
        _gains(rng, noise, False, 0.0),
        _gains(rng, kept, True, 0.0),
    ])  # fmt: skip
    tests = cell_tests(gains, {kept: 1}, "win", 0.05).set_index(CELL)
    assert tests.loc[wait_then_call, "next"] == 1 and tests.loc[wait_then_call, "call"]
    assert tests.loc[call_then_wait, "next"] == 0 and tests.loc[call_then_wait, "wait"]
    assert tests.loc[noise, "next"] == -1  # stays with the base policy
    assert tests.loc[kept, "next"] == 1
    assert tests.loc[kept, "now"] == 1
    bad = profitable_deviations(tests.reset_index())
    assert {tuple(r) for r in bad[CELL].to_numpy()} == {wait_then_call, call_then_wait}


def test_a_step_judges_points_by_the_points_objective():
    rng = np.random.default_rng(5)
    cell = (3, 2, 0, 1, 0)
    g = _gains(rng, cell, False, 0.0)
    g["points_gain"] = 2.0 + rng.normal(0, 1, len(g))
    assert cell_tests(g, {}, "points", 0.05)["next"].iloc[0] == 1
    assert cell_tests(g, {}, "win", 0.05)["next"].iloc[0] == -1


# --- the features, against the kernel ----------------------------------------------


def test_the_solver_reads_the_cells_the_kernel_reads(tmp_path):
    # a table that calls in every cell without a pickup and waits in every cell with
    # one: where the table decides, the seat called exactly when pickup is 0. The
    # same for opponents still in (3 players: 2 early, 1 after an elimination).
    cells = {}
    for v in range(8):
        for c in range(1, 8):
            for b in range(3):
                for o in (1, 2, 3):
                    cells[(v, c, b, o, 0)] = 1 if o != 2 else 0
                    cells[(v, c, b, o, 1)] = 0
    policy = tmp_path / "p.toml"
    policy.write_text(policy_text("best", cells, ["test"]))
    vector = policy_vector(str(policy))
    assert vector[table_index(3, 2, 1, 2, 0)] == 0 and vector[table_index(3, 2, 1, 1, 0)] == 1
    simulate(STANDARD, 3, str(policy), games=120, seed=7, branches=True, branch_games=50,
             out=tmp_path / "d", workers=1)  # fmt: skip
    data = open_dataset(tmp_path / "d")
    gains = decision_gains(data, STANDARD, "best", None)
    assert len(gains) > 1000
    expected = (gains["pickup"] == 0) & (gains["opponents"] != 2)
    assert (gains["called"] == expected).all()
    assert gains["pickup"].any() and (gains["opponents"] == 1).any()


def test_win_gains_are_the_equity_after_the_round_both_ways(tmp_path):
    simulate(STANDARD, 3, "best", games=60, seed=8, branches=True, branch_games=50,
             out=tmp_path / "d", workers=1)  # fmt: skip
    data = open_dataset(tmp_path / "d")
    table = equity.shipped("standard", 3)
    gains = decision_gains(data, STANDARD, "best", table)
    dec = data.decisions
    rounds = data.rounds.set_index(["game", "round"])
    games = data.games.set_index("game")
    rng = np.random.default_rng(0)
    for i in rng.choice(len(gains), size=40, replace=False):
        row = dec.iloc[int(gains["row"].iloc[i])]
        g, r, seat = int(row["game"]), int(row["round"]), int(row["seat"])
        totals = [f"total_{s}" for s in range(3)]
        before = np.zeros(3, int) if r == 0 else rounds.loc[(g, r - 1), totals].to_numpy(int)
        out = games.loc[g, [f"out_round_{s}" for s in range(3)]].to_numpy(int)
        alive = (out < 0) | (r <= out)
        starter = int(rounds.loc[(g, r), "starter"])
        chance = {}
        for way in ("call", "wait"):
            scores = [int(row[f"score_{s}_if_{way}"]) for s in range(3)]
            winner = int(row[f"round_winner_if_{way}"])
            chance[way] = table.after_round(before, scores, alive, starter, winner)[seat]
        assert gains["win_gain"].iloc[i] == pytest.approx(chance["call"] - chance["wait"])
    # the recorded branch's scores are the round's own
    played = dec.merge(data.rounds, on=["game", "round"], suffixes=("", "_round"))
    for way, called in (("call", True), ("wait", False)):
        rows = played[played["called"] == called]
        for s in range(3):
            assert (rows[f"score_{s}_if_{way}"] == rows[f"score_{s}"]).all()
        assert (rows[f"round_winner_if_{way}"] == rows["winner"]).all()


# --- the loop, its files and its errors --------------------------------------------


def test_solve_writes_its_trace_and_resumes(tmp_path):
    request = SolveRequest(STANDARD, "standard", 2, games=150, iterations=2, objective="points")
    out = tmp_path / "run"
    first = solve(request, out, workers=1)
    saved = json.loads((out / "trace.json").read_text())
    assert saved["request"]["players"] == 2
    assert [r["iteration"] for r in saved["iterations"]] == list(range(len(first.trace)))
    assert saved["iterations"][0]["table"] == {}
    assert (out / "policy-0.toml").exists() and (out / "solved.toml").exists()
    assert "converged" in (out / "solved.toml").read_text()
    # the solved file plays the final table
    vector = policy_vector(str(first.policy_file))
    for (v, c, b, o, k), verdict in first.table.items():
        assert vector[table_index(v, c, b, o, k)] == verdict
    # run again: nothing is played, the same answer
    stamp = (out / "trace.json").stat().st_mtime_ns
    again = solve(request, out, workers=1)
    assert again.table == first.table and again.trace == first.trace
    assert (out / "trace.json").stat().st_mtime_ns == stamp
    # another request in the same folder is refused
    other = SolveRequest(STANDARD, "standard", 2, games=151, iterations=2, objective="points")
    with pytest.raises(SolveError, match="another request"):
        solve(other, out, workers=1)


def test_bad_requests_say_what_is_wrong():
    with pytest.raises(SolveError, match="base: 'max-shed' has no call table"):
        SolveRequest(STANDARD, "standard", 4, base="max-shed")
    with pytest.raises(SolveError, match="objective"):
        SolveRequest(STANDARD, "standard", 4, objective="money")
    with pytest.raises(SolveError, match="nothing to solve"):
        SolveRequest(Rules.preset("standard", assaf=False), "x", 4)
    house = Rules.preset("standard", threshold=5)
    request = SolveRequest(house, "standard with threshold=5", 3)
    with pytest.raises(SolveError, match="equity build"):
        solve(request, "/nonexistent-never-made")


def test_cli_solve_errors_are_one_line():
    result = CliRunner().invoke(main, ["solve", "--base", "max-shed", "--out", "x"])
    assert result.exit_code != 0
    assert "Traceback" not in result.output
    assert "--base: 'max-shed' has no call table" in result.output


def test_a_best_response_improves_one_seat_against_the_others(tmp_path):
    request = SolveRequest(STANDARD, "standard", 3, games=120, iterations=1, objective="points",
                           against="cautious")  # fmt: skip
    solve(request, tmp_path / "br", workers=1)
    data = open_dataset(tmp_path / "br" / "games-0")
    specs = [p["spec"] for p in data.manifest["policies"]]
    assert specs == ["best:table=1", "cautious"]  # iteration 0: the empty table
    gains = decision_gains(data, STANDARD, "best", None, policy=0)
    chosen = data.decisions["policy"].to_numpy()[gains["row"].to_numpy()]
    assert len(gains) > 100 and (chosen == 0).all()
    everyone = decision_gains(data, STANDARD, "best", None)
    assert len(everyone) > len(gains)
    saved = json.loads((tmp_path / "br" / "trace.json").read_text())
    assert saved["request"]["against"] == "cautious"


def test_the_advisor_quotes_the_shipped_solution_for_its_cell(tmp_path, monkeypatch):
    import yaniv_sim.solve as solver
    import yaniv_sim.solved
    from yaniv_sim.advice import advise

    cells = {(3, 3, 0, 2, 0): 0, (3, 3, 0, 2, 1): 1}
    (tmp_path / "standard-3p.toml").write_text(policy_text("best", cells, ["test"]))
    monkeypatch.setattr(yaniv_sim.solved, "DATA", tmp_path)  # where the solutions ship
    assert solver.read_table(solver.shipped("standard", 3)) == cells
    plain = advise("AS 2D", [3, 4], 2, STANDARD)
    assert plain.solved["cell"] == (3, 3, 0, 2, 0) and plain.solved["verdict"] == "wait"
    assert "Solved strategy" in str(plain)
    # an opponent holds a known ace (1 <= 3): the pickup cell
    ace = advise("AS 2D", [3, 4], 2, STANDARD, took={1: "AH"})
    assert ace.solved["cell"] == (3, 3, 0, 2, 1) and ace.solved["verdict"] == "call"
    # a known king (10 > 3) rules that opponent out: no pickup
    king = advise("AS 2D", [3, 4], 2, STANDARD, took={1: "KH"})
    assert king.solved["cell"][4] == 0
    late = advise("AS 2D", [3, 4], 12, STANDARD)
    assert late.solved["cell"] == (3, 3, 1, 2, 0) and late.solved["verdict"] is None
    # no file for this table size, or house rules: nothing quoted
    assert advise("AS 2D", [3, 4, 5], 2, STANDARD).solved is None
    house = Rules.preset("standard", threshold=5)
    assert advise("AS 2D", [3, 4], 2, house, rules_label="standard with threshold=5").solved is None


def test_the_advisor_says_when_its_verdict_depends_on_the_opponents(tmp_path, monkeypatch):
    import yaniv_sim.solved
    from yaniv_sim.advice import advise

    (tmp_path / "standard-3p.toml").write_text(policy_text("best", {(3, 3, 0, 2, 0): 1}, ["t"]))
    populations = {
        "populations": {"max-shed": {}, "cautious": {}},
        "cells": {
            "3,3,0,2,0": {"fixed point": 1, "max-shed": 1, "cautious": 0},
            "3,3,1,2,0": {"fixed point": 0, "max-shed": 0, "cautious": 0},
            "3,3,0,2,1": {"fixed point": None, "max-shed": 1, "cautious": None},
        },
    }
    (tmp_path / "standard-3p-populations.json").write_text(json.dumps(populations))
    monkeypatch.setattr(yaniv_sim.solved, "DATA", tmp_path)
    early = advise("AS 2D", [3, 4], 2, STANDARD)
    assert early.solved["populations"] == {"fixed point": 1, "max-shed": 1, "cautious": 0}
    assert "depends on how the opponents play" in str(early)
    assert "call in self-play and against max-shed; wait against cautious" in str(early)
    late = advise("AS 2D", [3, 4], 12, STANDARD)
    assert "the same in self-play and against every table tried" in str(late)
    partly = advise("AS 2D", [3, 4], 2, STANDARD, took={1: "AH"})  # one table sets it
    assert "never the other way" in str(partly)
    assert "call against max-shed; left to best in self-play and against cautious" in str(partly)
    other = advise("AS 2D", [3, 4], 25, STANDARD)  # a cell no table sets
    assert other.solved["populations"] == {"fixed point": None, "max-shed": None, "cautious": None}


@pytest.mark.slow
def test_a_toy_game_reaches_a_fixed_point_that_a_fresh_seed_confirms(tmp_path):
    # two players, calls at 3 or less, games to 60 points: few cells, short games
    toy = Rules.preset("standard", threshold=3, limit=60, milestones={})
    request = SolveRequest(toy, "toy", 2, games=3000, iterations=6, objective="points")
    solution = solve(request, tmp_path / "toy", workers=2)
    assert solution.converged
    assert solution.table  # it found something to change from best
    assert set(k[0] for k in solution.table) <= {0, 1, 2, 3}
    tests = check(solution, tmp_path / "toy", workers=2)
    assert profitable_deviations(tests).empty
    # resuming the finished run gives the same table without playing anything
    assert solve(request, tmp_path / "toy", workers=2).table == solution.table
