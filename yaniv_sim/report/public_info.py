"""Report section: what you can see at the table, and how it changes the risk and the call.

From the same self-play games with call-or-wait branches as the Assaf-risk and
when-to-call sections: for each table size and hand value, the Assaf risk if
you called now and the verdict on calling, split by five things every player
can see (:mod:`yaniv_sim.analysis.public_info`): a pickup, whether your hand
is a single card, whether the shortest hand plays next, whether an Assaf
would put you out, and whether you hold the lowest total. Under a preset the
gain of calling is the game-win chance from the shipped equity tables; under
house rules, the round margin.
"""

from __future__ import annotations

import pandas as pd

from yaniv_sim import equity, solve
from yaniv_sim.analysis.public_info import FEATURES, feature_table
from yaniv_sim.report.context import ReportOptions
from yaniv_sim.report.document import Section
from yaniv_sim.rules import Rules

TITLE = "What you can see: pickups, your cards, who plays next, the score"
SHORT = {"call": "call", "wait": "wait", "too close": "close", "too few": "few"}


def points_of(options: ReportOptions, players: int) -> tuple[pd.DataFrame, str]:
    """The decision points of the report's branch games at ``players``, without stand-offs.

    Returns the points (:func:`yaniv_sim.solve.branch_values`) and the gain
    column used: ``win_gain`` under a preset (the shipped equity table), else
    ``points_gain``.
    """
    data = options.decision_data(players)
    preset = options.label in ("standard", "nordic") and options.rules == Rules.preset(
        options.label
    )
    table = equity.shipped(options.label, players) if preset else None
    points = solve.branch_values(data, table)[options.outside_standoffs(players)]
    return points.reset_index(drop=True), ("win_gain" if preset else "points_gain")


def _cell(row) -> str:
    if row.verdict == "too few":
        return f"{100 * row.risk:.0f}% · few (n={row.n:,})"
    return f"{100 * row.risk:.0f}% · {SHORT[row.verdict]}"


def build(options: ReportOptions) -> Section:
    players_list = list(options.players)
    frames, gain_name = [], "win_gain"
    for players in players_list:
        points, gain_name = points_of(options, players)
        for feature in FEATURES:
            table = feature_table(points, feature, gain=gain_name)
            frames.append(table.assign(players=players, feature=feature))
    table = pd.concat(frames, ignore_index=True)
    games = options.budget(*options.DECISION_GAMES)
    setup = options.setup(policy=f"`{options.policy}`", games=f"{games:,} per table size")
    section = Section(TITLE, setup)
    section.data["features"] = table
    if gain_name == "win_gain":
        gain_words = "the game-win chance it gains over waiting (from the shipped equity tables)"
    else:
        gain_words = "the round margin it gains over waiting"
    section.text(
        "Five things every player at the table can see, and what they change. For each hand "
        "value: the **Assaf risk if you called now** (the share of decision points where some "
        "opponent held your hand value or less) and the **verdict** on calling, from "
        f"{gain_words}: **call** or **wait** where a one-sided test says so, all the tests of "
        "this section controlled together at a false-discovery rate of 5%; **close** where "
        "neither is clear; **few** under 100 decision points. Intervals and tests are "
        f"clustered by game. The positions are those of `{options.policy}`'s self-play, so "
        "a split shows what the feature changes at the positions that policy reaches."
    )
    section.text("\n".join(f"- **{f.label}**: {f.meaning}." for f in FEATURES.values()))
    for players in players_list:
        part = table[table["players"] == players]
        values = sorted(part["hand_value"].unique())
        wide = pd.DataFrame({"hand value": values})
        for feature, (_label, _meaning, names) in FEATURES.items():
            for level in (0, 1):
                cells = part[(part["feature"] == feature) & (part["level"] == level)]
                cells = cells.set_index("hand_value")
                wide[names[level]] = [_cell(cells.loc[v]) if v in cells.index else "–"
                                      for v in values]  # fmt: skip
        section.table(wide, f"{options.label}, {players}-player games: Assaf risk if you "
                      "called now · verdict, by what you can see.")  # fmt: skip
    section.text(_takeaway(table))
    section.attach("public-info.csv", table.to_csv(index=False, float_format="%.6g"))
    section.text("Every cell with its decision points, games, intervals and p-values: "
                 "[`public-info.csv`](public-info.csv).")  # fmt: skip
    return section


def flips(table: pd.DataFrame) -> pd.DataFrame:
    """Cells whose verdict is call at one level of a feature and wait at the other."""
    keys = ["players", "feature", "hand_value"]
    wide = table.pivot_table(index=keys, columns="level", values="verdict", aggfunc="first")
    wide = wide.dropna().reset_index()
    both = wide[((wide[0] == "call") & (wide[1] == "wait"))
                | ((wide[0] == "wait") & (wide[1] == "call"))]  # fmt: skip
    return both.rename(columns={0: "without", 1: "with"})[[*keys, "without", "with"]]


def _spans(values: list[int]) -> str:
    """Hand values as runs: [1, 2, 3, 5] -> "1-3 and 5 points"."""
    runs: list[list[int]] = []
    for v in sorted(values):
        if runs and v == runs[-1][-1] + 1:
            runs[-1].append(v)
        else:
            runs.append([v])
    parts = [str(r[0]) if len(r) == 1 else f"{r[0]}-{r[-1]}" for r in runs]
    text = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    return text + (" point" if values == [1] else " points")


def _takeaway(table: pd.DataFrame) -> str:
    turned = flips(table)
    risk = table.pivot_table(index=["players", "feature", "hand_value"], columns="level",
                             values="risk").dropna()  # fmt: skip
    lines = []
    for feature, (_label, _meaning, names) in FEATURES.items():
        if feature not in risk.index.get_level_values("feature"):
            continue
        part = risk.xs(feature, level="feature")
        diff = (part[1] - part[0]) * 100
        lines.append(f"with {names[1]} the Assaf risk is {diff.min():+.0f} to {diff.max():+.0f} "
                     f"percentage points against {names[0]}")  # fmt: skip
    text = "**Takeaway.** By table size and hand value, " + "; ".join(lines) + "."
    if len(turned):
        items = []
        for (players, feature, without, with_), part in turned.groupby(
            ["players", "feature", "without", "with"], sort=True
        ):
            names = FEATURES[feature].levels
            items.append(f"at {players} players, {without} with {names[0]} and {with_} with "
                         f"{names[1]} at {_spans(list(part['hand_value']))}")  # fmt: skip
        text += " The verdict turns from one way to the other: " + "; ".join(items) + "."
    else:
        text += " No verdict turns from call to wait (or back) between the two sides of a split."
    return text
