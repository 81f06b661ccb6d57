"""Section: a league of every named policy.

Every pair of policies (``max-shed`` and each preset) plays a duplicate match
at one table size; a policy's league score is its mean win share over its
matches, and its record counts the matches it clearly won or lost (95%
interval of the win-share difference clear of zero).
"""

from __future__ import annotations

import itertools
import math

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from yaniv_sim.compare import compare, seatings
from yaniv_sim.engine.specs import PRESETS
from yaniv_sim.report.context import ReportOptions
from yaniv_sim.report.document import Section

__all__ = ["build", "league_policies", "standings", "table_players"]

Z = 1.959963984540054  # two-sided 95%, as compare's intervals
SMALL_RUN = 4000  # games below which one process is quicker than a pool


def league_policies() -> list[str]:
    """``max-shed`` and every named preset of the heuristic family."""
    return ["max-shed", *PRESETS]


def table_players(options: ReportOptions) -> int:
    """Seats at the table: 4, or the largest player count asked for when that is smaller."""
    return min(4, max(options.players))


def standings(matches: pd.DataFrame, policies: list[str]) -> pd.DataFrame:
    """League table from one row per match (a, b, win_a, win_b, difference, low, high).

    A policy's mean win share averages its win share over its matches; the
    matches are played on separate seeds, so their errors are independent
    and the interval adds their variances.
    """
    rows = []
    for name in policies:
        shares, variances, won, lost, level = [], [], 0, 0, 0
        for m in matches.itertuples():
            if name not in (m.a, m.b):
                continue
            sign = 1 if name == m.a else -1
            shares.append(m.win_a if sign == 1 else m.win_b)
            # each deal's shares add up to one, so a share varies a quarter as much
            variances.append(((m.high - m.low) / (2 * Z)) ** 2 / 4)
            low, high = sorted((sign * m.low, sign * m.high))
            if low > 0:
                won += 1
            elif high < 0:
                lost += 1
            else:
                level += 1
        mean = float(np.mean(shares))
        se = math.sqrt(sum(variances)) / len(shares)
        rows.append(
            {
                "policy": name,
                "matches": len(shares),
                "share": mean,
                "low": max(0.0, mean - Z * se),
                "high": min(1.0, mean + Z * se),
                "won": won,
                "lost": lost,
                "level": level,
            }
        )
    table = pd.DataFrame(rows).sort_values("share", ascending=False, kind="stable")
    table.insert(0, "rank", np.arange(1, len(table) + 1))
    return table.reset_index(drop=True)


def build(options: ReportOptions) -> Section:
    players = table_players(options)
    n_deals = options.budget(1000, 150)
    policies = league_policies()
    pairs = list(itertools.combinations(policies, 2))
    replays = len(seatings(players, 2))
    workers = 1 if n_deals * replays < SMALL_RUN else options.workers
    section = Section(
        "Policy league",
        options.setup(
            policies=", ".join(policies),
            players=str(players),
            format=f"round robin of {len(pairs)} duplicate matches, {n_deals:,} deals each, "
            f"every deal played in {'both' if replays == 2 else f'all {replays}'} seatings",
            seeds=f"match i (in the order of the match table) uses seed {options.seed} + i",
        ),
    )
    rows = []
    for i, (a, b) in enumerate(pairs):
        if i % 9 == 0:
            options.say(f"league: match {i + 1} of {len(pairs)}")
        result = compare([a, b], options.rules, players, n_deals, options.seed + i, workers)
        pair = result.pairs.iloc[0]
        rows.append(
            {
                "a": a,
                "b": b,
                "deals": result.games,
                "seed": options.seed + i,
                "win_a": float(result.table.win_rate.iloc[0]),
                "win_b": float(result.table.win_rate.iloc[1]),
                "difference": float(pair.difference),
                "low": float(pair.low),
                "high": float(pair.high),
            }
        )
    matches = pd.DataFrame(rows)
    table = standings(matches, policies)
    section.data.update(matches=matches, standings=table)

    section.text(_takeaway(table, matches, players))
    section.table(
        pd.DataFrame(
            {
                "rank": table["rank"],
                "policy": table["policy"],
                "mean win share (95%)": [
                    f"{100 * r.share:.1f}% ({100 * r.low:.1f}–{100 * r.high:.1f})"
                    for r in table.itertuples()
                ],
                "matches × deals": [f"{r.matches} × {n_deals:,}" for r in table.itertuples()],
                "clear wins–losses–level": [
                    f"{r.won}–{r.lost}–{r.level}" for r in table.itertuples()
                ],
            }
        ),
        f"League at {players} players under {options.label}: each policy's win share "
        f"averaged over its {len(policies) - 1} matches (fair share 50%), with a 95% "
        f"interval; a match counts as a clear win or loss when the 95% interval of the "
        f"win-share difference over its {n_deals:,} duplicate deals excludes zero, "
        "otherwise as level.",
    )
    section.table(
        _matrix(matches, list(table["policy"])),
        f"Head to head: the row policy's win share against the column policy, in percent, "
        f"± the half-width of its 95% interval ({n_deals:,} duplicate deals per match, "
        f"{players} players, {options.label}). ▲ a clear win, ▼ a clear loss (95% interval "
        "of the difference clear of zero).",
    )
    section.figure(
        _figure(table, players),
        "league-win-share",
        f"Mean win share of each policy over its {len(policies) - 1} duplicate matches "
        f"({n_deals:,} deals per match, {players} players, rules {options.label}); error bars "
        "are 95% intervals; the dotted line is the fair share.",
    )
    return section


