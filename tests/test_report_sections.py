"""Report sections 3-5 (rule variants, milestone targeting, policy league) on tiny budgets.

The tests read each section's analysis results (``Section.data``, the
unformatted DataFrames behind its tables) and check them against direct
counts over the datasets the section simulated and against identities the
duplicate format implies; the formatted tables are only checked for their
rows and labels.
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


def _options(data: Path) -> ReportOptions:
    return ReportOptions(quick=True, scale=0.25, players=PLAYERS, seed=SEED, data=data,
                         quiet=True, workers=1)  # fmt: skip


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("data")


def _intervals(frame: pd.DataFrame) -> list[str]:
    """The estimates of ``frame`` that carry an interval (``x``, ``x_low``, ``x_high``)."""
    return [c for c in frame.columns if f"{c}_low" in frame and f"{c}_high" in frame]


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
    verdict, pace, skill = _tables(section)
    expected = [f"threshold {t}" for t in range(3, 12)] + [
        "nordic", "no-assaf", "slapdown", "double-joker", "milestone-theft"]  # fmt: skip
    labels = [label.removesuffix(" (base)") for label in pace["rule set"]]
    assert labels == expected and list(skill["rule set"]) == list(pace["rule set"])
    assert pace["rule set"].tolist().count("threshold 7 (base)") == 1
    # every rule set but the base gets a verdict, each defined in a line
    assert verdict["rule set"].tolist() == [r for r in pace["rule set"] if "(base)" not in r]
    assert set(verdict["verdict"]) <= {"better", "worse", "no clear difference"}
    assert verdict["what it is"].str.len().min() > 10
    figures = _figures(section)
    assert [f.name for f in figures] == [
        "variants-thresholds", "variants-game-length", "variants-skill-first-seat"]  # fmt: skip
    for figure in figures:
        assert figure.png.startswith(b"\x89PNG") and "standard" in figure.caption
        assert f"{_setup_count(section, 'games'):,} self-play games" in figure.caption


def test_variants_intervals_contain_their_estimates(variant_section):
    rows = variant_section.data["rows"]
    assert list(rows["rule set"]) == list(_tables(variant_section)[1]["rule set"])
    keys = _intervals(rows)
    assert {"turns", "length", "median", "assaf", "first", "skill", "standoffs"} <= set(keys)
    for key in keys:
        part = rows[rows[key].notna()]
        assert (part[f"{key}_low"] <= part[key] + 1e-12).all(), key
        assert (part[key] <= part[f"{key}_high"] + 1e-12).all(), key
    # the no-assaf game has calls but never an Assaf
    no_assaf = rows.set_index("rule set").loc["no-assaf"]
    assert no_assaf["calls"] > 0 and no_assaf["assafs"] == 0 and no_assaf["assaf"] == 0


def _row(label, skill, first_low=0.2, standoffs=0.0, tuned=None, better=False):
    return {"label": label, "rules": Rules(), "skill": skill, "first": (0.3, first_low, 0.4),
            "fair": 0.25, "standoffs": (standoffs, standoffs, standoffs), "tuned": tuned,
            "tuned_better": better}  # fmt: skip


def test_variant_verdicts_follow_the_stated_criteria():
    rows = [
        _row("threshold 7 (base)", (0.80, 0.78, 0.82)),
        _row("threshold 3", (0.90, 0.88, 0.92)),  # clearly more skill: better
        _row("threshold 4", (0.90, 0.88, 0.92), first_low=0.26),  # ... but first seat ahead
        _row("threshold 5", (0.81, 0.79, 0.83)),  # within noise
        _row("threshold 6", (0.70, 0.68, 0.72)),  # clearly less skill: worse
        _row("threshold 8", (0.90, 0.88, 0.92), standoffs=0.02),  # more stand-offs: worse
        # tuned play counts only where tuning was clearly better
        _row("threshold 9", (0.80, 0.78, 0.82), tuned=(0.9, 0.88, 0.92), better=True),
        _row("threshold 10", (0.80, 0.78, 0.82), tuned=(0.9, 0.88, 0.92), better=False),
    ]
    table = variants.verdicts(rows).set_index("rule set")
    assert table.loc["threshold 3", "verdict"] == "better"
    assert table.loc["threshold 4", "verdict"] == "worse"
    assert table.loc["threshold 5", "verdict"] == "no clear difference"
    assert table.loc["threshold 6", "verdict"] == "worse"
    assert table.loc["threshold 8", "verdict"] == "worse"
    assert table.loc["threshold 9", "verdict"] == "better"
    assert table.loc["threshold 10", "verdict"] == "no clear difference"
    assert table.loc["threshold 3", "skill_diff"] == pytest.approx(0.10)
    # Holm: the smallest p times m, then step-down, never decreasing
    np.testing.assert_allclose(variants._holm(np.array([0.01, 0.04, 0.03, 0.5])),
                               [0.04, 0.09, 0.09, 0.5])  # fmt: skip


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
    row = variant_section.data["rows"].set_index("rule set").loc[label]
    assert row["games"] == len(g) == games
    assert row["rounds"] == len(r) == g["rounds"].sum()
    assert row["length"] == pytest.approx(len(r) / len(g))
    assert row["turns"] == pytest.approx(r["turns"].sum() / len(r))
    # calls: a seat called or slapped down, minus the slapdowns
    calls = int((r["caller"] >= 0).sum() - (r["outcome"] == "slapdown").sum())
    assaf = int((r["outcome"] == "assaf").sum())
    assert row["calls"] == calls
    assert row["assaf"] == pytest.approx(assaf / calls)
    first = sum(1 for w in g["winner"] if w == 0)
    assert row["first"] == pytest.approx(first / len(g))
    assert row["fair"] == pytest.approx(1 / 3)


def test_variants_skill_intervals_are_paired(variant_section):
    """best against max-shed: each deal's two shares add up to one (a game always has a
    winner), so the share's paired interval is centred on it and about as wide as the
    interval of the difference halved; a Wilson interval over the deals would be wider."""
    rows = variant_section.data["rows"]
    deals = _count(re.search(r"([\d,]+) duplicate deals", variant_section.setup["skill"])[1])
    for row in rows.itertuples():
        half = (row.skill_high - row.skill_low) / 2
        if row.skill_high < 1 and row.skill_low > 0:
            assert row.skill - row.skill_low == pytest.approx(half)
        # a deal's share lies in [0, 1], so its variance is at most p (1 - p): the paired
        # interval is at most as wide as a binomial one over the deals
        binomial = 1.96 * math.sqrt(row.skill * (1 - row.skill) / (deals - 1))
        assert half <= binomial + 1e-9
    tuned = rows[rows["tuned"].notna()] if "tuned" in rows else rows.iloc[:0]
    for row in tuned.itertuples():
        assert row.tuned_diff_low <= row.tuned_diff <= row.tuned_diff_high
        assert row.tuned_diff == pytest.approx(row.tuned - row.skill)
        assert row.tuned_better == (row.tuned_diff_low > 0)


def test_variants_takeaway_follows_the_table(variant_section):
    rows = variant_section.data["rows"]
    text = next(b for b in variant_section.blocks
                if isinstance(b, str) and "quickest games" in b)  # fmt: skip
    quickest = rows.loc[rows["length"].idxmin(), "rule set"]
    longest = rows.loc[rows["length"].idxmax(), "rule set"]
    assert f"quickest games are under **{quickest}**" in text
    assert f"longest under **{longest}**" in text


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
    table, strong_table = _tables(section)
    rows = section.data["rows"]
    expected = [("50/100", 2), ("50/100", 3), ("100/200", 2), ("100/200", 3)]
    assert list(zip(strong_table["milestones"], strong_table["players"], strict=True)) == expected
    assert list(zip(table["milestones"], table["players"], strict=True)) == expected
    assert list(zip(rows["scheme"], rows["players"], strict=True)) == expected
    deals, games = _setup_count(section, "deals"), _setup_count(section, "games")
    assert set(rows["deals"]) == {deals} and set(rows["games"]) == {games}
    keys = _intervals(rows)
    assert {"win", "diff", "hunter_landed", "plain_saved", "saved_diff"} <= set(keys)
    for key in keys:
        assert (rows[f"{key}_low"] <= rows[key] + 1e-12).all(), key
        assert (rows[key] <= rows[f"{key}_high"] + 1e-12).all(), key
    # two policies: every deal's win shares add up to one, so difference = 2 share - 1,
    # and the share's paired interval is half the difference's
    assert np.allclose(rows["diff"], 2 * rows["win"] - 1)
    inside = (rows["win_low"] > 0) & (rows["win_high"] < 1)
    assert np.allclose((rows["win_high"] - rows["win_low"])[inside],
                       ((rows["diff_high"] - rows["diff_low"]) / 2)[inside])  # fmt: skip
    # readable names: the raw spec of the untargeted preset is in the setup only
    plain = milestones.untargeted_spec()
    assert plain in section.setup["policies"]
    (figure,) = _figures(section)
    assert plain not in figure.caption and plain not in _tables(section)[0].to_string()
    assert figure.png.startswith(b"\x89PNG") and f"{deals:,} duplicate" in figure.caption


def test_milestones_on_strong_play(milestone_section):
    strong = milestone_section.data["strong"]
    assert len(strong) == 2 * 2 * 2  # two pairs, two schemes, two table sizes
    assert set(strong["pair"]) == {"targeting", "hunting"}
    targeting = strong[strong["pair"] == "targeting"]
    assert set(targeting["first"]) == {"best"} and set(targeting["second"]) == {"best:milestone=0"}
    # the hunting best differs from best only in milestone parameters
    hunting = policy_vector(milestones.STRONG_HUNTER)
    best = policy_vector("best")
    changed = [n for n, (slot, *_rest) in HEURISTIC_PARAMS.items() if hunting[slot] != best[slot]]
    assert changed and all(n.startswith("milestone") for n in changed)
    assert ((strong["diff_low"] <= strong["diff"]) & (strong["diff"] <= strong["diff_high"])).all()


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
    table, matches = section.data["standings"], section.data["matches"]
    n = len(policies)
    assert list(table["rank"]) == list(range(1, n + 1)) == list(ranking["rank"])
    assert sorted(table["policy"]) == sorted(policies)
    assert list(ranking["policy"]) == list(table["policy"])
    assert len(matches) == n * (n - 1) // 2
    assert ((table["low"] <= table["share"]) & (table["share"] <= table["high"])).all()
    assert list(table["share"]) == sorted(table["share"], reverse=True)
    deals = _count(re.search(r"([\d,]+) deals each", section.setup["format"])[1])
    assert set(matches["deals"]) == {deals}
    # each policy's share is the mean of its shares over its matches, and its record
    # counts the matches whose interval of the difference is clear of zero
    for row in table.itertuples():
        mine_a, mine_b = matches[matches["a"] == row.policy], matches[matches["b"] == row.policy]
        shares = [*mine_a["win_a"], *mine_b["win_b"]]
        assert len(shares) == row.matches == n - 1
        assert row.share == pytest.approx(np.mean(shares))
        won = (mine_a["low"] > 0).sum() + (mine_b["high"] < 0).sum()
        lost = (mine_a["high"] < 0).sum() + (mine_b["low"] > 0).sum()
        assert (row.won, row.lost, row.level) == (won, lost, n - 1 - won - lost)
    assert table["won"].sum() == table["lost"].sum()
    # the head-to-head matrix marks the same clear wins and losses
    assert matrix.shape == (n, n + 1) and list(matrix["policy"]) == list(table["policy"])
    cells = matrix.set_index("policy")
    for row in table.itertuples():
        marks = list(cells.loc[row.policy])
        assert cells.loc[row.policy, row.policy] == "–"
        assert sum(c.endswith("▲") for c in marks) == row.won
        assert sum(c.endswith("▼") for c in marks) == row.lost
    # a match's shares add up to one (within what a game without a winner could take)
    assert np.allclose(matches["win_a"] + matches["win_b"], 1, atol=0.02)
    assert np.allclose(matches["difference"], matches["win_a"] - matches["win_b"])
    (figure,) = _figures(section)
    assert figure.png.startswith(b"\x89PNG") and "3 players" in figure.caption


def test_league_matches_use_the_stated_seeds(league_section):
    """The setup says match i uses seed + i: played again on that seed, a match agrees."""
    matches = league_section.data["matches"]
    assert list(matches["seed"]) == [SEED + i for i in range(len(matches))]
    deals = int(matches["deals"].iloc[0])
    last = matches.iloc[-1]
    again = compare([last["a"], last["b"]], Rules(), 3, deals, int(last["seed"]), workers=1)
    assert again.table.win_rate.iloc[0] == pytest.approx(last["win_a"])
