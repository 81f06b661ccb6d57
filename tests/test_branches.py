"""Paired call-or-wait branches: the same cards both ways, and the rules' scores."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from yaniv_sim import Rules
from yaniv_sim.runs import simulate
from yaniv_sim.storage import open_dataset

RULES = Rules.preset("standard")


@pytest.fixture(scope="module")
def datasets(tmp_path_factory):
    root = tmp_path_factory.mktemp("branches")
    plain = simulate(RULES, 3, ["best", "cautious", "max-shed"], games=60, seed=11,
                     out=root / "plain", workers=1)  # fmt: skip
    branched = simulate(RULES, 3, ["best", "cautious", "max-shed"], games=60, seed=11,
                        out=root / "branched", workers=1, branches=True,
                        branch_games=3)  # fmt: skip
    return open_dataset(plain.path), open_dataset(branched.path), root


def test_branches_leave_the_recorded_play_unchanged(datasets):
    plain, branched, _ = datasets
    pd.testing.assert_frame_equal(plain.rounds, branched.rounds)
    pd.testing.assert_frame_equal(plain.games, branched.games)
    pd.testing.assert_frame_equal(plain.decisions, branched.decisions[plain.decisions.columns])


def test_the_chosen_branch_is_the_recorded_round(datasets):
    _, data, _ = datasets
    d, r = data.decisions, data.rounds
    scores = r.set_index(["game", "round"])
    key = pd.MultiIndex.from_arrays([d["game"], d["round"]])
    own = np.array([scores.loc[k, f"score_{s}"] for k, s in zip(key, d["seat"], strict=True)])
    recorded = np.where(d["called"], d["points_if_call"], d["points_if_wait"])
    np.testing.assert_array_equal(recorded, own)
    total = scores[[f"score_{s}" for s in range(3)]].sum(axis=1)
    others = np.array([total.loc[k] for k in key]) - own
    recorded_others = np.where(d["called"], d["others_if_call"], d["others_if_wait"])
    np.testing.assert_array_equal(recorded_others, others)


def test_calling_scores_by_the_rules(datasets):
    # standard rules: a call scores 0, or 30 + the hand when some opponent is as low
    _, data, _ = datasets
    d = data.decisions
    assaf = d["lowest_opponent"] <= d["hand_value"]
    expected = np.where(assaf, 30 + d["hand_value"], 0)
    np.testing.assert_array_equal(d["points_if_call"], expected)
    assert assaf.any() and (~assaf).any()
    # both branches of some points differ: the choice matters somewhere
    assert (d["points_if_call"] != d["points_if_wait"]).any()


def test_game_branches_only_in_the_chosen_games(datasets):
    _, data, _ = datasets
    d, games = data.decisions, data.games
    chosen = d["game"] % 3 == 0
    for column in ("win_if_call", "win_if_wait"):
        assert d.loc[chosen, column].isin([0, 1]).all()
        assert (d.loc[~chosen, column] == -1).all()
    # the branch the seat took ends as the recorded game did
    winner = games.set_index("game")["winner"]
    rows = d[chosen]
    won = (winner.loc[rows["game"]].to_numpy() == rows["seat"].to_numpy()).astype(int)
    recorded = np.where(rows["called"], rows["win_if_call"], rows["win_if_wait"])
    np.testing.assert_array_equal(recorded, won)


def test_branches_do_not_depend_on_workers_or_chunks(datasets):
    _, data, root = datasets
    again = simulate(RULES, 3, ["best", "cautious", "max-shed"], games=60, seed=11,
                     out=root / "again", workers=2, chunk_size=7, branches=True,
                     branch_games=3)  # fmt: skip
    pd.testing.assert_frame_equal(open_dataset(again.path).decisions, data.decisions)


def test_branches_need_games_mode():
    with pytest.raises(ValueError, match="games mode"):
        simulate(RULES, 3, "max-shed", rounds=10, branches=True)
    with pytest.raises(ValueError, match="branch_games"):
        simulate(RULES, 3, "max-shed", games=10, branches=True, branch_games=0)
