"""The player's page: read from the shipped solved tables and equity tables alone.

The tests compare the section's DataFrames with the shipped policy files read
independently (``solve.read_table``) and with the equity tables asked
directly, and check on hand-made cells that the words follow from the cells.
"""

from __future__ import annotations

import itertools
import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from yaniv_sim import equity, solve, tiers
from yaniv_sim.cli import main
from yaniv_sim.engine.specs import TABLE_OPPONENTS
from yaniv_sim.report import NO_SIMULATION, SECTIONS, players_page
from yaniv_sim.report.context import ReportOptions
from yaniv_sim.rules import Rules

SIZES = (2, 3, 4, 5)


@pytest.fixture(scope="module", params=["standard", "nordic"])
def page(request):
    rules = Rules.preset(request.param)
    return request.param, rules, players_page.build(ReportOptions(rules=rules, players=SIZES))


def _expand(found):
    """The cells a list of clauses covers: {(fewest, band): verdict}."""
    out = {}
    for verdict, bands, low, high in found:
        for band, fewest in itertools.product(bands, range(low, high + 1)):
            assert (fewest, band) not in out, "clauses overlap"
            out[(fewest, band)] = verdict
    return out


def test_it_is_first_and_simulates_nothing():
    assert next(iter(SECTIONS)) == "players-page"
    assert "players-page" in NO_SIMULATION


def test_every_cell_is_the_shipped_verdict(page):
    name, rules, section = page
    cells = section.data["cells"]
    assert sorted(cells["players"].unique()) == list(SIZES)
    for players in SIZES:
        table = solve.read_table(solve.shipped(name, players))
        part = cells[cells["players"] == players]
        assert part["opponents"].max() == min(players - 1, TABLE_OPPONENTS)
        assert part["hand_value"].max() == rules.threshold
        for row in part.itertuples():
            said = table.get((row.hand_value, row.fewest, row.band, row.opponents, row.pickup))
            assert row.verdict == {1: "call", 0: "wait", None: "best"}[said]
        # every call or wait the file sets for a reachable cell is on the page
        reachable = {k: v for k, v in table.items()
                     if k[0] <= rules.threshold and k[1] <= rules.hand_size
                     and k[3] < players}  # fmt: skip
        assert int((part["verdict"] != "best").sum()) == len(reachable)


def test_the_printed_table_is_the_shipped_table(page):
    name, _, section = page
    shown = section.data["table"]
    for players in SIZES:
        table = solve.read_table(solve.shipped(name, players))
        full = min(players - 1, TABLE_OPPONENTS)
        part = shown[shown["players"] == players]
        assert len(part) == len(part.drop_duplicates(["hand_value", "fewest", "band"]))
        for row in part.itertuples():
            said = table.get((row.hand_value, row.fewest, row.band, full, 0))
            assert row.verdict == {1: "call", 0: "wait", None: "best"}[said]
        # a pooled column ("4+") holds card counts that agree in every row and band
        for _, group in part.groupby(["hand_value", "band", "column"]):
            assert group["verdict"].nunique() == 1


def test_the_words_cover_exactly_the_shipped_cells(page):
    name, rules, section = page
    cells = section.data["cells"]
    top = rules.hand_size
    for players in SIZES:
        table = solve.read_table(solve.shipped(name, players))
        full = min(players - 1, TABLE_OPPONENTS)
        lines = section.data["rules"]
        lines = lines[lines["players"] == players]
        for value in range(rules.threshold + 1):
            main = {(c, b): {1: "call", 0: "wait"}[table[(value, c, b, full, 0)]]
                    for c in range(1, top + 1) for b in range(3)
                    if (value, c, b, full, 0) in table}  # fmt: skip
            assert _expand(players_page.clauses(main, top)) == main
            said = lines[(lines["hand_value"] == value) & lines["main"]]
            set_here = (cells[(cells["players"] == players) & (cells["hand_value"] == value)]
                        ["verdict"] != "best").any()  # fmt: skip
            assert len(said) == int(set_here)
            if set_here:
                assert said["words"].iloc[0] == players_page.words(main, top, full == 1)


