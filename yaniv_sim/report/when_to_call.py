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
from yaniv_sim.engine.specs import FAMILIES, TABLE_CARDS, canonical_spec
from yaniv_sim.report.context import ReportOptions
from yaniv_sim.report.document import Section

TITLE = "When should I call Yaniv?"
FEWEST_SHOWN = 5  # the chart pools "5 or more cards"
PLAYBACK_DEALS = (1500, 150)
DEPENDS = "depends on turn"  # the turn bands of a cell disagree: no pooled verdict
COLOURS = {"call": "#4c9f50", "wait": "#c8553d", DEPENDS: "#e0b040", "too close": "#d9d9d9",
           "too few": "#ffffff"}  # fmt: skip
CLEAR = ("call", "wait")


def _signed(value, low, high) -> str:
    return f"{value:+.2f} ({low:+.2f} to {high:+.2f})"


def _pp(value, low, high) -> str:
    """A difference of two shares in percentage points, with its interval."""
    return f"{100 * value:+.1f} ({100 * low:+.1f} to {100 * high:+.1f})"


def _rate(value, low, high) -> str:
    return f"{value:.1%} ({low:.1%}–{high:.1%})"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _opponents(k: int) -> str:
    return f"{_plural(int(k), 'opponent')} still in"


def takes_call_table(policy: str) -> bool:
    """Whether ``policy`` (a spec or policy file) has a call table that can be set."""
    name = canonical_spec(policy).partition(":")[0]
    return "table" in FAMILIES.get(name, (0, {}))[1]


def disagreeing(pooled: pd.DataFrame, parts: pd.DataFrame, keys: list[str]) -> np.ndarray:
    """For each row of ``pooled``: do its parts disagree in sign (Simpson's warning)?

    ``parts`` splits each pooled cell further (by turn band, say). The parts
    disagree when one part has a clear *call* verdict and another a clear
    *wait*, or when the pooled verdict is clear and a part clearly goes the
    other way. A pooled verdict is then no rule: it follows from how often
    each part arises.
    """
    clear = parts[parts["verdict"].isin(CLEAR)]
    calls = clear[clear["verdict"] == "call"].groupby(keys).size().rename("_calls")
    waits = clear[clear["verdict"] == "wait"].groupby(keys).size().rename("_waits")
    both = pooled[keys].merge(calls, left_on=keys, right_index=True, how="left")
    both = both.merge(waits, left_on=keys, right_index=True, how="left").fillna(0)
    has_call, has_wait = both["_calls"].to_numpy() > 0, both["_waits"].to_numpy() > 0
    verdict = pooled["verdict"].to_numpy()
    return (
        (has_call & has_wait) | ((verdict == "call") & has_wait) | ((verdict == "wait") & has_call)
    )


def rule_cells(chart: pd.DataFrame, by_value: pd.DataFrame) -> pd.DataFrame:
    """The cells the rules of thumb are read from, and that are played back.

    ``chart`` has one row per (opponents, hand value, fewest) with turn bands
    pooled and ``verdict`` set to :data:`DEPENDS` where the bands disagree;
    ``by_value`` one per (opponents, hand value). A hand value whose cells all
    lack a clear verdict (hand value 0 is rare at every count of opponent
    cards) takes the verdict of its whole row, when that has one and its parts
    agree. Returns ``opponents, hand_value, fewest, verdict``.
    """
    cells = chart[["opponents", "hand_value", "fewest", "verdict"]].copy()
    clear_rows = cells[cells["verdict"].isin(CLEAR)].groupby(["opponents", "hand_value"]).size()
    fill = []
    for row in by_value[by_value["verdict"].isin(CLEAR)].itertuples():
        if (row.opponents, row.hand_value) in clear_rows.index:
            continue
        fill += [{"opponents": row.opponents, "hand_value": row.hand_value, "fewest": f,
                  "verdict": row.verdict} for f in range(1, FEWEST_SHOWN + 1)]  # fmt: skip
    if fill:
        keys = ["opponents", "hand_value", "fewest"]
        filled = pd.DataFrame(fill)
        cells = cells.merge(filled[keys], on=keys, how="left", indicator=True)
        cells = cells[cells["_merge"] == "left_only"].drop(columns="_merge")
        cells = pd.concat([cells, filled], ignore_index=True)
    return cells.sort_values(["opponents", "hand_value", "fewest"], ignore_index=True)


def policy_cells(rules: pd.DataFrame) -> pd.DataFrame:
    """The rule cells as call-table cells: the same in every turn band, "5+" as 5 to 7."""
    rows = []
    for r in rules[rules["verdict"].isin(CLEAR)].itertuples():
        top = TABLE_CARDS if r.fewest >= FEWEST_SHOWN else r.fewest
        for fewest in range(r.fewest, top + 1):
            for band in range(len(BAND_NAMES)):
                rows.append({"hand_value": r.hand_value, "fewest": fewest, "band": band,
                             "verdict": r.verdict})  # fmt: skip
    return pd.DataFrame(rows, columns=["hand_value", "fewest", "band", "verdict"])


