"""Report sections 1 and 2 (Assaf risk, when to call) on their analysis results.

The sections are built again on the datasets of the session's quick report
(``report`` fixture), so nothing is simulated twice; the tests read the
sections' DataFrames (``Section.data``) and check them against direct counts
over those datasets, against hand-made frames, and against the policy files
the section wrote.
"""

from __future__ import annotations

import tomllib

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from yaniv_sim.analysis.assaf_risk import called_assaf_rate
from yaniv_sim.analysis.decision_table import decision_table, with_gains
from yaniv_sim.cli import main
from yaniv_sim.report import assaf_risk, when_to_call
from yaniv_sim.report.context import ReportOptions
from yaniv_sim.report.document import Table

PLAYERS = (3, 4)  # as REPORT_ARGS in conftest


@pytest.fixture(scope="module")
def options(report) -> ReportOptions:
    # --games 60 with --quick: the quick budget (300 games) scaled by 0.2
    return ReportOptions(quick=True, scale=60 / 300, players=PLAYERS, data=report / "data",
                         quiet=True, workers=1)  # fmt: skip


@pytest.fixture(scope="module")
def risk_section(options):
    return assaf_risk.build(options)


@pytest.fixture(scope="module")
def call_section(options):
    return when_to_call.build(options)


# -- section 1: "if you called now" and "when players did call" ----------------------------


def test_when_players_did_call_counts_the_rounds_they_called(risk_section, options):
    """The share of calls Assafed, from the decision points, equals the rounds' outcomes."""
    called = risk_section.data["called"]
    for players in PLAYERS:
        rounds = options.decision_data(players).rounds
        mine = called[called["players"] == players]
        ended = rounds["outcome"].isin(["yaniv", "assaf"])
        assert mine["n"].sum() == ended.sum()
        assert mine["assafs"].sum() == (rounds["outcome"] == "assaf").sum()


def test_if_you_called_now_is_a_share_of_decision_points(risk_section, options):
    risk = risk_section.data["risk"]
    for players in PLAYERS:
        dec, *_ = options.decision_points(players)
        mine = risk[risk["players"] == players].set_index("hand_value")
        assert mine["n"].sum() == len(dec)
        for value, row in mine.iterrows():
            at = dec[dec["hand_value"] == value]
            assert row["assafs"] == (at["lowest_opponent"] <= value).sum()
    # the two numbers are different questions: a policy calls when the risk is low
    both = risk.merge(risk_section.data["called"], on=["players", "hand_value"],
                      suffixes=("_now", "_did"))  # fmt: skip
    enough = both[(both["n_did"] >= 100) & (both["hand_value"] >= 3)]
    assert len(enough) and (enough["risk_did"] < enough["risk_now"]).all()


def test_both_numbers_are_named_in_the_takeaway(risk_section):
    text = next(b for b in risk_section.blocks if isinstance(b, str) and b.startswith("Takeaway"))
    assert "**if you called now**" in text and "**When players did call**" in text
    contrast = risk_section.data["contrast"]
    assert list(contrast["group"]) == ["one card", "3+ cards"]
    one = contrast.iloc[0]
    assert f"{one.risk:.1%}" in text and f"{one.called_risk:.1%}" in text
    # the CSV's range of opponent cards is the one the games had
    note = next(b for b in risk_section.blocks if isinstance(b, str) and "assaf-risk.csv" in b)
    assert "(1 to 5 in these games)" in note  # five cards in a standard hand


def test_called_assaf_rate_by_hand():
    frame = pd.DataFrame({"hand_value": [3, 3, 3, 5, 5], "lowest_opponent": [2, 9, 3, 1, 9],
                          "called": [True, True, False, False, True]})  # fmt: skip
    rate = called_assaf_rate(frame, ["hand_value"]).set_index("hand_value")
    assert rate.loc[3, "n"] == 2 and rate.loc[3, "assafs"] == 1
    assert rate.loc[5, "n"] == 1 and rate.loc[5, "assafs"] == 0


# -- section 2: Simpson, the rules of thumb and their play-back ------------------------------


def _verdicts(rows: list[tuple]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["opponents", "hand_value", "fewest", "verdict"])


def test_disagreeing_parts_by_hand():
    pooled = _verdicts([(1, 3, 1, "call"), (1, 4, 1, "wait"), (1, 5, 1, "call"),
                        (1, 6, 1, "too close")])  # fmt: skip
    parts = pd.DataFrame(
        [(1, 3, 1, 0, "call"), (1, 3, 1, 1, "too close"),  # agree
         (1, 4, 1, 0, "call"), (1, 4, 1, 1, "too few"),  # pooled wait, a part calls
         (1, 5, 1, 0, "call"), (1, 5, 1, 1, "call"),  # agree
         (1, 6, 1, 0, "call"), (1, 6, 1, 1, "wait")],  # parts call and wait
        columns=["opponents", "hand_value", "fewest", "band", "verdict"],
    )  # fmt: skip
    split = when_to_call.disagreeing(pooled, parts, ["opponents", "hand_value", "fewest"])
    assert split.tolist() == [False, True, False, True]