def test_words_on_a_hand_made_table():
    # call while every opponent holds 3+ cards in turns 0-19, wait on 3 cards late
    cells = {(c, b): "call" for c in range(3, 6) for b in (0, 1)}
    cells[(3, 2)] = "wait"
    found = players_page.clauses(cells, top=5)
    assert found == [("call", (0, 1), 3, 5), ("wait", (2,), 3, 3)]
    assert players_page.words(cells, top=5) == (
        "call while every opponent holds 3+ cards, turns 0-19; wait when the shortest "
        "opponent hand is 3 cards, from turn 20; otherwise as best"
    )
    # every cell set one way: no "otherwise"
    everywhere = {(c, b): "call" for c in range(1, 6) for b in range(3)}
    assert players_page.clauses(everywhere, top=5) == [("call", (0, 1, 2), 1, 5)]
    assert players_page.words(everywhere, top=5) == "call whatever the opponents hold, any turn"
    assert players_page.words({}, top=5) == "as best"
    # a gap in the card counts splits the span; bands with the same spans merge
    gappy = {(1, 0): "call", (3, 0): "call", (1, 2): "call", (3, 2): "call"}
    assert players_page.clauses(gappy, top=5) == [("call", (0, 2), 1, 1), ("call", (0, 2), 3, 3)]
    assert "turns 0-9 and from turn 20" in players_page.words(gappy, top=5)
    assert players_page.words({(1, 1): "call"}, top=5, single=True).startswith(
        "call while the opponent holds 1 card, turns 10-19"
    )


def test_pickup_and_fewer_opponents_lines_only_where_the_cells_differ(page):
    _, _, section = page
    cells, lines = section.data["cells"], section.data["rules"]
    for row in lines[~lines["main"]].itertuples():
        full = min(row.players - 1, TABLE_OPPONENTS)
        part = cells[(cells["players"] == row.players) & (cells["hand_value"] == row.hand_value)]
        mine = part[(part["opponents"] == row.opponents) & (part["pickup"] == row.pickup)]
        # a pickup line with fewer opponents is against that many opponents without one
        against = full if row.opponents == full or not row.pickup else row.opponents
        main = part[(part["opponents"] == against) & (part["pickup"] == 0)]
        assert (mine["verdict"].to_numpy() != main["verdict"].to_numpy()).any()


def test_assaf_costs_are_read_from_the_equity_tables(page):
    name, rules, section = page
    costs = section.data["assaf_cost"]
    two = equity.shipped(name, 2)
    assert set(costs["hand_value"]) <= set(range(1, rules.threshold + 1))
    assert sorted(costs["players_in"].unique()) == [2, 3, 4]
    for row in costs[costs["players_in"] == 2].itertuples():
        assert row.points == rules.assaf_penalty + row.hand_value  # both presets add the hand
        # the opponent (seat 1) wins the round and starts the next one; rotate or winner
        total = row.total + row.points
        for milestone, to in rules.milestones:
            total = to if total == milestone else total
        assert row.chance_after == pytest.approx(two.two[1, total, row.total])
        assert row.chance_if_nothing == pytest.approx(two.two[1, row.total, row.total])
        assert row.cost == pytest.approx(row.chance_if_nothing - row.chance_after)
    for k in (3, 4):
        table = equity.shipped(name, k)
        part = costs[costs["players_in"] == k]
        for row in part.itertuples():
            total = row.total + row.points
            for milestone, to in rules.milestones:
                total = to if total == milestone else total
            # seat 1 starts the next round under both presets (winner or rotation)
            after = table.win_chances([total] + [row.total] * (k - 1), None, starter=1)[0]
            assert row.chance_after == pytest.approx(after)
    assert np.all(costs["cost"] > 0)


def test_milestone_values_are_read_from_the_two_player_table(page):
    name, rules, section = page
    marks = section.data["milestones"]
    two = equity.shipped(name, 2)
    assert len(marks) == len(rules.milestones) * len(players_page.OPPONENT_TOTALS)
    for row in marks.itertuples():
        assert row.chance_landed == pytest.approx(two.two[1, row.to, row.opponent])
        assert row.value == pytest.approx(two.two[1, row.to, row.opponent]
                                          - two.two[1, row.milestone, row.opponent])  # fmt: skip
    assert (marks["value"] > 0).all()  # a lower total is never worse


