"""Report section: how likely an Assaf is, by hand value, from every decision point."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from yaniv_sim import advice_tables
from yaniv_sim.analysis.assaf_risk import BAND_NAMES, assaf_risk, naive_assaf_risk, turn_band
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


def build(options: ReportOptions) -> Section:
    decisions, naive = risk_frames(options)
    threshold = options.rules.threshold
    games = options.budget(*options.DECISION_GAMES)
    section = Section(
        TITLE,
        options.setup(
            policy=f"{options.policy} at every seat",
            data=f"{games:,} games per table size, {len(decisions):,} decision points",
        ),
    )
    section.text(
        "A **decision point** is any turn start at which a player may call Yaniv (hand "
        f"worth {threshold} or less), whether they called or not. The **Assaf risk** is "
        "the share of decision points at which some opponent held the same value or "
        "less, so that calling right then would have been met by an Assaf. The "
        "**naive** column is the exact chance of the same thing if the opponents' cards "
        "were dealt at random from a full deck (same card counts): real opponents keep "
        "low cards and take them from the pile, so the gap shows how much that matters."
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
    by_value = assaf_risk(decisions, ["players", "hand_value"])
    keys = ["players", "hand_value"]
    merged = by_value.merge(naive[[*keys, "naive"]], on=keys)
    # the table: hand value down, one column per table size
    wide = pd.DataFrame({"hand value": sorted(by_value["hand_value"].unique())})
    for players in options.players:
        part = merged[merged["players"] == players].set_index("hand_value")
        col = []
        for v in wide["hand value"]:
            if v in part.index:
                r = part.loc[v]
                col.append(f"{_pct(r.risk, r.low, r.high)} n={int(r.n):,}; naive {r.naive:.1%}")
            else:
                col.append("–")
        wide[f"{players} players"] = col
    section.table(
        wide,
        f"Assaf risk at each hand value (95% Wilson interval, n = decision points) and the "
        f"naive random-card odds. Rules: {options.label}; {options.policy} self-play.",
    )
    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    for i, players in enumerate(options.players):
        part = merged[merged["players"] == players]
        colour = f"C{i}"
        ax.errorbar(part["hand_value"], 100 * part["risk"],
                    yerr=_yerr(part),
                    marker="o", capsize=3, color=colour, label=f"{players} players")  # fmt: skip
        ax.plot(part["hand_value"], 100 * part["naive"], ls="--", color=colour, alpha=0.6)
    ax.set_xlabel("own hand value when the chance to call comes (points)")
    ax.set_ylabel("Assaf risk (% of decision points)")
    ax.set_title("How often calling would be met by an Assaf")
    ax.legend(title="solid: simulated; dashed: random cards", fontsize=8)
    ax.grid(alpha=0.3)
    section.figure(
        fig,
        "assaf-risk-by-value",
        f"Assaf risk by hand value with 95% intervals ({len(decisions):,} decision points; "
        f"rules: {options.label}). Dashed: exact odds if opponents held random cards.",
    )
    # breakdowns at the most common table size of the report: the middle one
    players = options.players[len(options.players) // 2]
    sub = decisions[decisions["players"] == players]
    fewest = assaf_risk(sub.assign(fewest=np.minimum(sub["fewest_opponent_cards"], 5)),
                        ["hand_value", "fewest"])  # fmt: skip
    bands = assaf_risk(sub, ["hand_value", "band"])
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.3), sharey=True)
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
        ax.legend(title=what, fontsize=8)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("Assaf risk (% of decision points)")
    fig.suptitle(f"Assaf risk at {players} players, broken down")
    section.figure(
        fig,
        "assaf-risk-breakdown",
        f"Assaf risk at {players} players by the fewest cards an opponent holds and by "
        f"turn band, 95% intervals; cells with under 30 decision points left out "
        f"({len(sub):,} decision points; rules: {options.label}).",
    )
    table = fewest.pivot(index="hand_value", columns="fewest", values="risk")
    n = fewest.pivot(index="hand_value", columns="fewest", values="n")
    low = fewest.pivot(index="hand_value", columns="fewest", values="low")
    high = fewest.pivot(index="hand_value", columns="fewest", values="high")
    rows = []
    for v in table.index:
        row = {"hand value": int(v)}
        for c in table.columns:
            label = f"fewest {c}" if c < 5 else "fewest 5+"
            row[label] = (
                "–" if pd.isna(table.loc[v, c])
                else _pct(table.loc[v, c], low.loc[v, c], high.loc[v, c])
                + f" n={int(n.loc[v, c]):,}"
            )  # fmt: skip
        rows.append(row)
    section.table(
        pd.DataFrame(rows),
        f"Assaf risk at {players} players by the fewest cards any opponent holds "
        f"(95% intervals; rules: {options.label}).",
    )
    live = decisions.filter(regex=r"^opp\d+_cards$").to_numpy() >= 0
    capped = np.minimum(decisions["fewest_opponent_cards"], advice_tables.FEWEST_CAP)
    cells = assaf_risk(decisions.assign(fewest=capped, opponents=live.sum(axis=1)),
                       ["players", "opponents", "hand_value", "fewest", "band"])  # fmt: skip
    section.attach("assaf-risk.csv", advice_tables.table_csv("assaf-risk.csv", cells))
    section.attach(advice_tables.META_FILE, advice_tables.meta_json(
        options.rules, options.policy, options.seed, options.budget(*options.DECISION_GAMES),
        options.players))  # fmt: skip
    section.text(
        "The risk for every table size, number of opponents still in, hand value, fewest "
        "opponent cards (1 to 7) and turn band is in `assaf-risk.csv` beside this report; "
        "`yaniv-sim advise` reads it."
    )
    worst = merged.loc[(merged["risk"] - merged["naive"]).idxmax()]
    one = sub[sub["fewest_opponent_cards"] == 1]
    many = sub[sub["fewest_opponent_cards"] >= 3]
    contrast = ""
    if len(one) and len(many):
        r1 = (one["lowest_opponent"] <= one["hand_value"]).mean()
        r3 = (many["lowest_opponent"] <= many["hand_value"]).mean()
        contrast = (
            f" At {players} players the fewest cards in an opponent's hand matters most: "
            f"with an opponent down to one card a call is Assafed {r1:.0%} of the time "
            f"({len(one):,} decision points), against {r3:.0%} while every opponent holds "
            f"three or more ({len(many):,})."
        )
    section.text(
        f"Takeaway: at {int(worst.players)} players with {int(worst.hand_value)} points in "
        f"hand, real opponents Assaf a call {worst.risk:.0%} of the time "
        f"(95% interval {worst.low:.0%}–{worst.high:.0%}) where random cards would "
        f"give {worst.naive:.0%}: the largest gap in the table." + contrast
    )
    return section
