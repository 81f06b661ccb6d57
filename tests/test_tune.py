"""Tuning: grids over several parameters, scipy.optimize searches, and input errors."""

from __future__ import annotations

import pytest

from yaniv_sim import Rules
from yaniv_sim.compare import compare
from yaniv_sim.tune import parse_range, tune

SMALL = dict(against=["max-shed"], rules=Rules(), players=2, games=120, seed=3, workers=1)


def test_optimize_finds_the_grids_best_call_at_on_the_same_deals():
    kwargs = {**SMALL, "games": 300}
    grid = tune("heuristic", "call_at", [float(v) for v in range(8)], **kwargs)
    found = tune("heuristic", "call_at", method="optimize", ranges=[(0, 7)], evaluations=8,
                 **kwargs)  # fmt: skip
    assert found.method == "optimize" and 1 <= len(found.curve) <= 8
    # common random numbers: a setting played by both searches wins exactly as often
    by_value = grid.curve.set_index("call_at")["win_rate"]
    for row in found.curve.itertuples():
        assert row.call_at == int(row.call_at)  # a counting parameter is rounded
        assert row.win_rate == by_value[row.call_at]
    assert abs(found.best["call_at"] - grid.best["call_at"]) <= 1
    assert "best: heuristic" in str(found)


def test_a_grid_over_two_parameters_plays_every_combination():
    result = tune("heuristic", ["call_at", "pile_at"], [[3, 7], [-1, 2, 4]],
                  **{**SMALL, "games": 40})  # fmt: skip
    curve = result.curve
    assert len(curve) == 6
    assert set(zip(curve["call_at"], curve["pile_at"], strict=True)) == {
        (a, b) for a in (3, 7) for b in (-1, 2, 4)
    }
    assert curve["spec"].nunique() == 6
    assert "heuristic:call_at=3,pile_at=2" in set(curve["spec"])
    text = str(result)
    assert "call_at" in text and "pile_at" in text and "<- best" in text


def test_optimize_over_two_parameters_stays_inside_the_ranges_and_the_budget():
    result = tune("heuristic", ["call_at", "max_risk"], method="optimize",
                  ranges=[(2, 7), (0.05, 0.5)], evaluations=5,
                  **{**SMALL, "games": 40})  # fmt: skip
    curve = result.curve
    # Nelder-Mead does not settle in five steps: the whole budget is spent, on
    # distinct settings, with call_at rounded to whole numbers
    assert len(curve) == 5 and curve["spec"].is_unique
    assert (curve["call_at"] == curve["call_at"].round()).all()
    assert curve["call_at"].between(2, 7).all() and curve["max_risk"].between(0.05, 0.5).all()
    # each point is the plain duplicate comparison of its setting on the same deals
    best = result.best
    again = compare([best["spec"], "max-shed"], Rules(), 2, 40, seed=3, workers=1)
    assert again.table.iloc[0]["win_rate"] == best["win_rate"]
    assert best["win_rate"] == curve["win_rate"].max()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (dict(param="nerve", values=[1, 2]), "unknown parameter 'nerve'"),
        (dict(param="call_at", values=[3, 16]), "call_at=16 is outside its range 0 to 15"),
        (dict(param=["call_at", "pile_at"], values=[[3, 4]]), "2 parameters but 1 lists"),
        (dict(param=["call_at", "call_at"], values=[[3], [4]]), "given twice"),
        (dict(param="call_at", method="optimize", ranges=[(0, 20)]), "outside its allowed"),
        (dict(param=["call_at", "keep"], method="optimize", ranges=[(0, 5)]), "1 ranges"),
        (dict(param="call_at", values=[3], method="anneal"), "method 'anneal' is not known"),
        (dict(param="call_at", values=[3], policy="genius"), "unknown policy 'genius'"),
    ],
)  # fmt: skip
def test_tune_refuses_bad_input_before_playing(kwargs, message, monkeypatch):
    def no_play(*args, **kwargs):
        raise AssertionError("played before the input was checked")

    monkeypatch.setattr("yaniv_sim.tune.compare", no_play)
    kwargs = {"policy": "heuristic", **kwargs}
    with pytest.raises(ValueError, match=message):
        tune(kwargs.pop("policy"), kwargs.pop("param"), kwargs.pop("values", None), **kwargs)


def test_parse_range():
    assert parse_range("0.02..0.3") == (0.02, 0.3)
    for bad in ("0.3..0.02", "3", "a..b", "2..2"):
        with pytest.raises(ValueError, match=r"LOW\.\.HIGH"):
            parse_range(bad)