def test_the_tiers_and_their_costs_are_the_shipped_ones(page):
    name, _rules, section = page
    rows = section.data["tiers"]
    assert set(rows["tier"]) == {"one line", "small table", "best"}
    for row in rows.itertuples():
        saved = tiers.read_shipped(name, row.players)["tiers"][row.tier]
        assert (row.win_cost, row.win_low, row.win_high) == tuple(saved["win_cost"])
        assert (row.points_cost, row.points_low, row.points_high) == tuple(saved["points_cost"])
        if row.tier == "one line":
            assert row.words == tiers.OneLine(saved["many"], saved["few"]).words()
    assert sorted(rows["players"].unique()) == list(SIZES)


def test_the_yardstick_is_the_shipped_matches(page):
    name, _rules, section = page
    sticks = section.data["yardstick"]
    saved = json.loads((solve.DATA / "yardstick.json").read_text())["matches"]
    mine = [m for m in saved if m["rules"] == name]
    assert len(sticks) == len(mine) > 0
    for row, m in zip(sticks.itertuples(), mine, strict=True):
        assert (row.difference, row.low, row.high) == tuple(m["difference"])
        assert row.low <= row.difference <= row.high
    assert players_page._verdict(0.01, 0.05, "a", "b") == "a is stronger"
    assert players_page._verdict(-0.05, -0.01, "a", "b") == "b is stronger"
    assert players_page._verdict(-0.05, 0.01, "a", "b") == "not separable"


def test_the_closing_words_follow_the_solved_matches():
    def solved(*intervals):
        return pd.DataFrame([{"players": p, "low": lo, "high": hi} for p, lo, hi in intervals])

    behind = players_page._closing(solved((3, -0.1, -0.05), (4, -0.1, 0.02)))
    assert behind.startswith("The solved calls close part of the gap")
    mixed = players_page._closing(solved((3, -0.1, -0.05), (4, -0.2, -0.1), (8, 0.03, 0.2)))
    assert mixed.startswith("At 8 players the solved strategy is ahead of the search")
    assert "at 3 and 4 players the search is ahead" in mixed
    assert "close part of the gap" not in mixed
    ahead = players_page._closing(solved((6, 0.01, 0.1), (8, 0.03, 0.2), (2, -0.1, 0.1)))
    assert ahead == "At 6 and 8 players the solved strategy is ahead of the search."


def _hide_eight_players(monkeypatch):
    """Make the shipped solutions look as if none shipped for 8 players."""
    shipped = solve.shipped

    def without_eight(rules_name, players):
        if players == 8:
            raise solve.SolveError("none")
        return shipped(rules_name, players)

    monkeypatch.setattr(solve, "shipped", without_eight)


def test_table_sizes_without_a_solution_and_house_rules(monkeypatch):
    _hide_eight_players(monkeypatch)
    section = players_page.build(ReportOptions(rules=Rules.preset("nordic"), players=(4, 8)))
    assert sorted(section.data["cells"]["players"].unique()) == [4]
    monkeypatch.undo()
    house = players_page.build(ReportOptions(rules=Rules.preset("standard", limit=150),
                                             players=(2, 3)))  # fmt: skip
    assert house.data == {} and not any(not isinstance(b, str) for b in house.blocks)


def test_cli_section_alone(tmp_path):
    out = tmp_path / "page"
    result = CliRunner().invoke(main, ["report", "--rules", "standard", "--section",
                                       "players-page", "--players", "2,3", "--out", str(out),
                                       "--quiet"])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert (out / "report.md").exists() and (out / "report.html").exists()


def test_with_no_rule_set_named_both_rule_books_get_a_report(tmp_path):
    out = tmp_path / "both"
    result = CliRunner().invoke(main, ["report", "--section", "players-page", "--players", "2,3",
                                       "--out", str(out), "--quiet"])  # fmt: skip
    assert result.exit_code == 0, result.output
    for book in ("standard", "nordic"):
        md = (out / book / "report.md").read_text()
        assert f"Rules: {book}" in md
        # each says how to make it alone
        assert f"--rules {book}` (" in md
    assert not (out / "report.md").exists()
    # a variant or a rule field names a rule set: one report
    result = CliRunner().invoke(main, ["report", "--section", "players-page", "--players", "2",
                                       "--set", "limit=150", "--out", str(tmp_path / "one"),
                                       "--quiet"])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert (tmp_path / "one" / "report.md").exists()


