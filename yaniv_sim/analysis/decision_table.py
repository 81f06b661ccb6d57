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
    ``call`` when the gain of calling is clearly above 0, ``wait`` when it
    is clearly below, ``too close`` otherwise, and ``too few`` with fewer
    than ``min_points`` decision points. "Clearly" is a one-sided test per
    cell and direction, all the tests of one table controlled together at a
    false-discovery rate of 5% (Benjamini-Hochberg): of the verdicts a table
    gives, about one in twenty or fewer is expected to be wrong by chance.

Dependence
    The decision points of one game are not independent (the same hands,
    the same totals, often the same round). Every interval and test here is
    cluster-robust with the game as the cluster (see
    :func:`yaniv_sim.stats.clustered_means`): a game's points count as one
    observation's worth of evidence, not as many.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from yaniv_sim.analysis.assaf_risk import turn_band
from yaniv_sim.engine.specs import TABLE_CARDS
from yaniv_sim.stats import clustered_means, fdr_verdicts

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


def _clustered(values, keys: pd.DataFrame, clusters) -> pd.DataFrame:
    """Cluster-robust mean, 95% interval and one-sided p-values of ``values`` per key."""
    m = clustered_means(values, keys, clusters)
    half = stats.t.ppf(0.975, np.maximum(m["clusters"] - 1, 1)) * m["se"]
    return m.assign(low=m["mean"] - half, high=m["mean"] + half)


def decision_table(
    decisions: pd.DataFrame,
    by=("opponents", "hand_value", "fewest", "band"),
    min_points=100,
    fdr: float = 0.05,
) -> pd.DataFrame:
    """One row per cell of ``by``: sizes, gains with 95% intervals, and the verdict.

    Columns: the ``by`` columns, ``n``, ``games`` (the games the cell's
    points come from), ``gain``, ``gain_low``, ``gain_high`` (round margin,
    points), ``points_gain`` and its interval (the seat's own round score),
    ``called`` (share of points where the policy called), ``win_n``,
    ``win_gain``, ``win_low``, ``win_high`` (game win probability),
    ``p_call`` and ``p_wait`` (the one-sided p-values of the gain above and
    below 0) and ``verdict`` (see the module's notes: the intervals and tests
    are clustered by game; the verdicts are controlled at ``fdr``).
    """
    d = with_gains(decisions) if "gain" not in decisions.columns else decisions
    d = d.reset_index(drop=True)
    by = list(by)
    keys = d[by]
    games = d["game"].to_numpy() if "game" in d.columns else np.arange(len(d))
    gain = _clustered(d["gain"], keys, games)
    table = gain[[*by, "n", "clusters"]].rename(columns={"clusters": "games"})
    table["gain"], table["gain_low"], table["gain_high"] = gain["mean"], gain["low"], gain["high"]
    table["p_call"], table["p_wait"] = gain["p_above"], gain["p_below"]
    points = _clustered(d["points_gain"], keys, games)
    table["points_gain"], table["points_low"], table["points_high"] = (
        points["mean"], points["low"], points["high"]
    )  # fmt: skip
    called = d.groupby(by, observed=True)["called"].mean().rename("called").reset_index()
    table = table.merge(called, on=by, how="left")
    played = d["win_gain"].notna().to_numpy()
    if played.any():
        win = _clustered(d.loc[played, "win_gain"], keys[played], games[played])
        win = win[[*by, "n", "mean", "low", "high"]].rename(
            columns={"n": "win_n", "mean": "win_gain", "low": "win_low", "high": "win_high"}
        )
        table = table.merge(win, on=by, how="left")
    else:
        table = table.assign(win_n=0, win_gain=np.nan, win_low=np.nan, win_high=np.nan)
    table["win_n"] = table["win_n"].fillna(0)
    none = table["win_n"].to_numpy() < 2
    table.loc[none, ["win_gain", "win_low", "win_high"]] = np.nan
    table["verdict"] = fdr_verdicts(table["p_call"], table["p_wait"], table["n"], min_points, fdr)
    columns = [*by, "n", "games", "gain", "gain_low", "gain_high", "points_gain", "points_low",
               "points_high", "called", "win_n", "win_gain", "win_low", "win_high", "p_call",
               "p_wait", "verdict"]  # fmt: skip
    return table[columns].astype({"win_n": np.int64, "n": np.int64, "games": np.int64})


def corrections(
    decisions: pd.DataFrame, by=("hand_value", "fewest", "band"), min_points=50
) -> pd.DataFrame:
    """Where the policy that made the data should decide the other way, cell by cell.

    A call table cell set to 1 changes only the positions where the policy
    waited, and a cell set to 0 only those where it called. So each cell is
    judged on the positions it would change: ``call`` if, among the points
    where the policy waited, the gain of calling is clearly above 0 (the
    test of :func:`decision_table`); ``wait`` if, among the points where it
    called, it is clearly below
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
