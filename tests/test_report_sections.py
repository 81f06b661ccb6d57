"""Report sections 3-5 (rule variants, milestone targeting, policy league) on tiny budgets.

The numbers in the sections' tables are checked against direct counts over
the datasets they simulated and against duplicate comparisons played again
here with the seeds the sections state.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from yaniv_sim.compare import compare
from yaniv_sim.engine.specs import FAMILIES, HEURISTIC_PARAMS, policy_vector
from yaniv_sim.report import league, milestones, variants
from yaniv_sim.report.context import ReportOptions
from yaniv_sim.report.document import Figure, Table
from yaniv_sim.rules import Rules
from yaniv_sim.storage import open_dataset

SEED = 3
PLAYERS = (2, 3)  # the variant and league tables then seat 3 players
CELL = re.compile(
    r"([+-]?[\d,]+(?:\.\d+)?)%? \(([+-]?[\d,]+(?:\.\d+)?)(?:–| to )([+-]?[\d,]+(?:\.\d+)?)\)"
)


def _options(data: Path) -> ReportOptions:
    return ReportOptions(quick=True, scale=0.25, players=PLAYERS, seed=SEED, data=data,
                         quiet=True, workers=1)  # fmt: skip


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("data")


def _interval(cell: str) -> tuple[float, float, float]:
    """(value, low, high) of a cell such as ``24.1% (23.5–24.8)`` or ``-0.1 (-0.2 to +0.3)``."""
    match = CELL.search(cell)
    assert match, cell
    return tuple(float(g.replace(",", "")) for g in match.groups())


def _count(cell: str) -> int:
    return int(str(cell).replace(",", ""))


def _tables(section) -> list[pd.DataFrame]:
    return [b.frame for b in section.blocks if isinstance(b, Table)]


def _figures(section) -> list[Figure]:
    return [b for b in section.blocks if isinstance(b, Figure)]


def _setup_count(section, key: str) -> int:
    return _count(re.match(r"[\d,]+", section.setup[key]).group())


def _datasets(root: Path, players: int) -> list[tuple[Path, dict]]:
    found = []
    for manifest in root.rglob("manifest.json"):
        request = json.loads(manifest.read_text())["request"]
        if request["players"] == players and request["seed"] == SEED:
            found.append((manifest.parent, request))
    return found


# -- section 3: rule variants -------------------------------------------------------------


@pytest.fixture(scope="module")
def variant_section(data):
    return variants.build(_options(data))


def test_variants_has_every_rule_set_table_and_figure(variant_section):
    section = variant_section
    assert section.title == "Rule variants"
    assert section.setup["rules"] == "standard" and section.setup["seed"] == str(SEED)
    assert section.setup["players"] == "3"
    pace, skill = _tables(section)
    expected = [f"threshold {t}" for t in range(3, 12)] + [
        "nordic", "no-assaf", "slapdown", "double-joker", "milestone-theft"]  # fmt: skip
    labels = [label.removesuffix(" (base)") for label in pace["rule set"]]
    assert labels == expected and list(skill["rule set"]) == list(pace["rule set"])
    assert pace["rule set"].tolist().count("threshold 7 (base)") == 1
    figures = _figures(section)
    assert [f.name for f in figures] == [
        "variants-thresholds", "variants-game-length", "variants-skill-first-seat"]  # fmt: skip
    for figure in figures:
        assert figure.png.startswith(b"\x89PNG") and "standard" in figure.caption
        assert f"{_setup_count(section, 'games'):,} self-play games" in figure.caption


def test_variants_intervals_contain_their_estimates(variant_section):
    pace, skill = _tables(variant_section)
    cells = [c for col in pace.columns if "95%" in col for c in pace[col]]
    cells += list(skill.iloc[:, 2])
    cells += [c for c in skill.iloc[:, 4] if c != "same as the preset"]
    assert len(cells) >= 5 * 14 + 14
    for cell in cells:
        value, low, high = _interval(cell)
        assert low <= value <= high, cell
    # the no-assaf game has calls but never an Assaf
    no_assaf = pace[pace["rule set"] == "no-assaf"].iloc[0]
    assert _count(no_assaf["calls"]) > 0 and _interval(no_assaf["Assaf per call (95%)"])[0] == 0


@pytest.mark.parametrize(
    ("label", "rules"),
    [("threshold 7 (base)", Rules()), ("slapdown", Rules(slapdown=True)),
     ("threshold 4", Rules(threshold=4))],
)  # fmt: skip
def test_variants_numbers_equal_direct_counts(variant_section, data, label, rules):
    games = _setup_count(variant_section, "games")
    folder = [path for path, request in _datasets(data, 3)
              if Rules.from_dict(request["rules"]) == rules
              and request["policies"] == ["best"] * 3 and request["count"] == games]  # fmt: skip
    assert len(folder) == 1
    ds = open_dataset(folder[0])
    r, g = ds.rounds, ds.games
    row = _tables(variant_section)[0].set_index("rule set").loc[label]
    assert _count(row["games"]) == len(g) == games
    assert _count(row["rounds"]) == len(r) == g["rounds"].sum()
    assert _interval(row["rounds per game (95%)"])[0] == round(len(r) / len(g), 1)
    assert _interval(row["turns per round (95%)"])[0] == round(r["turns"].sum() / len(r), 1)
    # calls: a seat called or slapped down, minus the slapdowns
    calls = int((r["caller"] >= 0).sum() - (r["outcome"] == "slapdown").sum())
    assaf = int((r["outcome"] == "assaf").sum())
    assert _count(row["calls"]) == calls
    assert _interval(row["Assaf per call (95%)"])[0] == round(100 * assaf / calls, 1)
    first = sum(1 for w in g["winner"] if w == 0)
    assert _interval(row["first seat wins (95%)"])[0] == round(100 * first / len(g), 1)
    assert row["fair share"] == "33.3%"


def test_variants_skill_is_the_stated_duplicate_comparison(variant_section):
    deals = _count(re.search(r"([\d,]+) duplicate deals", variant_section.setup["skill"])[1])
    skill = _tables(variant_section)[1].set_index("rule set")
    for label, rules in (("threshold 7 (base)", Rules()), ("nordic", Rules.preset("nordic"))):
        assert _count(skill.loc[label, "deals"]) == deals
        again = compare(["best", "max-shed"], rules, 3, deals, SEED, workers=1)
        value = _interval(skill.loc[label].iloc[1])[0]
        assert value == round(100 * again.table.win_rate.iloc[0], 1)


def test_variants_takeaway_follows_the_table(variant_section):
    pace = _tables(variant_section)[0]
    text = next(b for b in variant_section.blocks if isinstance(b, str))
    length = {row["rule set"]: _interval(row["rounds per game (95%)"])[0]
              for _, row in pace.iterrows()}  # fmt: skip
    quickest = re.search(r"quickest games are under \*\*(.+?)\*\*", text)[1]
    longest = re.search(r"longest under \*\*(.+?)\*\*", text)[1]
    assert length[quickest] == min(length.values())
    assert length[longest] == max(length.values())


# -- section 4: milestone targeting ---------------------------------------------------------


def test_without_targeting_every_milestone_parameter_is_at_its_default():
    plain = milestones.untargeted_spec()
    assert plain.startswith(milestones.HUNTER + ":")
    hunter = policy_vector(milestones.HUNTER)
    vector = policy_vector(plain)
    names = [n for n in FAMILIES[milestones.HUNTER][1] if n.startswith("milestone")]
    assert names
    for name, (index, default, _low, _high) in HEURISTIC_PARAMS.items():
        if name.startswith("milestone"):
            assert vector[index] == default, name
        else:
            assert vector[index] == hunter[index], name
    # the hunter does target milestones, so the two differ
    assert any(hunter[HEURISTIC_PARAMS[n][0]] != HEURISTIC_PARAMS[n][1] for n in names)


@pytest.fixture(scope="module")
def milestone_section(data):
    return milestones.build(_options(data))


def test_milestones_table_figure_and_intervals(milestone_section):
    section = milestone_section
    assert section.title == "Milestone targeting" and section.setup["seed"] == str(SEED)
    (table,) = _tables(section)
    assert list(zip(table["milestones"], table["players"], strict=True)) == [
        ("50/100", 2), ("50/100", 3), ("100/200", 2), ("100/200", 3)]  # fmt: skip
    deals, games = _setup_count(section, "deals"), _setup_count(section, "games")
    assert {_count(c) for c in table["deals"]} == {deals}
    assert {_count(c) for c in table["games"]} == {games}
    for col in [c for c in table.columns if "95%" in c]:
        for cell in table[col]:
            value, low, high = _interval(cell)
            assert low <= value <= high, (col, cell)
    # with two policies every deal's win shares add up to one: difference = 2 share - 1
    for share, diff in zip(table.iloc[:, 3], table.iloc[:, 4], strict=True):
        assert abs(_interval(diff)[0] - (2 * _interval(share)[0] - 100)) <= 0.25
    (figure,) = _figures(section)
    assert figure.png.startswith(b"\x89PNG") and f"{deals:,} duplicate" in figure.caption


def test_milestones_win_share_is_the_stated_comparison(milestone_section):
    (table,) = _tables(milestone_section)
    deals = _setup_count(milestone_section, "deals")
    rules = Rules(milestones={100: 50, 200: 100})
    again = compare([milestones.HUNTER, milestones.untargeted_spec()], rules, 3, deals, SEED,
                    workers=1)  # fmt: skip
    row = table[(table["milestones"] == "100/200") & (table["players"] == 3)].iloc[0]
    assert _interval(row.iloc[3])[0] == round(100 * again.table.win_rate.iloc[0], 1)


def test_milestone_landings_and_points_saved_equal_the_totals(milestone_section, data):
    checked = 0
    for players in PLAYERS:
        for folder, request in _datasets(data, players):
            if len(set(request["policies"])) != 2:
                continue
            rules = Rules.from_dict(request["rules"])
            ds = open_dataset(folder)
            marks = milestones.landings(ds.rounds, players, rules.milestone_dict())
            marks = marks.set_index(["game", "seat"]).sort_index()
            r = ds.rounds.sort_values(["game", "round"])
            for s in range(players):
                # standard rules without theft: total = previous total + score - milestone cut
                before = r.groupby("game")[f"total_{s}"].shift(fill_value=0)
                cut = before + r[f"score_{s}"].astype(np.int64) - r[f"total_{s}"]
                saved = cut.groupby(r["game"]).sum()
                mine = marks.xs(s, level="seat")
                assert (mine["saved"].to_numpy() == saved.to_numpy()).all()
                assert (mine["landed"].to_numpy() == ds.games[f"landings_{s}"].to_numpy()).all()
            checked += 1
    assert checked == 4  # two schemes at two table sizes


def test_milestones_section_is_reproducible(milestone_section, data):
    again = milestones.build(_options(data))
    for first, second in zip(_tables(milestone_section), _tables(again), strict=True):
        pd.testing.assert_frame_equal(first, second)


# -- section 5: the league -------------------------------------------------------------------


def test_standings_by_hand():
    z = 1.959963984540054
    matches = pd.DataFrame(
        [
            # a beats b clearly; a and c level; c beats b clearly
            {"a": "a", "b": "b", "win_a": 0.7, "win_b": 0.3, "difference": 0.4, "low": 0.3,
             "high": 0.5},
            {"a": "a", "b": "c", "win_a": 0.5, "win_b": 0.5, "difference": 0.0, "low": -0.1,
             "high": 0.1},
            {"a": "b", "b": "c", "win_a": 0.4, "win_b": 0.6, "difference": -0.2, "low": -0.3,
             "high": -0.1},
        ]
    )  # fmt: skip
    table = league.standings(matches, ["a", "b", "c"]).set_index("policy")
    assert list(table.index) == ["a", "c", "b"] and list(table["rank"]) == [1, 2, 3]
    assert table.loc["a", "share"] == pytest.approx(0.6)
    assert table.loc["c", "share"] == pytest.approx(0.55)
    assert table.loc["b", "share"] == pytest.approx(0.35)
    assert tuple(table.loc["a", ["won", "lost", "level"]]) == (1, 0, 1)
    assert tuple(table.loc["b", ["won", "lost", "level"]]) == (0, 2, 0)
    assert tuple(table.loc["c", ["won", "lost", "level"]]) == (1, 0, 1)
    # each match's share has half the difference's standard error; two matches averaged
    se_a = math.sqrt((0.1 / z / 2) ** 2 + (0.1 / z / 2) ** 2) / 2
    assert table.loc["a", "high"] - table.loc["a", "share"] == pytest.approx(z * se_a)


@pytest.fixture(scope="module")
def league_section(data):
    return league.build(_options(data))


def test_league_table_matrix_and_figure(league_section):
    section = league_section
    policies = league.league_policies()
    assert len(policies) == 10 and policies[0] == "max-shed"
    ranking, matrix = _tables(section)
    n = len(policies)
    assert list(ranking["rank"]) == list(range(1, n + 1))
    assert sorted(ranking["policy"]) == sorted(policies)
    shares = [_interval(c) for c in ranking["mean win share (95%)"]]
    assert all(low <= v <= high for v, low, high in shares)
    assert [v for v, _, _ in shares] == sorted((v for v, _, _ in shares), reverse=True)
    deals = _count(re.search(r"([\d,]+) deals each", section.setup["format"])[1])
    assert set(ranking["matches × deals"]) == {f"{n - 1} × {deals:,}"}
    record = [tuple(map(int, c.split("–"))) for c in ranking["clear wins–losses–level"]]
    assert all(sum(r) == n - 1 for r in record)
    assert sum(r[0] for r in record) == sum(r[1] for r in record)
    # the head-to-head matrix agrees with the league table
    assert matrix.shape == (n, n + 1) and list(matrix["policy"]) == list(ranking["policy"])
    cells = matrix.set_index("policy")
    for i, name in enumerate(ranking["policy"]):
        row = [c for c in cells.loc[name] if c != "–"]
        assert len(row) == n - 1 and cells.loc[name, name] == "–"
        values = [int(c.split()[0]) for c in row]
        assert abs(np.mean(values) - shares[i][0]) <= 0.6
        assert sum(c.endswith("▲") for c in row) == record[i][0]
        assert sum(c.endswith("▼") for c in row) == record[i][1]
        for other in ranking["policy"]:
            if other != name:
                pair = int(cells.loc[name, other].split()[0]) + int(
                    cells.loc[other, name].split()[0]
                )
                assert pair in (99, 100, 101)
    (figure,) = _figures(section)
    assert figure.png.startswith(b"\x89PNG") and "3 players" in figure.caption


def test_league_matches_use_the_stated_seeds(league_section):
    matrix = _tables(league_section)[1].set_index("policy")
    deals = _count(re.search(r"([\d,]+) deals each", league_section.setup["format"])[1])
    policies = league.league_policies()
    pairs = [(a, b) for i, a in enumerate(policies) for b in policies[i + 1 :]]
    for index in (0, len(pairs) - 1):
        a, b = pairs[index]
        again = compare([a, b], Rules(), 3, deals, SEED + index, workers=1)
        assert int(matrix.loc[a, b].split()[0]) == round(100 * again.table.win_rate.iloc[0])
