"""When to call Yaniv: a decision table from paired counterfactual branches.

Every decision point of a dataset simulated with ``branches=True`` holds the
deciding seat's round result both ways, on the same cards: calling now, and
waiting this turn (the policy then plays on as usual). See
:mod:`yaniv_sim.simulation.branches`.

Terminology
-----------
round margin
    The deciding seat's round score minus the mean round score of its
    opponents in the game. Lower is better for the seat.
gain of calling
    Margin if it waits minus margin if it calls: how many points better off,
    relative to the table, calling now leaves the seat. Positive: call.
win gain
    Game win probability if it calls minus if it waits, from the decision
    points whose games were played on to the end both ways.
verdict
    ``call`` when the 95% interval of the gain of calling lies above 0,
    ``wait`` when it lies below 0, ``too close`` otherwise, and ``too few``
    with fewer than ``min_points`` decision points.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from yaniv_sim.analysis.assaf_risk import turn_band
from yaniv_sim.engine.specs import TABLE_CARDS

__all__ = [
    "VERDICTS",
    "corrections",
    "decision_table",
    "export_policy",
    "rule_of_thumb",
    "with_gains",
]

VERDICTS = ("call", "wait", "too close", "too few")
BRANCH_COLUMNS = ("points_if_call", "points_if_wait", "others_if_call", "others_if_wait")


def with_gains(decisions: pd.DataFrame) -> pd.DataFrame:
    """The decision points with ``opponents``, ``fewest``, ``band`` and the gains added."""
    missing = [c for c in BRANCH_COLUMNS if c not in decisions.columns]
    if missing:
        raise ValueError(
            "the dataset has no counterfactual branches (simulate games with branches=True)"
        )
    columns = [c for c in decisions.columns if re.fullmatch(r"opp\d+_cards", c)]
    cards = decisions[columns].to_numpy()
    opponents = (cards >= 0).sum(axis=1)
    out = decisions.copy()
    out["opponents"] = opponents
    out["fewest"] = np.minimum(decisions["fewest_opponent_cards"].to_numpy(), TABLE_CARDS)
    out["band"] = turn_band(decisions["turn"].to_numpy())
    per = np.maximum(opponents, 1)
    margin_call = decisions["points_if_call"] - decisions["others_if_call"] / per
    margin_wait = decisions["points_if_wait"] - decisions["others_if_wait"] / per
    out["gain"] = (margin_wait - margin_call).astype(np.float64)
    out["points_gain"] = (decisions["points_if_wait"] - decisions["points_if_call"]).astype(
        np.float64
    )
    played_on = (decisions["win_if_call"] >= 0) & (decisions["win_if_wait"] >= 0)
    out["win_gain"] = np.where(
        played_on, decisions["win_if_call"] - decisions["win_if_wait"], np.nan
    )
    return out


def _mean_interval(sums, squares, n):
    mean = sums / np.maximum(n, 1)
    var = (squares - n * mean**2) / np.maximum(n - 1, 1)
    se = np.sqrt(np.maximum(var, 0) / np.maximum(n, 1))
    z = stats.norm.ppf(0.975)
    return mean, mean - z * se, mean + z * se


def decision_table(
    decisions: pd.DataFrame, by=("opponents", "hand_value", "fewest", "band"), min_points=100
) -> pd.DataFrame:
    """One row per cell of ``by``: sizes, gains with 95% intervals, and the verdict.

    Columns: the ``by`` columns, ``n``, ``gain``, ``gain_low``, ``gain_high``
    (round margin, points), ``points_gain`` and its interval (the seat's own
    round score), ``called`` (share of points where the policy called),
    ``win_n``, ``win_gain``, ``win_low``, ``win_high`` (game win probability)
    and ``verdict``.
    """
    d = with_gains(decisions) if "gain" not in decisions.columns else decisions
    keys = [d[c] for c in by]
    g = d.assign(
        gain2=d["gain"] ** 2,
        points2=d["points_gain"] ** 2,
        win_n=d["win_gain"].notna().astype(np.int64),
        win=d["win_gain"].fillna(0.0),
        win2=d["win_gain"].fillna(0.0) ** 2,
        called_f=d["called"].astype(np.float64),
    ).groupby(keys, observed=True)
    sums = g[["gain", "gain2", "points_gain", "points2", "win_n", "win", "win2", "called_f"]].sum()
    n = g.size()
    table = sums.assign(n=n).reset_index()
    nn = table["n"].to_numpy(np.float64)
    table["gain"], table["gain_low"], table["gain_high"] = _mean_interval(
        table["gain"].to_numpy(), table["gain2"].to_numpy(), nn
    )
    table["points_gain"], table["points_low"], table["points_high"] = _mean_interval(
        table["points_gain"].to_numpy(), table["points2"].to_numpy(), nn
    )
    wn = table["win_n"].to_numpy(np.float64)
    table["win_gain"], table["win_low"], table["win_high"] = _mean_interval(
        table["win"].to_numpy(), table["win2"].to_numpy(), wn
    )
    none = wn < 2
    table.loc[none, ["win_gain", "win_low", "win_high"]] = np.nan
    table["called"] = table["called_f"] / nn
    verdict = np.where(
        table["gain_low"] > 0, "call", np.where(table["gain_high"] < 0, "wait", "too close")
    )
    table["verdict"] = np.where(nn < min_points, "too few", verdict)
    columns = [*by, "n", "gain", "gain_low", "gain_high", "points_gain", "points_low",
               "points_high", "called", "win_n", "win_gain", "win_low", "win_high",
               "verdict"]  # fmt: skip
    return table[columns].astype({"win_n": np.int64, "n": np.int64})


def corrections(
    decisions: pd.DataFrame, by=("hand_value", "fewest", "band"), min_points=50
) -> pd.DataFrame:
    """Where the policy that made the data should decide the other way, cell by cell.

    A call table cell set to 1 changes only the positions where the policy
    waited, and a cell set to 0 only those where it called. So each cell is
    judged on the positions it would change: ``call`` if, among the points
    where the policy waited, the gain of calling has a 95% interval above 0;
    ``wait`` if, among the points where it called, the interval lies below
    0 (if both, the larger total gain wins); ``keep`` otherwise. Exported with
    :func:`export_policy`, this is the policy with its clear mistakes
    corrected. Give one number of opponents at a time.
    """
    d = with_gains(decisions) if "gain" not in decisions.columns else decisions
    keys = list(by)
    waited = decision_table(d[~d["called"]], by=by, min_points=min_points)
    called = decision_table(d[d["called"]], by=by, min_points=min_points)
    cols = [*keys, "n", "gain", "gain_low", "gain_high", "verdict"]
    suffixes = ("_waited", "_called")
    table = waited[cols].merge(called[cols], on=keys, how="outer", suffixes=suffixes)
    call = (table["verdict_waited"] == "call").to_numpy()
    wait = (table["verdict_called"] == "wait").to_numpy()
    gain_call = (table["n_waited"] * table["gain_waited"]).fillna(0).to_numpy()
    gain_wait = (-table["n_called"] * table["gain_called"]).fillna(0).to_numpy()
    verdict = np.where(call & (~wait | (gain_call >= gain_wait)), "call",
                       np.where(wait, "wait", "keep"))  # fmt: skip
    table["verdict"] = verdict
    for c in ("n_waited", "n_called"):
        table[c] = table[c].fillna(0).astype(np.int64)
    return table.sort_values(keys, ignore_index=True)


def rule_of_thumb(table: pd.DataFrame, opponents: int) -> str:
    """A sentence a player can remember, from a table by (hand value, fewest) for one count.

    ``table`` has ``opponents``, ``hand_value``, ``fewest`` and ``verdict``
    columns (turn bands pooled). Cells without a verdict are left out.
    """
    rows = table[(table["opponents"] == opponents) & table["verdict"].isin(["call", "wait"])]
    phrases = []
    for value, cells in rows.groupby("hand_value"):
        calls = cells.loc[cells["verdict"] == "call", "fewest"]
        waits = cells.loc[cells["verdict"] == "wait", "fewest"]
        if waits.empty:
            phrase = "call"
        elif calls.empty:
            phrase = "wait"
        elif calls.min() > waits.max():
            phrase = f"call only while every opponent holds {calls.min()}+ cards"
        else:
            phrase = "it depends on more than the opponents' cards"
        phrases.append((int(value), phrase))
    if not phrases:
        return f"With {opponents} opponent{'s' if opponents > 1 else ''}: no clear verdicts."
    groups: list[list] = []
    for value, phrase in phrases:
        if groups and groups[-1][2] == phrase and groups[-1][1] == value - 1:
            groups[-1][1] = value
        else:
            groups.append([value, value, phrase])
    parts = []
    for low, high, phrase in groups:
        span = f"at {low}" if low == high else f"at {low} to {high}"
        parts.append(f"{span}: {phrase}")
    who = f"{opponents} opponent{'s' if opponents > 1 else ''}"
    return f"With {who}: " + "; ".join(parts) + "."


def export_policy(table: pd.DataFrame, policy: str, path: Path) -> Path:
    """Write the table's verdicts as a policy file that plays them back.

    The policy is ``policy`` (a heuristic-family spec) with its call table
    switched on: ``call`` cells become 1, ``wait`` cells 0; other cells keep
    the default 0.5, so ``policy`` itself decides there. ``table`` has
    ``hand_value``, ``fewest``, ``band`` and ``verdict`` for one table size.
    """
    if table.duplicated(["hand_value", "fewest", "band"]).any():
        raise ValueError(
            "export_policy: the table has several rows per cell; give one number of "
            "opponents (filter on the opponents column)"
        )
    name, _, rest = policy.partition(":")
    params = [item.strip() for item in rest.split(",") if item.strip()]
    lines = [
        "# a call table exported by yaniv-sim report: 1 call, 0 wait; cells left out",
        f"# defer to {policy}",
        f'policy = "{name}"',
        "",
        "[params]",
    ]
    for item in params:
        key, _, value = item.partition("=")
        lines.append(f"{key.strip()} = {value.strip()}")
    lines.append("table = 1")
    for row in table.sort_values(["hand_value", "fewest", "band"]).itertuples():
        if row.verdict in ("call", "wait") and row.hand_value <= 15:
            cell = f"call_v{row.hand_value}_c{row.fewest}_t{row.band}"
            lines.append(f"{cell} = {1 if row.verdict == 'call' else 0}")
    path = Path(path)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