def test_rule_cells_fill_a_hand_value_without_a_clear_cell():
    chart = _verdicts([(1, 0, 1, "too few"), (1, 0, 2, "too few"), (1, 3, 1, "wait"),
                       (1, 3, 3, "call"), (2, 0, 1, "too few")])  # fmt: skip
    verdicts = ["call", "depends on opponents' cards", "too few"]
    by_value = pd.DataFrame({"opponents": [1, 1, 2], "hand_value": [0, 3, 0], "verdict": verdicts})
    rules = when_to_call.rule_cells(chart, by_value)
    zero = rules[(rules["opponents"] == 1) & (rules["hand_value"] == 0)]
    assert sorted(zero["fewest"]) == [1, 2, 3, 4, 5] and set(zero["verdict"]) == {"call"}
    three = rules[(rules["opponents"] == 1) & (rules["hand_value"] == 3)]
    assert dict(zip(three["fewest"], three["verdict"], strict=True)) == {1: "wait", 3: "call"}
    assert set(rules.loc[rules["opponents"] == 2, "verdict"]) == {"too few"}


def test_policy_cells_cover_every_band_and_five_or_more_cards():
    rules = _verdicts([(1, 2, 1, "wait"), (1, 2, 5, "call"), (1, 2, 3, "too close")])
    cells = when_to_call.policy_cells(rules)
    assert len(cells) == 3 + 3 * 3  # fewest 1 in 3 bands; fewest 5, 6, 7 in 3 bands
    assert set(cells.loc[cells["fewest"] == 1, "verdict"]) == {"wait"}
    assert sorted(set(cells.loc[cells["verdict"] == "call", "fewest"])) == [5, 6, 7]
    assert sorted(set(cells["band"])) == [0, 1, 2]


def test_no_pooled_verdict_where_the_turn_bands_disagree(call_section, options):
    chart = call_section.data["chart"]
    points = pd.concat([with_gains(options.decision_points(p)[0]) for p in PLAYERS])
    points["fewest"] = points["fewest"].clip(upper=when_to_call.FEWEST_SHOWN)
    bands = decision_table(points, by=("opponents", "hand_value", "fewest", "band"))
    for row in chart.itertuples():
        mine = bands[(bands["opponents"] == row.opponents) & (bands["hand_value"] == row.hand_value)
                     & (bands["fewest"] == row.fewest)]  # fmt: skip
        found = set(mine["verdict"]) & {"call", "wait"}
        if row.verdict in ("call", "wait"):
            assert found <= {row.verdict}, row
        if found == {"call", "wait"}:
            assert row.verdict == when_to_call.DEPENDS, row
    by_value = call_section.data["by_value"]
    # a row whose chart cells both call and wait has no verdict of its own
    for row in by_value.itertuples():
        cells = chart[
            (chart["opponents"] == row.opponents) & (chart["hand_value"] == row.hand_value)
        ]
        if {"call", "wait"} <= set(cells["verdict"]):
            assert row.verdict == "depends on opponents' cards"


def test_the_rules_of_thumb_are_what_is_played_back(call_section):
    rules = call_section.data["rules"]
    for players in PLAYERS:
        policy = tomllib.loads(call_section.files[f"call-table-{players}p.toml"].decode())
        cells = {k: v for k, v in policy["params"].items() if k.startswith("call_v")}
        mine = rules[(rules["opponents"] == players - 1) & rules["verdict"].isin(["call", "wait"])]
        expected = {}
        for r in mine.itertuples():
            for fewest in range(r.fewest, 8 if r.fewest == 5 else r.fewest + 1):
                for band in range(3):
                    expected[f"call_v{r.hand_value}_c{fewest}_t{band}"] = int(r.verdict == "call")
        assert cells == expected
    # the rules listed in the text are read from the same cells
    thumbs = next(b for b in call_section.blocks if isinstance(b, str) and b.startswith("- With"))
    assert len(thumbs.splitlines()) == rules["opponents"].nunique()
    assert "opponents still in" in thumbs


def test_the_playback_takeaway_names_every_row(call_section):
    playback = call_section.data["playback"]
    text = next(b for b in call_section.blocks if isinstance(b, str)
                and b.startswith("Takeaway"))  # fmt: skip
    played = playback[playback["cells"] > 0]
    assert len(played) >= len(PLAYERS)
    for r in played.itertuples():
        pp = f"{100 * r.difference:+.1f} ({100 * r.low:+.1f} to {100 * r.high:+.1f}"
        assert pp in text
        assert r.share_low <= r.share <= r.share_high
        verdict = "a clear loss" if r.high < 0 else "a clear gain" if r.low > 0 else "not separable"
        assert verdict in text
    (table,) = [b.frame for b in call_section.blocks
                if isinstance(b, Table) and "played back" in b.frame]  # fmt: skip
    for r, label in zip(playback.itertuples(), table["played back"], strict=True):
        if r.cells > 0:
            assert (
                f"{r.cells} cell set" in label if r.cells == 1 else f"{r.cells} cells set" in label
            )


def test_takes_call_table():
    assert when_to_call.takes_call_table("best")
    assert when_to_call.takes_call_table("heuristic:call_at=3")
    assert not when_to_call.takes_call_table("max-shed")
    assert not when_to_call.takes_call_table("search")


@pytest.mark.slow
def test_report_for_a_policy_without_a_call_table(tmp_path):
    args = ["report", "--rules", "standard", "--quick", "--games", "20", "--players", "3",
            "--policy", "max-shed",
            "--section", "assaf-risk", "--section", "when-to-call", "--quiet",
            "--out", str(tmp_path / "out"), "--data", str(tmp_path / "data")]  # fmt: skip
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    md = (tmp_path / "out" / "report.md").read_text()
    assert "`max-shed` has none, so the rules of thumb above are not played back" in md
    assert not list((tmp_path / "out").glob("*.toml"))
    assert (tmp_path / "out" / "decision-table.csv").is_file()
    assert np.isfinite(pd.read_csv(tmp_path / "out" / "assaf-risk.csv")["risk"]).all()
