"""Report section: how likely an Assaf is, by hand value, from every decision point."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from yaniv_sim import advice_tables
from yaniv_sim.analysis.assaf_risk import (
    BAND_NAMES,
    assaf_risk,
    called_assaf_rate,
    naive_assaf_risk,
    turn_band,
)
from yaniv_sim.report.context import ReportOptions
from yaniv_sim.report.document import Section

TITLE = "Assaf risk by hand value"


def _yerr(frame: pd.DataFrame) -> np.ndarray:
    """Error bar lengths in percent (rounding can leave an end a hair inside the estimate)."""
    below = frame["risk"] - frame["low"]
    above = frame["high"] - frame["risk"]
    return 100 * np.clip(np.vstack([below, above]), 0, None)


def _pct(value, low, high) -> str:
    return f"{value:.1%} ({low:.1%}–{high:.1%})"


def risk_frames(options: ReportOptions) -> tuple[pd.DataFrame, pd.DataFrame]:
    """All decision points (with ``players`` and ``band``) and the naive odds per table size."""
    frames, naive = [], []
    for players in options.players:
        dec, *_ = options.decision_points(players)
        dec = dec.assign(players=players, band=turn_band(dec["turn"].to_numpy()))
        frames.append(dec)
        naive.append(naive_assaf_risk(dec, options.rules, players).assign(players=players))
    return pd.concat(frames, ignore_index=True), pd.concat(naive, ignore_index=True)


def _cell(row, naive: float | None = None) -> str:
    text = f"{_pct(row.risk, row.low, row.high)} n={int(row.n):,}"
    return text if naive is None else f"{text}; naive {naive:.1%}"


def _wide(frame: pd.DataFrame, column: str, levels, label, values, naive=None) -> pd.DataFrame:
    """Hand value down, one column per level of ``column``; "–" where there is no data."""
    wide = pd.DataFrame({"hand value": values})
    for level in levels:
        part = frame[frame[column] == level].set_index("hand_value")
        cells = []
        for v in values:
            if v not in part.index:
                cells.append("–")
                continue
            r = part.loc[v]
            cells.append(_cell(r, None if naive is None else r[naive]))
        wide[label(level)] = cells
    return wide


def _game(players: int) -> str:
    return f"{players}-player game"


def build(options: ReportOptions) -> Section:
    decisions, naive = risk_frames(options)
    threshold = options.rules.threshold
    games = options.budget(*options.DECISION_GAMES)
    calls_total = int(decisions["called"].sum())
    section = Section(
        TITLE,
        options.setup(
            policy=f"{options.policy} at every seat",
            data=f"{games:,} games per table size, {len(decisions):,} decision points, "
            f"{calls_total:,} calls",
        ),
    )
    section.text(
        "A **decision point** is any turn start at which a player may call Yaniv (hand "
        f"worth {threshold} or less), whether they called or not. Two numbers answer two "
        "questions:"
    )
    section.text(
        "- **If you called now**: the share of decision points at which some opponent "
        "held the same value or less, so that calling right then would have been met by an "
        "Assaf. Most decision points are turns at which the players waited, often because "
        "calling looked risky, so this is the risk of calling at an average decision "
        "point, not what happens to the calls players make.\n"
        "- **When players did call**: the share of the calls actually made (by "
        f"{options.policy}, which picks its moments) that were Assafed."
    )
    section.text(
        "The **naive** figure is the exact chance of the first if the opponents' cards "
        "were dealt at random from a full deck (same card counts): real opponents keep low "
        "cards and take them from the pile, so the gap shows how much that matters. "
        "**N-player game** means the table size at the start of the game (opponents "
        "knocked out later still count in it)."
    )
    standoffs = []
    total_void = 0
    for players in options.players:
        _, void, rounds, dropped = options.decision_points(players)
        total_void += void
        standoffs.append(f"{void} of {rounds:,} rounds at {players} players "
                         f"({dropped:,} decision points)")  # fmt: skip
    if total_void:
        section.text(
            f"Left out: rounds stopped by the turn cap ({options.rules.max_turns} turns) "
            "without a call: " + "; ".join(standoffs) + ". These are **stand-offs**, "
            "rounds nobody ends (docs/policies.md, Long rounds); each would add hundreds "
            "of identical decision points."
        )
    else:
        section.text(
            f"No round ran into the turn cap ({options.rules.max_turns} turns): from 20 turns "
            "a seat every preset plays to end a round (docs/policies.md, Long rounds)."
        )
    keys = ["players", "hand_value"]
    by_value = assaf_risk(decisions, keys)
    merged = by_value.merge(naive[[*keys, "naive"]], on=keys)
    called = called_assaf_rate(decisions, keys)
    section.data["risk"] = merged
    section.data["called"] = called
    values = sorted(by_value["hand_value"].unique())
    section.table(
        _wide(merged, "players", options.players, _game, values, naive="naive"),
        "**If you called now**: Assaf risk at each hand value, as a share of decision points "
        "(95% Wilson interval, n = decision points), and the naive random-card odds. "
        f"Rules: {options.label}; {options.policy} self-play.",
    )
    section.table(
        _wide(called, "players", options.players, _game, values),
        "**When players did call**: the share of calls at each hand value that were "
        "Assafed (95% Wilson interval, n = calls made). Rules: "
        f"{options.label}; {options.policy} self-play.",
    )
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4.2), sharey=True)
    for i, players in enumerate(options.players):
        colour = f"C{i}"
        part = merged[merged["players"] == players]
        left.errorbar(part["hand_value"], 100 * part["risk"], yerr=_yerr(part), marker="o",
                      capsize=3, color=colour, label=_game(players))  # fmt: skip
        left.plot(part["hand_value"], 100 * part["naive"], ls="--", color=colour, alpha=0.6)
        part = called[(called["players"] == players) & (called["n"] >= 30)]
        right.errorbar(part["hand_value"], 100 * part["risk"], yerr=_yerr(part), marker="o",
                       capsize=3, color=colour, label=_game(players))  # fmt: skip
    left.set_title("If you called now\n(% of decision points; dashed: random cards)")
    right.set_title("When players did call\n(% of calls made; 30 calls or more)")
    left.set_ylabel("Assaf (%)")
    for ax in (left, right):
        ax.set_xlabel("own hand value (points)")
        ax.grid(alpha=0.3)
    handles, labels = left.get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(labels), frameon=False)
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    section.figure(
        fig,
        "assaf-risk-by-value",
        f"Assaf risk by hand value with 95% intervals. Left: if you called at an average "
        f"decision point ({len(decisions):,} decision points); dashed, the exact odds if "
        f"opponents held random cards. Right: the share of the {calls_total:,} calls made "
        f"that were Assafed. Rules: {options.label}.",
    )
    # breakdowns at the most common table size of the report: the middle one
    players = options.players[len(options.players) // 2]
    sub = decisions[decisions["players"] == players]
    sub = sub.assign(fewest=np.minimum(sub["fewest_opponent_cards"], 5))
    fewest = assaf_risk(sub, ["hand_value", "fewest"])
    fewest_called = called_assaf_rate(sub, ["hand_value", "fewest"])
    bands = assaf_risk(sub, ["hand_value", "band"])
    section.data["fewest"] = fewest
    section.data["fewest_called"] = fewest_called
    section.data["bands"] = bands
    fig, axes = plt.subplots(1, 2, figsize=(10, 4.6), sharey=True)
    for ax, frame, key, names, what in (
        (axes[0], fewest, "fewest", {c: f"{c}" if c < 5 else "5+" for c in range(1, 6)},
         "fewest cards an opponent holds"),
        (axes[1], bands, "band", dict(enumerate(BAND_NAMES)), "turns played in the round"),
    ):  # fmt: skip
        for j, (level, part) in enumerate(frame.groupby(key)):
            part = part[part["n"] >= 30]
            if part.empty:
                continue
            ax.errorbar(part["hand_value"] + 0.06 * (j - 2), 100 * part["risk"],
                        yerr=_yerr(part),
                        marker="o", ms=4, capsize=2, label=names[level])  # fmt: skip
        ax.set_xlabel("own hand value (points)")
        ax.set_title(f"by {what}")
        # below the axes, clear of the lines
        ax.legend(title=what, fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.16),
                  ncol=5, frameon=False)  # fmt: skip
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("Assaf risk if you called now\n(% of decision points)")
    fig.suptitle(f"If you called now: Assaf risk in {players}-player games, broken down")
    fig.tight_layout()
    section.figure(
        fig,
        "assaf-risk-breakdown",
        f"If you called now: Assaf risk in {players}-player games by the fewest cards an "
        f"opponent holds and by turn band, 95% intervals; cells with under 30 decision points "
        f"left out ({len(sub):,} decision points; rules: {options.label}).",
    )
    fewest_label = {c: f"fewest {c}" if c < 5 else "fewest 5+" for c in range(1, 6)}
    levels = sorted(fewest["fewest"].unique())
    values = sorted(fewest["hand_value"].unique())
    section.table(
        _wide(fewest, "fewest", levels, fewest_label.get, values),
        f"**If you called now**, in {players}-player games, by the fewest cards any opponent "
        f"holds: share of decision points (95% intervals, n = decision points; rules: "
        f"{options.label}).",
    )
    section.table(
        _wide(fewest_called, "fewest", levels, fewest_label.get, values),
        f"**When players did call**, in {players}-player games, by the fewest cards any "
        f"opponent holds: share of calls Assafed (95% intervals, n = calls made; rules: "
        f"{options.label}).",
    )
    live = decisions.filter(regex=r"^opp\d+_cards$").to_numpy() >= 0
    capped = np.minimum(decisions["fewest_opponent_cards"], advice_tables.FEWEST_CAP)
    cells = assaf_risk(decisions.assign(fewest=capped, opponents=live.sum(axis=1)),
                       ["players", "opponents", "hand_value", "fewest", "band"])  # fmt: skip
    section.attach("assaf-risk.csv", advice_tables.table_csv("assaf-risk.csv", cells))
    section.attach(advice_tables.META_FILE, advice_tables.meta_json(
        options.rules, options.policy, options.seed, options.budget(*options.DECISION_GAMES),
        options.players))  # fmt: skip
    low_f, high_f = int(cells["fewest"].min()), int(cells["fewest"].max())
    section.text(
        "The risk if you called now for every table size, number of opponents still in, "
        f"hand value, fewest opponent cards ({low_f} to {high_f} in these games) and turn "
        "band is in [`assaf-risk.csv`](assaf-risk.csv) beside this report; "
        "`yaniv-sim advise` reads it."
    )
    section.text(_takeaway(section, merged, called, sub, players))
    return section


def contrast(sub: pd.DataFrame) -> pd.DataFrame:
    """Assaf with an opponent on one card against every opponent on 3+, both ways.

    One row per group (``one card``, ``3+ cards``): ``n`` and ``risk`` over
    the decision points (if you called now), ``calls`` and ``called_risk``
    over the calls made (when players did call), with Wilson intervals.
    """
    group = np.where(sub["fewest_opponent_cards"] == 1, "one card",
                     np.where(sub["fewest_opponent_cards"] >= 3, "3+ cards", ""))  # fmt: skip
    sub = sub.assign(group=group)
    sub = sub[sub["group"] != ""]
    now = assaf_risk(sub, ["group"])
    did = called_assaf_rate(sub, ["group"])[["group", "n", "risk", "low", "high"]]
    out = now.merge(did, on="group", how="left", suffixes=("", "_called"))
    out = out.rename(columns={"n_called": "calls", "risk_called": "called_risk"})
    order = {"one card": 0, "3+ cards": 1}
    return out.sort_values("group", key=lambda g: g.map(order), ignore_index=True)


def _points(value) -> str:
    value = int(value)
    return f"{value} point" + ("" if value == 1 else "s")


def _takeaway(section: Section, merged, called, sub, players: int) -> str:
    worst = merged.loc[(merged["risk"] - merged["naive"]).idxmax()]
    did = called[(called["players"] == worst.players) & (called["hand_value"] == worst.hand_value)]
    text = (
        f"Takeaway: in {int(worst.players)}-player games with {_points(worst.hand_value)} "
        f"in hand, **if you called now**, at an average decision point, real opponents would "
        f"Assaf you {worst.risk:.1%} of the time (95% interval {worst.low:.1%}–"
        f"{worst.high:.1%}, {int(worst.n):,} decision points) where random cards would give "
        f"{worst.naive:.1%}: the largest gap in the table."
    )
    if len(did):
        r = did.iloc[0]
        text += (
            f" **When players did call** with {_points(worst.hand_value)} there, "
            f"{r.risk:.1%} of their calls were Assafed ({r.low:.1%}–{r.high:.1%}, "
            f"{int(r.n):,} calls)"
            + (": the calls made are far safer than an average decision point, because the "
               "policy picks its moments." if r.high < worst.low
               else ": here the calls made are no safer than an average decision point.")
        )  # fmt: skip
    groups = contrast(sub)
    section.data["contrast"] = groups
    if len(groups) == 2:
        one, many = groups.iloc[0], groups.iloc[1]

        def did_call(row) -> str:
            if not row.calls >= 1:
                return "no calls were made there"
            return (f"when players did call, {row.called_risk:.1%} of {int(row.calls):,} "
                    "calls were Assafed")  # fmt: skip

        text += (
            f" In {players}-player games the fewest cards in an opponent's hand matters most: "
            f"with an opponent down to one card, if you called now you would be Assafed "
            f"{one.risk:.1%} of the time ({int(one.n):,} decision points), and "
            f"{did_call(one)}; while every opponent holds three or more cards, "
            f"{many.risk:.1%} ({int(many.n):,} decision points), and {did_call(many)}."
        )
    return text
