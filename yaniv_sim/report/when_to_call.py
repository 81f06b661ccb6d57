"""Report section: when should I call Yaniv? A decision table from paired branches."""

from __future__ import annotations

import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.colors import ListedColormap

from yaniv_sim import advice_tables
from yaniv_sim.analysis.assaf_risk import BAND_NAMES
from yaniv_sim.analysis.decision_table import (
    corrections,
    decision_table,
    export_policy,
    rule_of_thumb,
    with_gains,
)
from yaniv_sim.compare import compare
from yaniv_sim.engine.specs import canonical_spec
from yaniv_sim.report.context import ReportOptions
from yaniv_sim.report.document import Section

TITLE = "When should I call Yaniv?"
FEWEST_SHOWN = 5  # the chart pools "5 or more cards"
PLAYBACK_DEALS = (1500, 150)
COLOURS = {"call": "#4c9f50", "wait": "#c8553d", "too close": "#d9d9d9", "too few": "#ffffff"}


def _signed(value, low, high) -> str:
    return f"{value:+.2f} ({low:+.2f} to {high:+.2f})"


def _signed_pct(value, low, high) -> str:
    return f"{value:+.2%} ({low:+.2%} to {high:+.2%})"


def _rate(value, low, high) -> str:
    return f"{value:.2%} ({low:.2%}–{high:.2%})"


def _cell(row) -> str:
    if row.verdict == "too few":
        return f"– (n={row.n})"
    return f"{row.verdict} {row.gain:+.1f} ±{(row.gain_high - row.gain_low) / 2:.1f}"


def _chart(pooled: pd.DataFrame, threshold: int):
    counts = sorted(pooled["opponents"].unique())
    fig, axes = plt.subplots(1, len(counts), figsize=(3.2 * len(counts) + 1, 4.2), sharey=True,
                             squeeze=False)  # fmt: skip
    order = list(COLOURS)
    cmap = ListedColormap([COLOURS[v] for v in order])
    for ax, k in zip(axes[0], counts, strict=True):
        part = pooled[pooled["opponents"] == k]
        grid = np.full((threshold + 1, FEWEST_SHOWN), order.index("too few"))
        for row in part.itertuples():
            if row.hand_value <= threshold:
                grid[row.hand_value, row.fewest - 1] = order.index(row.verdict)
        ax.imshow(grid, cmap=cmap, vmin=0, vmax=len(order) - 1, origin="lower", aspect="auto")
        for row in part.itertuples():
            if row.verdict != "too few" and row.hand_value <= threshold:
                ax.text(row.fewest - 1, row.hand_value, f"{row.gain:+.0f}", ha="center",
                        va="center", fontsize=7)  # fmt: skip
        ax.set_xticks(range(FEWEST_SHOWN),
                      [str(c) for c in range(1, FEWEST_SHOWN)] + [f"{FEWEST_SHOWN}+"])  # fmt: skip
        ax.set_xlabel("fewest cards an opponent holds")
        ax.set_title(f"{k} opponent{'s' if k > 1 else ''}")
        ax.set_yticks(range(threshold + 1))
    axes[0][0].set_ylabel("own hand value (points)")
    handles = [plt.Rectangle((0, 0), 1, 1, color=COLOURS[v], ec="k", lw=0.3) for v in order]
    fig.legend(handles, order, loc="lower center", ncol=4, frameon=False)
    fig.suptitle("Call or wait? Verdict by hand value and the opponents' cards")
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    return fig