def _cell(row) -> str:
    if row.verdict == "too few":
        return f"– (n={int(row.n)})"
    return f"{row.verdict} {row.gain:+.1f} ±{(row.gain_high - row.gain_low) / 2:.1f}"


def _chart(pooled: pd.DataFrame, threshold: int):
    counts = sorted(pooled["opponents"].unique())
    columns = min(2, len(counts))
    rows = -(-len(counts) // columns)
    fig, axes = plt.subplots(rows, columns, figsize=(8.5, 3.9 * rows + 0.6), sharey=True,
                             squeeze=False)  # fmt: skip
    order = list(COLOURS)
    cmap = ListedColormap([COLOURS[v] for v in order])
    for ax in axes.flat[len(counts) :]:
        ax.set_visible(False)
    for ax, k in zip(axes.flat, counts, strict=False):
        part = pooled[pooled["opponents"] == k]
        grid = np.full((threshold + 1, FEWEST_SHOWN), order.index("too few"))
        for row in part.itertuples():
            if row.hand_value <= threshold:
                grid[row.hand_value, row.fewest - 1] = order.index(row.verdict)
        ax.imshow(grid, cmap=cmap, vmin=0, vmax=len(order) - 1, origin="lower", aspect="auto")
        for row in part.itertuples():
            if row.verdict != "too few" and row.hand_value <= threshold:
                ax.text(row.fewest - 1, row.hand_value, f"{row.gain:+.0f}", ha="center",
                        va="center", fontsize=10)  # fmt: skip
        ax.set_xticks(range(FEWEST_SHOWN),
                      [str(c) for c in range(1, FEWEST_SHOWN)] + [f"{FEWEST_SHOWN}+"])  # fmt: skip
        ax.set_xlabel("fewest cards an opponent holds")
        ax.set_title(_opponents(k))
        ax.set_yticks(range(threshold + 1))
    for ax in axes[:, 0]:
        ax.set_ylabel("own hand value (points)")
    handles = [plt.Rectangle((0, 0), 1, 1, color=COLOURS[v], ec="k", lw=0.3) for v in order]
    fig.legend(handles, order, loc="lower center", ncol=len(order), frameon=False)
    fig.suptitle("Call or wait? Verdict and gain of calling (points) by hand value\n"
                 "and the opponents' cards")  # fmt: skip
    fig.tight_layout(rect=(0, 0.05, 1, 1))
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
        "means call. The decision points of one game are not independent (the same hands, "
        "the same totals), so every interval is **clustered by game**: a game's points "
        "count as one observation's worth of evidence. The verdict is **call** or **wait** "
        "when the gain is clearly above or below zero, **too close** to tell otherwise, "
        'and cells with fewer than 100 decision points get none. "Clearly" is a '
        "one-sided test per cell, all the tests of a table controlled together at a "
        "**false-discovery rate of 5%** (Benjamini-Hochberg): of the call and wait "
        "verdicts a table shows, about one in twenty or fewer is expected to be wrong by "
        "chance. The 95% intervals shown are each cell's own, so a few cells whose "
        "interval excludes zero still read too close."
    )
    section.text(
        "This section groups decision points by the **opponents still in** the round at "
        "that moment (a 4-player game with one player knocked out counts as 2 opponents "
        "still in), because that is what a player sees. Where the turn bands of a cell "
        f"(turns 0–9, 10–19, 20+ of the round) disagree, one calling and another waiting, "
        f"the cell gets no pooled verdict but **{DEPENDS}**: pooling would only say which "
        "band is more common (Simpson's paradox); `decision-table.csv` has the bands."
    )
    shown = points.assign(fewest=points["fewest"].clip(upper=FEWEST_SHOWN))
    pooled = decision_table(shown, by=("opponents", "hand_value", "fewest"))
    by_band = decision_table(shown, by=("opponents", "hand_value", "fewest", "band"))
    keys = ["opponents", "hand_value", "fewest"]
    split = disagreeing(pooled, by_band, keys)
    pooled["turn_bands_disagree"] = split
    pooled["verdict"] = np.where(split, DEPENDS, pooled["verdict"])
    by_value = decision_table(points, by=("opponents", "hand_value"), min_points=100)
    row_keys = ["opponents", "hand_value"]
    by_value_band = decision_table(points, by=("opponents", "hand_value", "band"))
    by_value["cards_disagree"] = disagreeing(by_value, pooled, row_keys)
    by_value["turn_bands_disagree"] = disagreeing(by_value, by_value_band, row_keys)
    by_value["pooled_verdict"] = by_value["verdict"]
    by_value["verdict"] = np.where(
        by_value["cards_disagree"], "depends on opponents' cards",
        np.where(by_value["turn_bands_disagree"], DEPENDS, by_value["verdict"]))  # fmt: skip
    rules = rule_cells(pooled, by_value)
    section.data.update(chart=pooled, by_value=by_value, rules=rules)
    counts = sorted(pooled["opponents"].unique())
    section.text(
        "**Rules of thumb**, read off the chart below (turn bands pooled where they agree; "
        "cells too close to tell, with too few decision points or where the turn decides "
        "are left out; a hand value with no clear cell takes the verdict of its whole row "
        "when that has one). These are the rules played back below."
    )
    thumbs = [rule_of_thumb(rules, int(k)).replace(f"With {_plural(int(k), 'opponent')}:",
                                                   f"With {_opponents(k)}:")
              for k in counts]  # fmt: skip
    section.text("\n".join("- " + line for line in thumbs))
    section.figure(
        _chart(pooled, threshold),
        "when-to-call",
        f"Verdicts (turn bands pooled where they agree) with the mean gain of calling in "
        f"points, by opponents still in; rules: {options.label}; {len(points):,} decision "
        f"points of {options.policy} self-play.",
    )
    for k in counts:
        part = pooled[pooled["opponents"] == k]
        wide = part.assign(cell=[_cell(r) for r in part.itertuples()]).pivot(
            index="hand_value", columns="fewest", values="cell"
        )
        wide.columns = [f"fewest {c}" if c < FEWEST_SHOWN else f"fewest {c}+" for c in wide]
        wide = wide.reset_index().rename(columns={"hand_value": "hand value"}).fillna("–")
        row = by_value[by_value["opponents"] == k].set_index("hand_value")
        wide["any cards"] = [_cell(row.loc[v]) if v in row.index else "–"
                             for v in wide["hand value"]]  # fmt: skip
        section.table(
            wide,
            f"{_opponents(k).capitalize()}: verdict and gain of calling (points relative to "
            f"the table, ± half the 95% interval) by hand value and the fewest cards an "
            f"opponent holds; 'any cards': the whole row, with a verdict only where its "
            f"parts agree. Rules: {options.label}.",
        )
    rows = []
    for r in by_value.itertuples():
        win = (
            f"{r.win_gain:+.1%} ({r.win_low:+.1%} to {r.win_high:+.1%}) n={r.win_n:,}"
            if r.win_n >= 2
            else "–"
        )
        rows.append({
            "opponents still in": r.opponents,
            "hand value": r.hand_value,
            "decision points": r.n,
            "policy called": f"{r.called:.0%}",
            "verdict": r.verdict,
            "gain of calling, points vs table": _signed(r.gain, r.gain_low, r.gain_high),
            "own round score saved": _signed(r.points_gain, r.points_low, r.points_high),
            "game win probability gained": win,
        })  # fmt: skip
    mixed = int((by_value["verdict"] != by_value["pooled_verdict"]).sum())
    section.table(
        pd.DataFrame(rows),
        "Calling now against waiting, by hand value, averaged over the situations as they "
        "arise: round points relative to the table, the player's own round score, and the "
        "chance of winning the game (from the games played on to the end both ways); 95% "
        "intervals. The verdict is the row's only where its parts agree: 'depends on "
        "opponents' cards' where the cells of the chart disagree in sign, 'depends on turn' "
        f"where the turn bands do ({_plural(mixed, 'row')} here); then the average mixes "
        "opposite answers and is no rule.",
    )
    full = decision_table(points, by=("opponents", "hand_value", "fewest", "band"))
    full.insert(3, "turns", [BAND_NAMES[b] for b in full["band"]])
    section.attach("decision-table.csv", advice_tables.table_csv("decision-table.csv", full))
    section.text(
        "The full table, by number of opponents still in, hand value, fewest opponent cards "
        "and turn band (turns 0–9, 10–19, 20+ of the round), is in "
        "[`decision-table.csv`](decision-table.csv) beside this report."
    )
    _playback(options, section, points, rules)
    return section


