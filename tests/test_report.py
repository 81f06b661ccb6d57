"""The strategy report and the call advisor, end to end through the CLI."""

from __future__ import annotations

import re
import time

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from tests.conftest import REPORT_ARGS
from yaniv_sim import Rules, parse_cards
from yaniv_sim.analysis.assaf_risk import assaf_risk, turn_band
from yaniv_sim.cards import deck_codes
from yaniv_sim.cli import main
from yaniv_sim.odds import p_assaf
from yaniv_sim.report.document import png_size
from yaniv_sim.storage import open_dataset


def test_report_files(report):
    out = report / "out"
    md = (out / "report.md").read_text()
    html = (out / "report.html").read_text()
    for title in ("Assaf risk by hand value", "When should I call Yaniv?"):
        assert f"{title}" in md and title.replace("?", "") in html
    # every figure the Markdown names exists; the HTML embeds them and loads nothing
    figures = re.findall(r"!\[[^\]]*\]\(([^)]+\.png)\)", md)
    assert len(figures) >= 3
    for name in figures:
        assert (out / name).read_bytes().startswith(b"\x89PNG")
    assert html.count("data:image/png;base64,") == len(figures)
    assert 'src="http' not in html and "<script" not in html
    # figures are rendered at twice the size they are shown at, for sharp text
    for name in figures:
        width, height = png_size((out / name).read_bytes())
        assert f'width="{round(width / 2)}" height="{round(height / 2)}"' in html
    # every table scrolls on its own when wider than the page; the files are linked
    assert html.count("<table") == html.count('<div class="scroll"><table')
    for name in ("assaf-risk.csv", "decision-table.csv", "call-table-4p.toml"):
        assert f'<a href="{name}">' in html and f"]({name})" in md
    assert "((" not in md and "))" not in md
    for name in ("assaf-risk.csv", "decision-table.csv", "report-tables.json",
                 "call-table-3p.toml", "call-table-4p.toml"):  # fmt: skip
        assert (out / name).is_file()
    # each section states its setup
    assert md.count("rules: standard") >= 2 and md.count("seed: 0") >= 2


def test_report_risk_equals_a_direct_count(report):
    cells = pd.read_csv(report / "out" / "assaf-risk.csv")
    for players in (3, 4):
        folder = next((report / "data").glob(f"standard-{players}p-best-*branches*"))
        data = open_dataset(folder)
        # stand-offs (rounds stopped by the turn cap) are left out of the report
        void = data.rounds.loc[data.rounds["outcome"] == "void", ["game", "round"]]
        d = data.decisions
        key = d["game"].astype(np.int64) * 100_000 + d["round"]
        void_key = void["game"].astype(np.int64) * 100_000 + void["round"]
        d = d[~key.isin(void_key)]
        band = turn_band(d["turn"].to_numpy())
        fewest = np.minimum(d["fewest_opponent_cards"], 7)
        mine = cells[cells["players"] == players]
        assert mine["n"].sum() == len(d)
        for row in mine.sample(10, random_state=1).itertuples():
            live = (d.filter(regex=r"^opp\d+_cards$").to_numpy() >= 0).sum(axis=1)
            at = d[(d["hand_value"] == row.hand_value) & (fewest == row.fewest)
                   & (band == row.band) & (live == row.opponents)]  # fmt: skip
            assert row.n == len(at)
            assert row.assafs == (at["lowest_opponent"] <= row.hand_value).sum()
        assert len(assaf_risk(d, ["hand_value"])) == mine["hand_value"].nunique()


def test_report_is_reproducible(report, tmp_path):
    runner = CliRunner()
    result = runner.invoke(main, [*REPORT_ARGS, "--out", str(tmp_path / "again"),
                                  "--data", str(report / "data")])  # fmt: skip
    assert result.exit_code == 0, result.output
    for name in ("report.md", "assaf-risk.csv", "decision-table.csv", "call-table-4p.toml"):
        assert (tmp_path / "again" / name).read_text() == (report / "out" / name).read_text()


def test_report_rejects_bad_options():
    runner = CliRunner()
    result = runner.invoke(main, ["report", "--players", "1..3"])
    assert result.exit_code != 0 and "2 to 8" in result.output
    result = runner.invoke(main, ["report", "--section", "nonsense", "--quiet"])
    assert result.exit_code != 0 and "assaf-risk" in result.output
    assert "Traceback" not in result.output


def test_advise_gives_exact_odds_and_the_tables(report):
    runner = CliRunner()
    start = time.perf_counter()
    result = runner.invoke(main, ["advise", "--hand", "AS 2D 3C", "--opponents", "2,4",
                                  "--turn", "8", "--seen", "KH KD", "--took", "2:4S",
                                  "--tables", str(report / "out")])  # fmt: skip
    elapsed = time.perf_counter() - start
    assert result.exit_code == 0, result.output
    text = result.output
    assert "= 6 points" in text
    used = parse_cards("AS 2D 3C KH KD 4S")
    unseen = np.setdiff1d(deck_codes(1, 2), used)
    exact = p_assaf(6, [2, 4], unseen, [[], parse_cards("4S").tolist()])
    assert f"{exact:.1%}" in text
    assert "Verdict:" in text
    assert elapsed < 5  # generous: the advisor answers at the table


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--hand", "AS 2X", "--opponents", "3"], "2X"),
        (["--hand", "AS AS", "--opponents", "3"], "more often than the deck"),
        (["--hand", "AS", "--opponents", "3", "--seen", "AS"], "more often than the deck"),
        (["--hand", "AS", "--opponents", "9"], "1 to 5 cards"),
        (["--hand", "AS", "--opponents", "3,x"], "card count"),
        (["--hand", "AS", "--opponents", "2", "--took", "2:JK"], "no opponent 2"),
        (["--hand", "AS", "--opponents", "1", "--took", "1:JK 2S"], "holds only 1"),
        (["--hand", "AS", "--opponents", "5,5,5,5,5,5,5,5"], "at most 7 opponents"),
    ],
)
def test_advise_errors_are_one_line(args, message):
    result = CliRunner().invoke(main, ["advise", *args, "--tables", "/nonexistent"])
    assert result.exit_code != 0
    assert message in result.output
    assert "Traceback" not in result.output and len(result.output.strip().splitlines()) == 1


def test_advise_without_tables_and_over_the_threshold():
    result = CliRunner().invoke(main, ["advise", "--hand", "KS 2D", "--opponents", "3"])
    assert result.exit_code == 0 and "cannot call yet" in result.output
    rules = Rules()
    assert rules.threshold < 12