def build(options: ReportOptions) -> Section:
    frames = []
    for players in options.players:
        dec = with_gains(options.decision_points(players)[0])
        frames.append(dec.assign(players=players))
    points = pd.concat(frames, ignore_index=True)
    threshold = options.rules.threshold
    games = options.budget(*options.DECISION_GAMES)
    played_on = int(points["win_gain"].notna().sum())
    section = Section(
        TITLE,
        options.setup(
            policy=f"{options.policy} at every seat",
            data=f"{games:,} games per table size, {len(points):,} decision points, "
            f"{played_on:,} of them played on to the game's end both ways",
        ),
    )
    section.text(
        "Each decision point was played **both ways on the same cards**: the player calls "
        "right then, or waits this turn and plays on as the policy would (calling later if "
        "it wants). The stock, every later draw and every later deal are the same in both "
        "branches, so the difference is the effect of the choice alone. The **gain of "
        "calling** is how many points better off the player ends the round relative to the "
        "table (own round score minus the opponents' mean, waiting minus calling); positive "
        "means call. The verdict is **call** or **wait** when the 95% interval of the gain "
        "excludes zero, **too close** to tell otherwise, and cells with fewer than 100 "
        "decision points get none. Each cell's interval is for that cell alone; with many "
        "cells, expect about one in twenty of the close ones to fall on the wrong side by "
        "chance."
    )
    pooled = decision_table(
        points.assign(fewest=points["fewest"].clip(upper=FEWEST_SHOWN)),
        by=("opponents", "hand_value", "fewest"),
    )
    section.text(
        "Rules of thumb read off the chart below (turn bands pooled; cells too close to "
        "tell or with too few decision points are left out):"
    )
    section.text("\n".join("- " + rule_of_thumb(pooled, int(k))
                           for k in sorted(pooled["opponents"].unique())))  # fmt: skip
    section.figure(
        _chart(pooled, threshold),
        "when-to-call",
        f"Verdicts (turn bands pooled) with the mean gain of calling in points; rules: "
        f"{options.label}; {len(points):,} decision points of {options.policy} self-play.",
    )
    for k in sorted(pooled["opponents"].unique()):
        part = pooled[pooled["opponents"] == k]
        wide = part.assign(cell=[_cell(r) for r in part.itertuples()]).pivot(
            index="hand_value", columns="fewest", values="cell"
        )
        wide.columns = [f"fewest {c}" if c < FEWEST_SHOWN else f"fewest {c}+" for c in wide]
        wide = wide.reset_index().rename(columns={"hand_value": "hand value"}).fillna("–")
        section.table(
            wide,
            f"{k + 1} players: verdict and gain of calling (points relative to the table, "
            f"± half the 95% interval) by hand value and the fewest cards an opponent holds. "
            f"Rules: {options.label}.",
        )
    by_value = decision_table(points, by=("opponents", "hand_value"), min_points=100)
    rows = []
    for r in by_value.itertuples():
        win = (
            f"{r.win_gain:+.1%} ({r.win_low:+.1%} to {r.win_high:+.1%}) n={r.win_n:,}"
            if r.win_n >= 2
            else "–"
        )
        rows.append({
            "players": r.opponents + 1,
            "hand value": r.hand_value,
            "decision points": r.n,
            "policy called": f"{r.called:.0%}",
            "gain of calling, points vs table": _signed(r.gain, r.gain_low, r.gain_high),
            "own round score saved": _signed(r.points_gain, r.points_low, r.points_high),
            "game win probability gained": win,
        })  # fmt: skip
    section.table(
        pd.DataFrame(rows),
        "Calling now against waiting, by hand value (all situations pooled): round points "
        "relative to the table, the player's own round score, and the chance of winning the "
        "game (from the games played on to the end both ways); 95% intervals.",
    )
    full = decision_table(points, by=("opponents", "hand_value", "fewest", "band"))
    full.insert(3, "turns", [BAND_NAMES[b] for b in full["band"]])
    section.attach("decision-table.csv", advice_tables.table_csv("decision-table.csv", full))
    section.text(
        "The full table, by number of opponents, hand value, fewest opponent cards and turn "
        "band (turns 0–9, 10–19, 20+ of the round), is in `decision-table.csv` beside this "
        "report."
    )
    # play the tables back as policies against the policy that produced the data
    deals = options.budget(*PLAYBACK_DEALS)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for players in options.players:
            mine = points[(points["players"] == players) & (points["opponents"] == players - 1)]
            tables = {
                "decision table": (f"call-table-{players}p.toml",
                                   full[full["opponents"] == players - 1]),
                "corrected policy": (f"corrected-{players}p.toml", corrections(mine)),
            }  # fmt: skip
            for kind, (name, cells) in tables.items():
                path = export_policy(cells, options.policy, Path(tmp) / name)
                section.attach(name, path.read_text(encoding="utf-8"))
                changed = int(cells["verdict"].isin(["call", "wait"]).sum())
                if changed == 0:
                    rows.append({"players": players,
                                 "played back": f"{kind} (`{name}`): no cell set, it plays "
                                                f"as {options.policy}",
                                 "deals": "–", "its win rate": "–", f"{options.policy}'s": "–",
                                 "difference": "–", "p (better)": "–",
                                 "mean round score": "–"})  # fmt: skip
                    continue
                options.say(f"{players} players: {kind} against {options.policy}, {deals:,} deals")
                result = compare([canonical_spec(str(path)), options.policy], options.rules,
                                 players, deals, options.seed, options.workers)  # fmt: skip
                pair = result.pairs.iloc[0]
                t = result.table
                rows.append({
                    "players": players,
                    "played back": f"{kind} (`{name}`, {changed} cells set)",
                    "deals": f"{deals:,}",
                    "its win rate": _rate(t.win_rate[0], t.win_low[0], t.win_high[0]),
                    f"{options.policy}'s": _rate(t.win_rate[1], t.win_low[1], t.win_high[1]),
                    "difference": _signed_pct(pair.difference, pair.low, pair.high),
                    "p (better)": f"{pair.p_value:.2g}",
                    "mean round score": (
                        f"{t.mean_round_score[0]:.2f} vs {t.mean_round_score[1]:.2f}"
                    ),
                })  # fmt: skip
    playback = pd.DataFrame(rows)
    section.text(
        f"**Playing the tables back.** Two policy files per table size are written beside "
        f"this report, each {options.policy} with its call table switched on, and each "
        f"played against {options.policy} itself in duplicate games (same deals, every "
        "seating):"
    )
    section.text(
        "- `call-table-<N>p.toml` forces the verdicts above: call in every *call* cell, "
        f"wait in every *wait* cell, {options.policy} decides elsewhere. A verdict pools "
        "every position of its cell, so forcing it also overrides the policy in the "
        "positions of that cell it judges differently (an opponent known to hold a joker, "
        "say); this can cost more than it gains.\n"
        "- `corrected-<N>p.toml` changes only the policy's clear mistakes: a cell is set to "
        "call when, among the positions where the policy waited, calling was better with "
        "95% confidence, and to wait when, among those where it called, waiting was. Those "
        "are exactly the positions the cell changes."
    )
    section.table(
        playback,
        "Game win rate of each played-back policy against the policy that produced the "
        "data (fair share 50%); difference with its 95% paired interval and the one-sided "
        f"p-value for 'better'. Rules: {options.label}.",
    )
    fixed = playback[playback["played back"].str.startswith("corrected")]
    fixed = fixed[fixed["difference"] != "–"]
    if len(fixed):
        section.text(
            "Takeaway: correcting the policy's clear calling mistakes changes its win rate "
            "against itself by "
            + "; ".join(f"{r.difference} at {r.players} players" for r in fixed.itertuples())
            + "."
        )
    return section