def _matrix(matches: pd.DataFrame, order: list[str]) -> pd.DataFrame:
    cells = {name: dict.fromkeys(order, "–") for name in order}
    for m in matches.itertuples():
        half = 100 * (m.high - m.low) / 4  # half-width of a share's interval
        for row, col, share, sign in ((m.a, m.b, m.win_a, 1), (m.b, m.a, m.win_b, -1)):
            text = f"{100 * share:.0f} ±{half:.0f}"
            low, high = sorted((sign * m.low, sign * m.high))
            if low > 0:
                text += " ▲"
            elif high < 0:
                text += " ▼"
            cells[row][col] = text
    frame = pd.DataFrame({"policy": order})
    for col in order:
        frame[col] = [cells[row][col] for row in order]
    return frame


def _figure(table: pd.DataFrame, players: int):
    fig, ax = plt.subplots(figsize=(8, 0.4 * len(table) + 1.4))
    y = np.arange(len(table))[::-1]
    share = table["share"].to_numpy() * 100
    ax.errorbar(
        share,
        y,
        xerr=[share - table["low"].to_numpy() * 100, table["high"].to_numpy() * 100 - share],
        fmt="o",
        capsize=3,
    )
    ax.axvline(50, color="grey", lw=0.8, ls=":")
    ax.set_yticks(y)
    ax.set_yticklabels(table["policy"])
    ax.set_xlabel("mean win share over head-to-head matches (%)")
    ax.set_title(f"Policy league at {players} players: who wins head to head")
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    return fig


def _takeaway(table: pd.DataFrame, matches: pd.DataFrame, players: int) -> str:
    top, second, last = table.iloc[0], table.iloc[1], table.iloc[-1]
    n = int(top["matches"])
    lines = [
        f"At {players} players **{top['policy']}** tops the league with a mean win share of "
        f"{100 * top['share']:.1f}%, clearly beating {int(top['won'])} of its {n} opponents "
        f"head to head."
    ]
    head = matches[
        ((matches.a == top["policy"]) & (matches.b == second["policy"]))
        | ((matches.b == top["policy"]) & (matches.a == second["policy"]))
    ].iloc[0]
    sign = 1 if head.a == top["policy"] else -1
    low, high = sorted((sign * head.low, sign * head.high))
    if low > 0:
        verdict = f"{top['policy']} clearly beats it when they meet"
    elif high < 0:
        verdict = f"yet {top['policy']} loses to it when they meet"
    else:
        verdict = "their own match is too close to call"
    lines.append(
        f"Next comes **{second['policy']}** ({100 * second['share']:.1f}%); {verdict} "
        f"({100 * sign * head.difference:+.1f} percentage points of win share for "
        f"{top['policy']}, 95% interval {100 * low:+.1f} to {100 * high:+.1f})."
    )
    lines.append(
        f"**{last['policy']}** comes last ({100 * last['share']:.1f}%, clearly losing "
        f"{int(last['lost'])} of its {n} matches)."
    )
    baseline = table[table.policy == "max-shed"].iloc[0]
    if baseline["policy"] != last["policy"]:
        lines.append(
            f"The plain baseline max-shed, which calls as soon as it may and always draws "
            f"blind, ranks {int(baseline['rank'])} of {len(table)}."
        )
    return " ".join(lines)