def test_the_html_nests_the_indented_lines(tmp_path):
    from yaniv_sim.report.document import write_report

    section = players_page.build(ReportOptions(rules=Rules.preset("standard"), players=(3,)))
    _, html = write_report([section], tmp_path, "page", [])
    text = html.read_text()
    nested = sum(b.count("\n  - ") for b in section.blocks if isinstance(b, str))
    assert nested > 0 and text.count("<ul><li>") >= 1
    assert text.count("</li></ul></li>") >= 1  # a nested list closes inside its item


def test_contents_links_match_github_anchors():
    from yaniv_sim.report.document import _slug

    assert _slug("1. The player's page") == "1-the-players-page"
    assert _slug("3. When should I call Yaniv?") == "3-when-should-i-call-yaniv"


def test_by_default_the_page_covers_every_table_size(tmp_path, monkeypatch):
    out = tmp_path / "page"
    result = CliRunner().invoke(main, ["report", "--rules", "nordic", "--section",
                                       "players-page", "--out", str(out), "--quiet"])  # fmt: skip
    assert result.exit_code == 0, result.output
    md = (out / "report.md").read_text()
    assert all((solve.DATA / f"nordic-{p}p.toml").exists() for p in range(2, 9))
    for players in range(2, 9):
        assert f"**{players} players" in md
    assert "No solved strategy ships" not in md
    # a size without a shipped solution is named, the others still shown
    _hide_eight_players(monkeypatch)
    result = CliRunner().invoke(main, ["report", "--rules", "nordic", "--section",
                                       "players-page", "--out", str(out), "--quiet"])  # fmt: skip
    md = (out / "report.md").read_text()
    assert "No solved strategy ships for 8 players" in md and "**7 players" in md


def test_a_quick_report_simulates_two_to_five_players_and_pages_every_size(tmp_path):
    out = tmp_path / "quick"
    result = CliRunner().invoke(main, ["report", "--rules", "standard", "--quick", "--section",
                                       "players-page", "--out", str(out), "--quiet"])  # fmt: skip
    assert result.exit_code == 0, result.output
    md = (out / "report.md").read_text()
    assert "Table sizes (players at the start of a game): 2, 3, 4, 5." in md
    assert "**8 players" in md and "**2 players" in md
    # --players wins over the quick default, for the page too
    result = CliRunner().invoke(main, ["report", "--rules", "standard", "--quick", "--section",
                                       "players-page", "--players", "6,7", "--out", str(out),
                                       "--quiet"])  # fmt: skip
    md = (out / "report.md").read_text()
    assert "Table sizes (players at the start of a game): 6, 7." in md
    assert "**7 players" in md and "**8 players" not in md


def test_the_populations_are_the_shipped_best_responses():
    section = players_page.build(ReportOptions(rules=Rules.preset("standard"), players=(2, 3, 4)))
    rows = section.data["populations"]
    sizes = [p for p in (2, 3, 4) if (solve.DATA / f"standard-{p}p-populations.json").exists()]
    assert 4 in sizes and set(rows["players"]) == set(sizes)
    for row in rows.itertuples():
        saved = json.loads((solve.DATA / f"standard-{row.players}p-populations.json").read_text())
        assert list(rows[rows["players"] == row.players]["against"]) == list(saved["populations"])
        entry = saved["populations"][row.against]
        assert (row.response, row.response_low, row.response_high) == tuple(entry["best response"])
        assert (row.solved, row.solved_low, row.solved_high) == tuple(entry["fixed point"])
        assert row.left == pytest.approx(row.response - row.solved)


def test_what_the_solution_leaves_against_other_tables():
    from yaniv_sim.report.document import Section

    def said(left_by_table):
        rows = pd.DataFrame([
            {"players": 8, "against": a, "deals": 400, "response": 0.02 + left,
             "response_low": 0.0, "response_high": 0.05, "solved": 0.02, "solved_low": 0.0,
             "solved_high": 0.05, "best": 0.0, "best_low": -0.01, "best_high": 0.01,
             "left": left}
            for a, left in left_by_table.items()
        ])  # fmt: skip
        section = Section("t")
        players_page._populations_text(section, rows, "nordic")
        return section.blocks[0]

    # a tie is a tie, not a table where the best response calls differently
    tie = said({"best": 0.0, "cautious": 0.0})
    assert "does as well as the best response" in tie and "calls differently" not in tie
    apart = said({"best": 0.0, "cautious": 0.013})
    assert "at most 1.3 points on the table, against `cautious`" in apart