def _playback(options: ReportOptions, section: Section, points, rules) -> None:
    """Play the rules of thumb and the corrected policy back against the policy."""
    if not takes_call_table(options.policy):
        section.text(
            f"**Playing the rules back** needs a policy with a call table (the heuristic "
            f"family: `heuristic` and its presets such as `best`); `{options.policy}` has "
            "none, so the rules of thumb above are not played back here. Run the report with "
            "`--policy best` for that check."
        )
        return
    spec = canonical_spec(options.policy)
    deals = options.budget(*PLAYBACK_DEALS)
    rows, data = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for players in options.players:
            k = players - 1
            mine = points[(points["players"] == players) & (points["opponents"] == k)]
            tables = {
                "rules of thumb": (f"call-table-{players}p.toml",
                                   policy_cells(rules[rules["opponents"] == k])),
                "corrected policy": (f"corrected-{players}p.toml", corrections(mine)),
            }  # fmt: skip
            for kind, (name, cells) in tables.items():
                path = export_policy(cells, spec, Path(tmp) / name)
                section.attach(name, path.read_text(encoding="utf-8"))
                changed = int(cells["verdict"].isin(CLEAR).sum())
                base = {"players": players, "kind": kind, "file": name, "cells": changed}
                if changed == 0:
                    data.append(base)
                    rows.append({"game": f"{players}-player",
                                 "played back": f"{kind}, [`{name}`]({name}): no cell set, "
                                                f"it plays as {options.policy}",
                                 "deals": "–", "its win share": "–",
                                 f"{options.policy}'s": "–", "difference, pp": "–",
                                 "p (better)": "–", "mean round score": "–"})  # fmt: skip
                    continue
                options.say(f"{players} players: {kind} against {options.policy}, {deals:,} deals")
                result = compare([canonical_spec(str(path)), spec], options.rules,
                                 players, deals, options.seed, options.workers)  # fmt: skip
                pair = result.pairs.iloc[0]
                t = result.table
                data.append({**base, "deals": result.games,
                             "share": t.win_rate[0], "share_low": t.win_low[0],
                             "share_high": t.win_high[0], "difference": pair.difference,
                             "low": pair.low, "high": pair.high, "p": pair.p_value,
                             "score": t.mean_round_score[0],
                             "score_policy": t.mean_round_score[1]})  # fmt: skip
                rows.append({
                    "game": f"{players}-player",
                    "played back": f"{kind}, [`{name}`]({name}): "
                                   f"{_plural(changed, 'cell')} set",
                    "deals": f"{result.games:,}",
                    "its win share": _rate(t.win_rate[0], t.win_low[0], t.win_high[0]),
                    f"{options.policy}'s": _rate(t.win_rate[1], t.win_low[1], t.win_high[1]),
                    "difference, pp": _pp(pair.difference, pair.low, pair.high),
                    "p (better)": f"{pair.p_value:.2g}",
                    "mean round score": (
                        f"{t.mean_round_score[0]:.2f} vs {t.mean_round_score[1]:.2f}"
                    ),
                })  # fmt: skip
    playback = pd.DataFrame(data)
    section.data["playback"] = playback
    section.text(
        f"**Playing the rules back.** Two policy files per table size are written beside "
        f"this report, each {options.policy} with its call table switched on, and each "
        f"played against {options.policy} itself in duplicate games (same deals, every "
        "seating), starting with every seat in:"
    )
    section.text(
        "- `call-table-<N>p.toml` plays the rules of thumb for N − 1 opponents still in: "
        "call in every *call* cell of the chart, wait in every *wait* cell, in every turn "
        f"band; {options.policy} decides elsewhere. A verdict pools every position of its "
        "cell, so forcing it also overrides the policy in the positions of that cell it "
        "judges differently (an opponent known to hold a joker, say); this can cost more "
        "than it gains.\n"
        "- `corrected-<N>p.toml` changes only the policy's clear mistakes: a cell is set to "
        "call when, among the positions where the policy waited, calling was better with "
        "95% confidence, and to wait when, among those where it called, waiting was. Those "
        "are exactly the positions the cell changes."
    )
    section.table(
        pd.DataFrame(rows),
        "Game win share of each played-back policy against the policy that produced the "
        "data (fair share 50%), with 95% intervals over the deals (paired: each deal's "
        "share averaged over its seatings); the difference of the two shares in percentage "
        "points (pp) with its 95% paired interval and the one-sided p-value for 'better'. "
        f"Rules: {options.label}.",
    )
    section.text(_playback_takeaway(playback, options.policy))


def _playback_takeaway(playback: pd.DataFrame, policy: str) -> str:
    played = playback[playback["cells"] > 0] if len(playback) else playback
    if not len(played) or "difference" not in played:
        return f"Takeaway: no cell was set at any table size, so every file plays as {policy}."
    parts = []
    for kind in ("rules of thumb", "corrected policy"):
        mine = played[played["kind"] == kind]
        if not len(mine):
            continue
        said = []
        for r in mine.itertuples():
            verdict = ("a clear loss" if r.high < 0 else "a clear gain" if r.low > 0
                       else "not separable from chance")  # fmt: skip
            said.append(f"{_pp(r.difference, r.low, r.high)[:-1]}, {verdict}) in "
                        f"{r.players}-player games")  # fmt: skip
        parts.append(f"playing the {kind} back against {policy}, its win share minus "
                     f"{policy}'s is (percentage points) " + "; ".join(said))  # fmt: skip
    return "Takeaway: " + "; and ".join(parts) + "."
